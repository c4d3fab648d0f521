"""The vocabulary of config changes, and how each one rewrites an ``mcpServers`` document.

An edit is a small frozen value; ``apply_edit`` is a pure function from (document, edit) to a new
document. It touches only the keys the edit owns, so everything else in the user's file (unknown
keys, their order) is carried over as it was.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

from agentty_tui.config.connection import (
    MCP_JSON_SPELLING,
    entry_to_update,
    spec_to_write,
    update_connection,
)
from agentty_tui.config.filters import toggle_tool
from agentty_tui.config.raw import SERVERS_KEY, validate_server
from agentty_tui.errors import ConfigError, UnknownServerError
from agentty_tui.model import HttpSpec, ServerConfig, ServerSpec, StdioSpec

__all__ = [
    "AddServer",
    "ConfigEdit",
    "RemoveServer",
    "SetServerDisabled",
    "SetToolEnabled",
    "SetToolFilter",
    "UpdateServer",
    "apply_edit",
    "plain_number",
    "spec_to_entry",
    "timeout_keys",
]


@dataclass(frozen=True, slots=True)
class AddServer:
    """Add a server entry; refused when a server of that name exists."""

    name: str
    """The new config key."""
    spec: ServerSpec
    """How to reach the server; written back in the on-disk shape."""
    connect_timeout: float | None = None
    """Seconds to connect and list tools; ``None`` leaves the default (nothing written)."""
    request_timeout: float | None = None
    """Seconds any one request may take; ``None`` leaves the default (nothing written)."""


@dataclass(frozen=True, slots=True)
class RemoveServer:
    """Remove a server entry; refused when there is none of that name."""

    name: str
    """The config key to drop."""


@dataclass(frozen=True, slots=True)
class SetToolEnabled:
    """Turn one tool of a server on or off through the entry's ``tools`` include/exclude lists."""

    server: str
    """The config key of the server."""
    tool: str
    """The bare tool name, as the server advertises it."""
    enabled: bool
    """The wanted state."""


@dataclass(frozen=True, slots=True)
class SetServerDisabled:
    """Keep a server in the config but stop (or resume) starting it."""

    server: str
    """The config key of the server."""
    disabled: bool
    """The wanted state."""


@dataclass(frozen=True, slots=True)
class SetToolFilter:
    """Replace a server's whole tool filter, e.g. to carry an imported server's lists over."""

    server: str
    """The config key of the server."""
    include: tuple[str, ...] | None
    """The allow-list (``None``: no allow-list, every tool not excluded is on)."""
    exclude: tuple[str, ...] = ()
    """The deny-list."""


@dataclass(frozen=True, slots=True)
class UpdateServer:
    """Replace how an existing server is reached; every other key of its entry stays as written.

    The keys of the connection (``command`` / ``args`` / ``env`` / ``cwd``, or ``url`` /
    ``headers`` / the transport) are rewritten in the file's own spelling, and only those whose
    value changed; tool lists, the disabled flag, ``oauth``, unknown keys and comments stay.
    Refused (``ConfigError`` naming the file and server) when there is no such server.
    """

    server: str
    """The config key of the server."""
    spec: ServerSpec
    """How to reach it from now on."""
    connect_timeout: float | None = None
    """New seconds to connect and list tools; ``None`` keeps what the entry says."""
    request_timeout: float | None = None
    """New seconds any one request may take; ``None`` keeps what the entry says."""


ConfigEdit: TypeAlias = (
    AddServer | RemoveServer | SetToolEnabled | SetServerDisabled | SetToolFilter | UpdateServer
)
"""Every change the config layer knows how to write."""


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
    return entry


def timeout_keys(edit: AddServer | UpdateServer) -> dict[str, float]:
    """The entry keys of an edit's timeouts, as ``mcpServers`` JSON spells them."""
    keys: dict[str, float] = {}
    if edit.connect_timeout is not None:
        keys["connectTimeout"] = plain_number(edit.connect_timeout)
    if edit.request_timeout is not None:
        keys["requestTimeout"] = plain_number(edit.request_timeout)
    return keys


def plain_number(value: float) -> float:
    """``value`` as an ``int`` when it is a whole number (``5``, not ``5.0``, in the file)."""
    return int(value) if float(value).is_integer() else value


def _servers(document: dict[str, Any], path: str | None, *, create: bool) -> dict[str, Any]:
    """The document's server map (made when ``create`` and absent)."""
    servers = document.get(SERVERS_KEY)
    if servers is None and create:
        servers = document[SERVERS_KEY] = {}
    if servers is None:
        return {}
    if not isinstance(servers, dict):
        raise ConfigError("must be an object", path=path, field=SERVERS_KEY)
    return servers


