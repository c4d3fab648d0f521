"""The config operations' checks, each giving the edit it writes.

The bridge (under the picker) and the headless command line change a config through the same
operations: add a server, remove one, switch a tool on or off, park a server or bring it back.
Each function here takes the config as loaded, refuses what the operation cannot do (an unknown
server, a taken or invalid name, a tool the live server does not advertise) and returns the
edit to apply; neither caller repeats a check of its own.
"""

from __future__ import annotations

from collections.abc import Collection

from agentty_tui.config.engine import AddServer, RemoveServer, SetServerDisabled, SetToolEnabled
from agentty_tui.config.entry_rules import new_server_name
from agentty_tui.errors import UnknownServerError, UnknownToolError
from agentty_tui.specs import PluginConfig, ServerConfig, ServerSpec

__all__ = ["add_server", "configured", "remove_server", "set_server_disabled", "set_tool_enabled"]


def configured(config: PluginConfig, name: str) -> ServerConfig:
    """The entry called ``name``; ``UnknownServerError`` when the config has none."""
    server = config.server(name)
    if server is None:
        raise UnknownServerError(name, [known.name for known in config.servers])
    return server


def add_server(config: PluginConfig, name: str, spec: ServerSpec) -> AddServer:
    """The edit adding ``name``; ``EntryError`` for a name the rules refuse or one taken."""
    new_server_name(name, [server.name for server in config.servers])
    return AddServer(name=name, spec=spec)


def remove_server(config: PluginConfig, name: str) -> RemoveServer:
    """The edit removing ``name``, which must be configured."""
    configured(config, name)
    return RemoveServer(name=name)


def set_tool_enabled(
    config: PluginConfig,
    server: str,
    tool: str,
    enabled: bool,
    advertised: Collection[str] | None,
) -> SetToolEnabled:
    """The edit switching ``server``'s ``tool``.

    ``advertised`` is what the live server lists, or ``None`` when it could not be asked (not
    connected, disabled, held back): then any name is written, since a tool a server reveals
    later may be named before it appears.
    """
    configured(config, server)
    if advertised is not None and tool not in advertised:
        raise UnknownToolError(server, tool, advertised)
    return SetToolEnabled(server=server, tool=tool, enabled=enabled)


def set_server_disabled(config: PluginConfig, name: str, disabled: bool) -> SetServerDisabled:
    """The edit parking ``name`` (``disabled``) or bringing it back."""
    configured(config, name)
    return SetServerDisabled(server=name, disabled=disabled)
