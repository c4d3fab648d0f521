"""What the picker needs from the core: snapshots to render and operations to dispatch.

``agentty_tui.bridge.Bridge`` satisfies ``PluginSource``; tests and snapshot tests pass a static
source instead, so the app can be shown a fixed ``PluginModel`` with no server running.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, Protocol

import mcp_types as types

from agentty_tui.bridge.auth import LoginUI
from agentty_tui.bridge.reload_report import ReloadReport
from agentty_tui.model import PluginModel, ServerSpec, SourceRef

__all__ = ["PluginSource"]


class PluginSource(Protocol):
    """Snapshots of the plugin model, and the operations that change it.

    Every operation raises ``agentty_tui.errors.AgenttyError`` (with user-facing text) when it
    cannot be carried out.
    """

    @property
    def snapshot(self) -> PluginModel:
        """The current model."""
        ...

    def updates(self) -> AsyncIterator[PluginModel]:
        """The current snapshot, then every newer one (a slow reader skips to the latest)."""
        ...

    async def plugin_add(
        self, name: str, spec: ServerSpec, *, source: SourceRef | None = None
    ) -> PluginModel:
        """Add a server to the config and start it; in a workspace, into the file ``source``
        (default: our user file)."""
        ...

    async def plugin_update(self, name: str, spec: ServerSpec) -> PluginModel:
        """Change how a server is reached, and restart that server alone."""
        ...

    async def plugin_remove(self, name: str, *, source: SourceRef | None = None) -> PluginModel:
        """Remove a server from the config and stop it; in a workspace, the entry in the file
        ``source`` (default: the entry in use)."""
        ...

    async def tool_set_enabled(self, server: str, tool: str, enabled: bool) -> PluginModel:
        """Turn one tool on or off (a config write, never a re-spawn)."""
        ...

    async def tools_set_enabled(self, server: str, enabled: bool) -> PluginModel:
        """Turn every tool of a server on or off."""
        ...

    async def server_set_disabled(self, name: str, disabled: bool) -> PluginModel:
        """Park a server in the config (stopping it) or bring it back (starting it)."""
        ...

    async def reload(self) -> ReloadReport:
        """Re-read the config and converge on it; the report says what changed, or why not."""
        ...

    async def restart(self, name: str) -> PluginModel:
        """Start one server again (a failed one, say) without touching the config."""
        ...

    async def trust_config(self) -> PluginModel:
        """Trust the config file for this run: start the stdio servers it held back."""
        ...

    async def trust_servers(
        self, names: Sequence[str] | None = None, *, shown: Mapping[str, str] | None = None
    ) -> PluginModel:
        """Trust a workspace's waiting project servers ``names`` (or all), on disk: they start
        now, and in later runs while their entries stay the same. ``shown``: each entry's
        ``entry_hash`` as the user saw it; one that changed since is not trusted
        (``EntryChangedError``)."""
        ...

    async def login(self, name: str, ui: LoginUI) -> PluginModel:
        """Log in to a URL server through ``ui`` (URL, progress, paste), then reconnect it."""
        ...

    async def logout(self, name: str) -> PluginModel:
        """Forget a URL server's tokens and client registration, then reconnect it."""
        ...

    async def call_tool(
        self, server: str, tool: str, arguments: dict[str, Any] | None = None
    ) -> types.CallToolResult:
        """Call one tool through a step runtime."""
        ...
