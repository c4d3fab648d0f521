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

from agentty_tui.config.documents.formats import JsoncFormat
from agentty_tui.config.engine import (
    Adapter,
    ConnectionSpelling,
    TimeoutKey,
    filter_entry,
    same_name,
    validate_entries,
)
from agentty_tui.config.hosts.mcpjson import SERVERS_KEY, spec_to_entry
from agentty_tui.config.oauth_hosts import gemini_oauth, gemini_oauth_entry
from agentty_tui.config.raw import map_strings, settings_config, str_list
from agentty_tui.errors import ConfigError
from agentty_tui.specs import HttpSpec, PluginConfig, ServerSpec, StdioSpec

__all__ = ["GeminiDialect", "gemini_entry"]

_BARE_VARIABLE = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_SPEC_KEYS = ("command", "args", "env", "cwd", "headers")
_SPELLING = ConnectionSpelling(
    groups=(
        *same_name("command", "args", "env", "cwd", "headers"),
        (("url", "transport"), ("httpUrl", "url", "type")),
    ),
    url_only=("oauth",),
)


def gemini_entry(spec: ServerSpec) -> dict[str, Any]:
    """The Gemini ``mcpServers`` entry of a spec, with only non-default fields, as ``gemini mcp
    add`` writes one (0.61: a URL as ``url`` with its ``type``, ``http`` or ``sse``; the older
    ``httpUrl`` is read too)."""
    if isinstance(spec, StdioSpec):
        return spec_to_entry(spec)  # the stdio fields are spelled as in mcpServers JSON
    assert isinstance(spec, HttpSpec)
    entry: dict[str, Any] = {"url": spec.url, "type": "sse" if spec.transport == "sse" else "http"}
    if spec.headers:
        entry["headers"] = dict(spec.headers)
    if spec.oauth is not None:
        entry["oauth"] = gemini_oauth_entry(spec.oauth)
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
    out.update(gemini_oauth(entry, name, path))
    # Gemini expands $VAR too; the connect-time expansion knows ${VAR}.
    converted: dict[str, Any] = map_strings(
        out, lambda text: _BARE_VARIABLE.sub(lambda m: "${" + m.group(1) + "}", text)
    )
    return converted


class GeminiDialect(Adapter):
    """Gemini CLI ``settings.json``."""

    name = "gemini"
    format = JsoncFormat()
    servers_key = SERVERS_KEY
    tools_key = None
    include_key = "includeTools"
    exclude_key = "excludeTools"
    timeouts = (
        TimeoutKey(
            "connect_timeout",
            None,
            missing="Gemini CLI settings have no connect timeout",
            missing_field="timeout",
        ),
        # Gemini's ``timeout`` is a request timeout, in milliseconds.
        TimeoutKey("request_timeout", "timeout", scale=1000),
    )
    connection = _SPELLING

    def validate(self, value: dict[str, Any], path: str | None) -> PluginConfig:
        """Validate ``mcpServers`` in Gemini's spelling; one bad entry does not stop the rest."""
        servers = value.get(SERVERS_KEY, {})
        if not isinstance(servers, dict):
            raise ConfigError(
                "must be an object mapping server names to entries", path=path, field=SERVERS_KEY
            )
        excluded, allowed = _mcp_lists(value, path)

        def ours(name: str, entry: dict[str, Any]) -> dict[str, Any]:
            disabled = name in excluded or (allowed is not None and name not in allowed)
            return _ours(name, entry, disabled, path)

        return settings_config(value, validate_entries(servers, ours, path), path)

    def new_entry(self, spec: ServerSpec) -> Any:
        """``gemini_entry``."""
        return gemini_entry(spec)

    def after_add(self, root: Any, name: str, path: str | None) -> None:
        """With an ``mcp.allowed`` list, a server left out of it would never start."""
        _, allowed = _mcp_lists(root, path)
        if allowed is not None and name not in allowed:
            root["mcp"]["allowed"] = [*allowed, name]

    def allow(self, root: Any, name: str, path: str | None, allowed: bool = True) -> None:
        """Out of ``mcp.excluded``, into ``mcp.allowed`` where there is one (``allowed``
        false: into ``mcp.excluded``): Gemini CLI reads these lists from every settings file,
        for servers of any of them (its extensions' too)."""
        self.set_disabled(root, None, name, not allowed, path)

    def set_disabled(
        self, root: Any, servers: Any, name: str, disabled: bool, path: str | None
    ) -> None:
        """A disabled server is listed in ``mcp.excluded`` (and must be in ``mcp.allowed``,
        if there is one, to start)."""
        excluded, allowed = _mcp_lists(root, path)
        if disabled and name not in excluded:
            root.setdefault("mcp", {})["excluded"] = [*excluded, name]
        elif not disabled:
            if name in excluded:
                remaining = [item for item in excluded if item != name]
                if remaining:
                    root["mcp"]["excluded"] = remaining
                else:
                    del root["mcp"]["excluded"]
                    if not root["mcp"]:
                        del root["mcp"]
            if allowed is not None and name not in allowed:
                root["mcp"]["allowed"] = [*allowed, name]
