"""Gemini CLI's ``settings.json``: ``mcpServers`` among many other settings, comments allowed.

Gemini's spelling of an entry: ``command`` / ``args`` / ``env`` / ``cwd`` for stdio, ``httpUrl``
for Streamable HTTP, ``url`` for SSE (unless ``"type": "http"``), ``headers``, ``timeout`` in
milliseconds (our request timeout), ``includeTools`` (allow-list) and ``excludeTools``
(deny-list, which wins). A server is disabled by listing its name in ``mcp.excluded`` (or leaving
it out of an ``mcp.allowed`` list). Gemini reads the file with comments stripped, so comments and
every other setting are kept as they are.

Gemini expands ``$VAR`` and ``${VAR}`` in the values; in the parsed spec ``$VAR`` becomes our
``${VAR}`` so that the connect-time expansion sees it. The file is never rewritten for that.
"""

from __future__ import annotations

import re
from typing import Any

from agentty_tui.config.common import (
    JsoncDialect,
    map_strings,
    server_or_problem,
    settings_config,
    str_list,
)
from agentty_tui.config.connection import (
    ConnectionSpelling,
    entry_to_update,
    spec_to_write,
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
    spec_to_entry,
)
from agentty_tui.config.filters import filter_entry, toggle_tool
from agentty_tui.config.raw import SERVERS_KEY
from agentty_tui.errors import ConfigError, UnknownServerError
from agentty_tui.model import HttpSpec, PluginConfig, ServerConfig, ServerSpec, StdioSpec

__all__ = ["GeminiDialect", "gemini_entry"]

_BARE_VARIABLE = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_SPEC_KEYS = ("command", "args", "env", "cwd", "headers")
_SPELLING = ConnectionSpelling(
    groups=(
        (("command",), ("command",)),
        (("args",), ("args",)),
        (("env",), ("env",)),
        (("cwd",), ("cwd",)),
        (("url", "transport"), ("httpUrl", "url", "type")),
        (("headers",), ("headers",)),
    ),
    url_only=("oauth",),
)


def gemini_entry(spec: ServerSpec) -> dict[str, Any]:
    """The Gemini ``mcpServers`` entry of a spec, with only non-default fields."""
    if isinstance(spec, StdioSpec):
        return spec_to_entry(spec)  # the stdio fields are spelled as in mcpServers JSON
    assert isinstance(spec, HttpSpec)
    entry: dict[str, Any] = {"url" if spec.transport == "sse" else "httpUrl": spec.url}
    if spec.headers:
        entry["headers"] = dict(spec.headers)
    return entry


def _mcp_lists(document: dict[str, Any], path: str | None) -> tuple[list[str], list[str] | None]:
    """``mcp.excluded`` and ``mcp.allowed`` (server names)."""
    mcp = document.get("mcp", {})
    if not isinstance(mcp, dict):
        raise ConfigError("must be an object", path=path, field="mcp")
    excluded = mcp.get("excluded", [])
    allowed = mcp.get("allowed")
    for key, names in (("excluded", excluded), ("allowed", allowed)):
        if names is not None and (
            not isinstance(names, list) or not all(isinstance(n, str) for n in names)
        ):
            raise ConfigError("must be an array of server names", path=path, field=f"mcp.{key}")
    return excluded, allowed


def _ours(name: str, entry: dict[str, Any], disabled: bool, path: str | None) -> dict[str, Any]:
    """The entry in our ``mcpServers`` shape, for the shared validation."""
    out: dict[str, Any] = {key: entry[key] for key in _SPEC_KEYS if key in entry}
    if "httpUrl" in entry:
        out["url"] = entry["httpUrl"]
        out["type"] = "http"
    elif "url" in entry:
        out["url"] = entry["url"]
        out["type"] = "http" if entry.get("type") in ("http", "streamable-http") else "sse"
    if "timeout" in entry:
        timeout = entry["timeout"]
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            raise ConfigError(
                "must be a positive number of milliseconds", path=path, server=name, field="timeout"
            )
        out["requestTimeout"] = timeout / 1000
    include = str_list(entry.get("includeTools"), name=name, field="includeTools", path=path)
    exclude = str_list(entry.get("excludeTools"), name=name, field="excludeTools", path=path)
    tools = filter_entry(include, exclude)
    if tools:
        out["tools"] = tools
    out["disabled"] = disabled
    # Gemini expands $VAR too; the connect-time expansion knows ${VAR}.
    converted: dict[str, Any] = map_strings(
        out, lambda text: _BARE_VARIABLE.sub(lambda m: "${" + m.group(1) + "}", text)
    )
    return converted