def _entry(document: dict[str, Any], name: str, path: str | None) -> dict[str, Any]:
    """A copy of server ``name``'s entry, put in its place; ``UnknownServerError`` when absent.

    ``document``'s server map must be a copy already (``apply_edit`` makes one).
    """
    servers = _servers(document, path, create=False)
    if name not in servers:
        raise UnknownServerError(name)
    entry = servers[name]
    if not isinstance(entry, dict):
        raise ConfigError("must be an object", path=path, server=name)
    # The entry is about to change: the document's own stays as it was.
    entry = servers[name] = copy.deepcopy(entry)
    return entry


def _tools_of(entry: dict[str, Any], server: str, path: str | None) -> dict[str, Any]:
    """The entry's ``tools`` object (a new one when absent)."""
    tools = entry.get("tools", {})
    if not isinstance(tools, dict):
        raise ConfigError("must be an object", path=path, server=server, field="tools")
    return tools


def _write_lists(
    entry: dict[str, Any], tools: dict[str, Any], include: list[str] | None, exclude: list[str]
) -> None:
    """Put the lists back into ``tools`` and ``tools`` into the entry; other keys stay."""
    # Assignment keeps an existing key's position.
    if include is None:
        tools.pop("include", None)
    else:
        tools["include"] = include
    if exclude:
        tools["exclude"] = exclude
    else:
        tools.pop("exclude", None)
    if tools:
        entry["tools"] = tools
    else:
        # An empty `tools` object says nothing; leave no litter behind.
        entry.pop("tools", None)


def _set_tool_enabled(entry: dict[str, Any], edit: SetToolEnabled, path: str | None) -> None:
    """Rewrite the entry's ``tools`` lists so that exactly ``edit.enabled`` holds for the tool."""
    tools = _tools_of(entry, edit.server, path)
    for key in ("include", "exclude"):
        if key in tools and not isinstance(tools[key], list):
            raise ConfigError(
                f"'{key}' must be an array", path=path, server=edit.server, field="tools"
            )
    include, exclude = toggle_tool(
        tools.get("include"), tools.get("exclude", []), edit.tool, edit.enabled
    )
    _write_lists(entry, tools, include, exclude)


def _set_tool_filter(entry: dict[str, Any], edit: SetToolFilter, path: str | None) -> None:
    """Write both ``tools`` lists of the entry; other keys of ``tools`` stay."""
    tools = _tools_of(entry, edit.server, path)
    include = None if edit.include is None else list(edit.include)
    _write_lists(entry, tools, include, list(edit.exclude))


def _update_server(entry: dict[str, Any], edit: UpdateServer, path: str | None) -> None:
    """Rewrite the entry's connection keys (and the timeouts the edit gives)."""
    try:
        old: ServerConfig | None = validate_server(edit.server, entry, path=path)
    except ConfigError:
        old = None
    spec = spec_to_write(edit.spec, old)
    update_connection(entry, spec_to_entry(spec), spec, old, MCP_JSON_SPELLING)
    entry.update(timeout_keys(edit))


def apply_edit(
    document: Mapping[str, Any], edit: ConfigEdit, *, path: str | None = None
) -> dict[str, Any]:
    """Return a new document with ``edit`` applied; ``document`` itself is left as it was.

    Raises ``UnknownServerError`` for an edit of a server the document lacks, and ``ConfigError``
    for an ``AddServer`` whose name is taken (``path`` only goes into messages).
    """
    # Copy on write: the top level and the server map are copied here, and the one entry an
    # edit changes is copied by ``_entry``; everything else is shared with ``document``.
    result: dict[str, Any] = dict(document)
    if isinstance(result.get(SERVERS_KEY), dict):
        result[SERVERS_KEY] = dict(result[SERVERS_KEY])
    if isinstance(edit, AddServer):
        if not edit.name:
            raise ConfigError("a server name must not be empty", path=path, field=SERVERS_KEY)
        servers = _servers(result, path, create=True)
        if edit.name in servers:
            raise ConfigError("a server of this name already exists", path=path, server=edit.name)
        servers[edit.name] = spec_to_entry(edit.spec) | timeout_keys(edit)
    elif isinstance(edit, RemoveServer):
        servers = _servers(result, path, create=False)
        if edit.name not in servers:
            raise UnknownServerError(edit.name)
        del servers[edit.name]
    elif isinstance(edit, SetToolEnabled):
        _set_tool_enabled(_entry(result, edit.server, path), edit, path)
    elif isinstance(edit, SetToolFilter):
        _set_tool_filter(_entry(result, edit.server, path), edit, path)
    elif isinstance(edit, UpdateServer):
        entry_to_update(result.get(SERVERS_KEY), edit.server, path)
        _update_server(_entry(result, edit.server, path), edit, path)
    else:
        entry = _entry(result, edit.server, path)
        if edit.disabled:
            entry["disabled"] = True
        else:
            # Absent means enabled; dropping the key keeps the entry minimal.
            entry.pop("disabled", None)
    return result
