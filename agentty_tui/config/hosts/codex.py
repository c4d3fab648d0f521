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
from tomlkit.items import InlineTable, Table

from agentty_tui.config.documents.toml import TomlFormat
from agentty_tui.config.engine import (
    Adapter,
    ConnectionSpelling,
    TimeoutKey,
    filter_entry,
    same_name,
    validate_entries,
)
from agentty_tui.config.entry_rules import header_problem
from agentty_tui.config.oauth_hosts import codex_oauth, codex_oauth_table
from agentty_tui.config.raw import settings_config, str_list
from agentty_tui.errors import ConfigError
from agentty_tui.specs import HttpSpec, PluginConfig, ServerSpec, StdioSpec

__all__ = ["CODEX_SERVERS_KEY", "CodexDialect", "codex_table"]

CODEX_SERVERS_KEY = "mcp_servers"
"""Codex's top-level table of servers."""

_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_BEARER = re.compile(r"Bearer \$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_SPELLING = ConnectionSpelling(
    groups=(
        *same_name("command", "args", "cwd", "url"),
        (("env",), ("env", "env_vars")),
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
    if spec.oauth is not None:
        scopes, oauth = codex_oauth_table(spec.oauth)
        if scopes is not None:
            table["scopes"] = scopes
        if oauth:
            table["oauth"] = _inline(oauth)
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


class CodexDialect(Adapter):
    """Codex ``config.toml``; the document is the file's text, edited with tomlkit."""

    name = "codex"
    format = TomlFormat()
    servers_key = CODEX_SERVERS_KEY
    tools_key = None
    include_key = "enabled_tools"
    exclude_key = "disabled_tools"
    disabled_key = "enabled"
    disabled_value = False
    timeouts = (
        TimeoutKey(
            "connect_timeout", "startup_timeout_sec", older="startup_timeout_ms", older_scale=1000
        ),
        TimeoutKey("request_timeout", "tool_timeout_sec"),
    )
    connection = _SPELLING

    def validate(self, value: dict[str, Any], path: str | None) -> PluginConfig:
        """Validate ``mcp_servers``; one bad table does not stop the rest."""
        servers = value.get(CODEX_SERVERS_KEY, {})
        if not isinstance(servers, dict):
            raise ConfigError("must be a table of servers", path=path, field=CODEX_SERVERS_KEY)
        port = value.get("mcp_oauth_callback_port")
        configs = validate_entries(
            servers,
            lambda name, entry: _ours(name, entry, path) | codex_oauth(entry, name, path, port),
            path,
        )
        return settings_config(value, configs, path)

    def new_entry(self, spec: ServerSpec) -> Any:
        """``codex_table``."""
        return codex_table(spec)
