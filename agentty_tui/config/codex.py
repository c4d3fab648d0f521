"""Codex's ``~/.codex/config.toml``: one ``[mcp_servers.NAME]`` table per server.

Keys of a table: ``command`` / ``args`` / ``env`` / ``env_vars`` / ``cwd`` for stdio; ``url`` /
``http_headers`` / ``env_http_headers`` / ``bearer_token_env_var`` for Streamable HTTP (Codex has
no SSE); ``startup_timeout_sec`` (or the older ``startup_timeout_ms``, our connect timeout),
``tool_timeout_sec`` (our request timeout), ``enabled = false`` for a disabled server,
``enabled_tools`` (allow-list) and ``disabled_tools`` (deny-list, applied after it).

Codex reads variables from the environment by name; in the parsed spec those names become our
``${VAR}`` references: ``env_vars = ["K"]`` is ``env K = "${K}"``, ``env_http_headers = {H =
"V"}`` is ``headers H = "${V}"`` and ``bearer_token_env_var = "T"`` is ``Authorization: Bearer
${T}``. Writing a new server maps them back. Every edit goes through tomlkit node by node, so
comments, key order and formatting of the rest of the file stay as they were.
"""

from __future__ import annotations

import re
from typing import Any

import tomlkit
from tomlkit.exceptions import ParseError, TOMLKitError
from tomlkit.items import Array, Comment, InlineTable, Table
from tomlkit.parser import Parser

from agentty_tui.config.common import server_or_problem, settings_config, str_list
from agentty_tui.config.connection import (
    ConnectionSpelling,
    entry_to_update,
    update_connection,
)
from agentty_tui.config.edits import (
    AddServer,
    ConfigEdit,
    RemoveServer,
    SetServerDisabled,
    SetToolEnabled,
    SetToolFilter,
    UpdateServer,
    plain_number,
)
from agentty_tui.config.filters import filter_entry, toggle_tool
from agentty_tui.config.headers import header_problem
from agentty_tui.errors import ConfigError, UnknownServerError
from agentty_tui.model import HttpSpec, PluginConfig, ServerConfig, ServerSpec, StdioSpec

__all__ = ["CODEX_SERVERS_KEY", "CodexDialect", "codex_table"]

CODEX_SERVERS_KEY = "mcp_servers"
"""Codex's top-level table of servers."""

