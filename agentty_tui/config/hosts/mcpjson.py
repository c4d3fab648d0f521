"""Claude Desktop / Claude Code / Cursor ``mcpServers`` JSON: the dialect of ``mcp.json``.

Plain JSON (no comments) with a top-level ``mcpServers`` object; an entry is our own shape
(``raw.RawServer``): a tool turned off is written as ``tools.exclude``, a disabled server as
``"disabled": true``, timeouts as ``connectTimeout`` / ``requestTimeout`` in seconds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agentty_tui.config.documents.formats import JsonFormat
from agentty_tui.config.engine import Adapter, ConfigEdit, ConnectionSpelling, TimeoutKey, same_name
from agentty_tui.config.oauth_hosts import oauth_entry
from agentty_tui.config.raw import json_type, server_or_problem, settings_config
from agentty_tui.errors import ConfigError
from agentty_tui.specs import HttpSpec, PluginConfig, ServerSpec, StdioSpec

__all__ = [
    "MCP_JSON_SPELLING",
    "MCP_JSON_TIMEOUTS",
    "SERVERS_KEY",
    "McpJsonDialect",
    "apply_edit",
    "spec_to_entry",
    "validate_document",
]

SERVERS_KEY = "mcpServers"
"""The top-level key that maps server names to server entries (Claude's spelling)."""

MCP_JSON_TIMEOUTS = (
    TimeoutKey("connect_timeout", "connectTimeout"),
    TimeoutKey("request_timeout", "requestTimeout"),
)
"""``connectTimeout`` and ``requestTimeout``, in seconds (ours; VS Code's entries too)."""

MCP_JSON_SPELLING = ConnectionSpelling(
    groups=(
        *same_name("command", "args", "env", "cwd", "url", "headers"),
        (("transport",), ("type",)),
    ),
    url_only=("oauth",),
)
"""The keys of a connection in our entry shape."""


def spec_to_entry(spec: ServerSpec) -> dict[str, Any]:
    """The on-disk entry of a spec, with only the fields that differ from their defaults."""
    entry: dict[str, Any]
    if isinstance(spec, StdioSpec):
        entry = {"command": spec.command}
        if spec.args:
            entry["args"] = list(spec.args)
        if spec.env:
            entry["env"] = dict(spec.env)
        if spec.cwd is not None:
            entry["cwd"] = spec.cwd
        return entry
    assert isinstance(spec, HttpSpec)
    entry = {"url": spec.url}
    if spec.headers:
        entry["headers"] = dict(spec.headers)
    # A url alone means Streamable HTTP; only the legacy transport needs saying.
    if spec.transport == "sse":
        entry["type"] = "sse"
    if spec.oauth is not None:
        entry["oauth"] = oauth_entry(spec.oauth)
    return entry


def validate_document(document: object, *, path: str | None = None) -> PluginConfig:
    """Validate a whole parsed ``mcpServers`` document (a JSON object) into a ``PluginConfig``.

    Servers keep file order. Unknown keys at any level are ignored here and kept in the file.
    """
    if not isinstance(document, Mapping):
        raise ConfigError(f"the top level must be an object, not {json_type(document)}", path=path)
    servers = document.get(SERVERS_KEY, {})
    if not isinstance(servers, Mapping):
        raise ConfigError(
            f"must be an object mapping server names to entries, not {json_type(servers)}",
            path=path,
            field=SERVERS_KEY,
        )
    configs = tuple(server_or_problem(str(name), entry, path) for name, entry in servers.items())
    return settings_config(document, configs, path)


class McpJsonDialect(Adapter):
    """Plain JSON with a top-level ``mcpServers`` object (Claude Desktop / Code, Cursor)."""

    name = "claude"
    servers_key = SERVERS_KEY
    timeouts = MCP_JSON_TIMEOUTS
    connection = MCP_JSON_SPELLING
    # agentty's own fields; a workspace writes them into agentty's files alone.
    pin_key = "pin"
    priority_key = "priority"

    def __init__(self) -> None:
        self.format = JsonFormat()

    def validate(self, value: Any, path: str | None) -> PluginConfig:
        """Validate the document: the entries are our own shape already."""
        return validate_document(value, path=path)

    def new_entry(self, spec: ServerSpec) -> Any:
        """``spec_to_entry``."""
        return spec_to_entry(spec)


_PURE = McpJsonDialect()


def apply_edit(
    document: Mapping[str, Any], edit: ConfigEdit, *, path: str | None = None
) -> dict[str, Any]:
    """Return a new ``mcpServers`` document with ``edit`` applied; ``document`` itself is left
    as it was (copy on write: unchanged entries are shared with it).

    Raises ``UnknownServerError`` for an edit of a server the document lacks, and ``ConfigError``
    for an ``AddServer`` whose name is taken (``path`` only goes into messages).
    """
    result: dict[str, Any] = _PURE.edit(document, edit, path)
    return result