class GeminiDialect(JsoncDialect):
    """Gemini CLI ``settings.json``."""

    name = "gemini"
    timeout_fields: tuple[str, ...] = ("request_timeout",)
    """Gemini's ``timeout`` is a request timeout; it has no connect timeout."""

    def validate(self, value: dict[str, Any], path: str | None) -> PluginConfig:
        """Validate ``mcpServers`` in Gemini's spelling; one bad entry does not stop the rest."""
        servers = value.get(SERVERS_KEY, {})
        if not isinstance(servers, dict):
            raise ConfigError(
                "must be an object mapping server names to entries", path=path, field=SERVERS_KEY
            )
        excluded, allowed = _mcp_lists(value, path)
        configs: list[ServerConfig] = []
        for key, entry in servers.items():
            name = str(key)
            if not isinstance(entry, dict):
                configs.append(server_or_problem(name, entry, path))
                continue
            disabled = name in excluded or (allowed is not None and name not in allowed)
            try:
                ours = _ours(name, entry, disabled, path)
            except ConfigError as error:
                configs.append(ServerConfig(name=name, problem=str(error)))
                continue
            configs.append(server_or_problem(name, ours, path))
        return settings_config(value, tuple(configs), path)

    def edit(self, value: dict[str, Any], edit: ConfigEdit, path: str | None) -> dict[str, Any]:
        """Apply ``edit`` in Gemini's spelling."""
        servers = value.get(SERVERS_KEY)
        if servers is not None and not isinstance(servers, dict):
            raise ConfigError("must be an object", path=path, field=SERVERS_KEY)
        if isinstance(edit, AddServer):
            if not edit.name:
                raise ConfigError("a server name must not be empty", path=path, field=SERVERS_KEY)
            if servers is None:
                servers = value[SERVERS_KEY] = {}
            if edit.name in servers:
                raise ConfigError(
                    "a server of this name already exists", path=path, server=edit.name
                )
            if edit.connect_timeout is not None:
                raise ConfigError(
                    "Gemini CLI settings have no connect timeout",
                    path=path,
                    server=edit.name,
                    field="timeout",
                )
            servers[edit.name] = gemini_entry(edit.spec)
            if edit.request_timeout is not None:
                servers[edit.name]["timeout"] = plain_number(edit.request_timeout * 1000)
            # With an `mcp.allowed` list, a server left out of it would never start.
            _, allowed = _mcp_lists(value, path)
            if allowed is not None and edit.name not in allowed:
                value["mcp"]["allowed"] = [*allowed, edit.name]
            return value
        if isinstance(edit, UpdateServer):
            return self._update(value, edit, path)
        name = edit.name if isinstance(edit, RemoveServer) else edit.server
        if servers is None or name not in servers:
            raise UnknownServerError(name)
        if isinstance(edit, RemoveServer):
            del servers[name]
            return value
        if isinstance(edit, SetServerDisabled):
            return self._set_disabled(value, name, edit.disabled, path)
        entry = servers[name]
        if not isinstance(entry, dict):
            raise ConfigError("must be an object", path=path, server=name)
        include = str_list(entry.get("includeTools"), name=name, field="includeTools", path=path)
        exclude = str_list(entry.get("excludeTools"), name=name, field="excludeTools", path=path)
        if isinstance(edit, SetToolEnabled):
            include, exclude = toggle_tool(include, exclude or [], edit.tool, edit.enabled)
        else:
            assert isinstance(edit, SetToolFilter)
            include = None if edit.include is None else list(edit.include)
            exclude = list(edit.exclude)
        if include is None:
            entry.pop("includeTools", None)
        else:
            entry["includeTools"] = include
        if exclude:
            entry["excludeTools"] = exclude
        else:
            entry.pop("excludeTools", None)
        return value

    def _update(
        self, value: dict[str, Any], edit: UpdateServer, path: str | None
    ) -> dict[str, Any]:
        entry = entry_to_update(value.get(SERVERS_KEY), edit.server, path)
        if edit.connect_timeout is not None:
            raise ConfigError(
                "Gemini CLI settings have no connect timeout",
                path=path,
                server=edit.server,
                field="timeout",
            )
        old = self.validate(value, path).server(edit.server)
        spec = spec_to_write(edit.spec, old)
        update_connection(entry, gemini_entry(spec), spec, old, _SPELLING)
        if edit.request_timeout is not None:
            entry["timeout"] = plain_number(edit.request_timeout * 1000)
        return value

    def _set_disabled(
        self, value: dict[str, Any], name: str, disabled: bool, path: str | None
    ) -> dict[str, Any]:
        excluded, allowed = _mcp_lists(value, path)
        if disabled and name not in excluded:
            value.setdefault("mcp", {})["excluded"] = [*excluded, name]
        elif not disabled:
            if name in excluded:
                remaining = [item for item in excluded if item != name]
                if remaining:
                    value["mcp"]["excluded"] = remaining
                else:
                    del value["mcp"]["excluded"]
                    if not value["mcp"]:
                        del value["mcp"]
            if allowed is not None and name not in allowed:
                value["mcp"]["allowed"] = [*allowed, name]
        return value