_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_BEARER = re.compile(r"Bearer \$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_AT = re.compile(r" at line \d+ col \d+$")
_SPELLING = ConnectionSpelling(
    groups=(
        (("command",), ("command",)),
        (("args",), ("args",)),
        (("env",), ("env", "env_vars")),
        (("cwd",), ("cwd",)),
        (("url",), ("url",)),
        (("headers",), ("http_headers", "env_http_headers", "bearer_token_env_var")),
    ),
)


def _inline(mapping: dict[str, str]) -> InlineTable:
    table = tomlkit.inline_table()
    table.update(mapping)
    return table


def codex_table(spec: ServerSpec) -> Table:
    """The ``[mcp_servers.NAME]`` table of a spec; ``${VAR}`` references become Codex's
    by-name keys. Codex has no legacy SSE transport: such a spec is a ``ConfigError``."""
    table = tomlkit.table()
    if isinstance(spec, StdioSpec):
        table["command"] = spec.command
        if spec.args:
            table["args"] = list(spec.args)
        env = {k: v for k, v in spec.env.items() if v != "${" + k + "}"}
        forwarded = [k for k, v in spec.env.items() if v == "${" + k + "}"]
        if env:
            table["env"] = _inline(env)
        if forwarded:
            table["env_vars"] = forwarded
        if spec.cwd is not None:
            table["cwd"] = spec.cwd
        return table
    assert isinstance(spec, HttpSpec)
    if spec.transport == "sse":
        raise ConfigError(
            "Codex speaks only stdio and Streamable HTTP; a legacy SSE server cannot be "
            "written to config.toml"
        )
    table["url"] = spec.url
    headers: dict[str, str] = {}
    by_name: dict[str, str] = {}
    for key, value in spec.headers.items():
        bearer = _BEARER.fullmatch(value)
        reference = _REFERENCE.fullmatch(value)
        if key.lower() == "authorization" and bearer and "bearer_token_env_var" not in table:
            table["bearer_token_env_var"] = bearer.group(1)
        elif reference:
            by_name[key] = reference.group(1)
        else:
            headers[key] = value
    if headers:
        table["http_headers"] = _inline(headers)
    if by_name:
        table["env_http_headers"] = _inline(by_name)
    return table


def _number(entry: dict[str, Any], key: str, name: str, path: str | None) -> float | None:
    value = entry.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ConfigError("must be a positive number", path=path, server=name, field=key)
    return float(value)


def _str_map(entry: dict[str, Any], key: str, name: str, path: str | None) -> dict[str, str]:
    value = entry.get(key, {})
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ConfigError("must be a table of strings", path=path, server=name, field=key)
    return dict(value)


def _ours(name: str, entry: dict[str, Any], path: str | None) -> dict[str, Any]:
    """The table in our ``mcpServers`` entry shape, for the shared validation."""
    out: dict[str, Any] = {key: entry[key] for key in ("command", "args", "cwd") if key in entry}
    env = _str_map(entry, "env", name, path)
    for variable in str_list(entry.get("env_vars"), name=name, field="env_vars", path=path) or []:
        env.setdefault(variable, "${" + variable + "}")
    if env or "env" in entry:
        out["env"] = env
    if "url" in entry:
        out["url"] = entry["url"]
        headers = _str_map(entry, "http_headers", name, path)
        by_variable = _str_map(entry, "env_http_headers", name, path)
        # Named in Codex's own spelling here; the shared validation would say ``headers.X``.
        checks = [("http_headers", h, v) for h, v in headers.items()]
        checks += [("env_http_headers", h, "") for h in by_variable]
        for key, header, value in checks:
            if (why := header_problem(header, value)) is not None:
                raise ConfigError(why, path=path, server=name, field=f"{key}.{header}")
        for header, variable in by_variable.items():
            headers[header] = "${" + variable + "}"
        token = entry.get("bearer_token_env_var")
        if token is not None:
            if not isinstance(token, str) or not token:
                raise ConfigError(
                    "must be the name of an environment variable",
                    path=path,
                    server=name,
                    field="bearer_token_env_var",
                )
            headers["Authorization"] = "Bearer ${" + token + "}"
        if headers:
            out["headers"] = headers
    startup = _number(entry, "startup_timeout_sec", name, path)
    startup_ms = _number(entry, "startup_timeout_ms", name, path)
    if startup is not None:
        out["connectTimeout"] = startup
    elif startup_ms is not None:
        out["connectTimeout"] = startup_ms / 1000
    request = _number(entry, "tool_timeout_sec", name, path)
    if request is not None:
        out["requestTimeout"] = request
    enabled = entry.get("enabled", True)
    if not isinstance(enabled, bool):
        raise ConfigError("must be true or false", path=path, server=name, field="enabled")
    out["disabled"] = not enabled
    include = str_list(entry.get("enabled_tools"), name=name, field="enabled_tools", path=path)
    exclude = str_list(entry.get("disabled_tools"), name=name, field="disabled_tools", path=path)
    tools = filter_entry(include, exclude)
    if tools:
        out["tools"] = tools
    return out


def _set_list(table: Any, key: str, items: list[str] | None) -> None:
    """Make ``table[key]`` hold ``items`` (absent for ``None``), editing an existing array in
    place so that its layout and comments stay."""
    current = table.get(key)
    if items is None:
        if key in table:
            del table[key]
        return
    if isinstance(current, Array):
        for index in reversed(range(len(current))):
            if current[index] not in items:
                del current[index]
        for item in items:
            if item not in current:
                current.append(item)
        return
    _add_after_last_key(table, key, items)


def _add_after_last_key(table: Any, key: str, value: Any) -> None:
    """Add ``key`` right after the table's last key: the blank lines and comments that end a
    table's body in tomlkit belong to the next table, so appending would land under them."""
    if not isinstance(table, Table):
        table[key] = value
        return
    body = table.value.body
    end = len(body)
    while end and body[end - 1][0] is None:
        end -= 1
    trailing = body[end:]
    del body[end:]
    table[key] = value
    body.extend(trailing)


def _drop_comments_above(servers: Any, name: str) -> None:
    """Remove the comment lines right above ``[mcp_servers.NAME]`` (no blank line between):
    they describe the table being removed. tomlkit keeps them at the end of the table before."""
    if not isinstance(servers, Table):
        return
    names = list(servers.keys())
    index = names.index(name)
    if index == 0:
        return
    previous = servers[names[index - 1]]
    while isinstance(previous, Table):
        body = previous.value.body
        if body and isinstance(body[-1][1], Table):
            previous = body[-1][1]
            continue
        end = len(body)
        while end and body[end - 1][0] is None and isinstance(body[end - 1][1], Comment):
            end -= 1
        del body[end:]
        return


def _ms_only(entry: Any) -> bool:
    """Whether the table spells its connect timeout only in the older milliseconds key."""
    return "startup_timeout_ms" in entry and "startup_timeout_sec" not in entry


def _line_read_last(parser: Parser, text: str) -> int | None:
    """The line of the last text ``parser`` read (``None`` if its position is unknown)."""
    position = getattr(getattr(parser, "_src", None), "_idx", None)
    if not isinstance(position, int):
        return None
    return text.count("\n", 0, len(text[:position].rstrip())) + 1


class CodexDialect:
    """Codex ``config.toml``; the document is the file's text, edited with tomlkit."""

    name = "codex"
    timeout_fields: tuple[str, ...] = ("connect_timeout", "request_timeout")
    """``startup_timeout_sec`` and ``tool_timeout_sec``."""

    def parse(self, text: str, path: str | None) -> tuple[str, PluginConfig]:
        """Parse TOML and validate ``mcp_servers``; syntax errors carry line and column."""
        parser = Parser(text)
        try:
            value = parser.parse().unwrap()
        except ParseError as error:
            message = _AT.sub("", str(error))
            raise ConfigError(
                f"invalid TOML: {message}", path=path, line=error.line, column=error.col
            ) from None
        except TOMLKitError as error:
            # A key repeated within a table is found only once its line is read; tomlkit then
            # says no line, but its reader stands just past it.
            raise ConfigError(
                f"invalid TOML: {error}", path=path, line=_line_read_last(parser, text)
            ) from None
        servers = value.get(CODEX_SERVERS_KEY, {})
        if not isinstance(servers, dict):
            raise ConfigError("must be a table of servers", path=path, field=CODEX_SERVERS_KEY)
        configs: list[ServerConfig] = []
        for key, entry in servers.items():
            name = str(key)
            if not isinstance(entry, dict):
                configs.append(server_or_problem(name, entry, path))
                continue
            try:
                ours = _ours(name, entry, path)
            except ConfigError as error:
                configs.append(ServerConfig(name=name, problem=str(error)))
                continue
            configs.append(server_or_problem(name, ours, path))
        return text, settings_config(value, tuple(configs), path)

    def apply(self, document: str, edit: ConfigEdit, path: str | None) -> str:
        """Apply ``edit`` to the TOML text, touching only the nodes the edit owns."""
        doc = tomlkit.parse(document)
        servers = doc.get(CODEX_SERVERS_KEY)
        if servers is not None and not isinstance(servers, dict):
            raise ConfigError("must be a table of servers", path=path, field=CODEX_SERVERS_KEY)
        if isinstance(edit, AddServer):
            self._add(doc, servers, edit, path)
            return doc.as_string()
        if isinstance(edit, UpdateServer):
            self._update(document, entry_to_update(servers, edit.server, path), edit, path)
            return doc.as_string()
        name = edit.name if isinstance(edit, RemoveServer) else edit.server
        if servers is None or name not in servers:
            raise UnknownServerError(name)
        if isinstance(edit, RemoveServer):
            _drop_comments_above(servers, name)
            del servers[name]
            return doc.as_string()
        entry = servers[name]
        if not isinstance(entry, dict):
            raise ConfigError("must be a table", path=path, server=name)
        if isinstance(edit, SetServerDisabled):
            if edit.disabled:
                if "enabled" in entry:
                    entry["enabled"] = False
                else:
                    _add_after_last_key(entry, "enabled", False)
            elif "enabled" in entry:
                del entry["enabled"]
            return doc.as_string()
        plain = entry.unwrap() if isinstance(entry, Table | InlineTable) else dict(entry)
        include = str_list(plain.get("enabled_tools"), name=name, field="enabled_tools", path=path)
        exclude = str_list(
            plain.get("disabled_tools"), name=name, field="disabled_tools", path=path
        )
        if isinstance(edit, SetToolEnabled):
            include, exclude = toggle_tool(include, exclude or [], edit.tool, edit.enabled)
        else:
            assert isinstance(edit, SetToolFilter)
            include = None if edit.include is None else list(edit.include)
            exclude = list(edit.exclude)
        _set_list(entry, "enabled_tools", include)
        _set_list(entry, "disabled_tools", exclude or None)
        return doc.as_string()

    def _add(self, doc: Any, servers: Any, edit: AddServer, path: str | None) -> None:
        if not edit.name:
            raise ConfigError("a server name must not be empty", path=path, field="mcp_servers")
        if servers is not None and edit.name in servers:
            raise ConfigError("a server of this name already exists", path=path, server=edit.name)
        try:
            table = codex_table(edit.spec)
        except ConfigError as error:
            raise ConfigError(error.detail, path=path, server=edit.name) from None
        if edit.connect_timeout is not None:
            table["startup_timeout_sec"] = plain_number(edit.connect_timeout)
        if edit.request_timeout is not None:
            table["tool_timeout_sec"] = plain_number(edit.request_timeout)
        if servers is None:
            servers = tomlkit.table(is_super_table=True)
            doc[CODEX_SERVERS_KEY] = servers
        # A table followed by another one gets the blank line that separates tables.
        if list(doc.keys())[-1] != CODEX_SERVERS_KEY:
            table.add(tomlkit.nl())
        servers[edit.name] = table

    def _update(self, text: str, entry: Any, edit: UpdateServer, path: str | None) -> None:
        try:
            table = codex_table(edit.spec)
        except ConfigError as error:
            raise ConfigError(error.detail, path=path, server=edit.server) from None
        old = self.parse(text, path)[1].server(edit.server)
        update_connection(entry, table, edit.spec, old, _SPELLING, add=_add_after_last_key)
        timeouts = (
            (
                "startup_timeout_ms" if _ms_only(entry) else "startup_timeout_sec",
                edit.connect_timeout,
            ),
            ("tool_timeout_sec", edit.request_timeout),
        )
        for key, seconds in timeouts:
            if seconds is None:
                continue
            number = plain_number(seconds * 1000 if key.endswith("_ms") else seconds)
            if key in entry:
                entry[key] = number
            else:
                _add_after_last_key(entry, key, number)

    def dump(self, document: str, like: str | None) -> str:
        """The edited text, already laid out like the file."""
        return document
