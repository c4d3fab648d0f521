"""What the picker needs from the core: snapshots to render and operations to dispatch.

The protocol is the picker's only way in: where a new server or an import may go, the import
itself (the source writes it) and the reloads of outside edits are asked of it too, so the
picker never reaches the config's files or stores behind it.

``agentty_tui.bridge.Bridge`` satisfies ``PluginSource``; so does the gateway daemon's bridge
seen from a picker attached to it (``gateway.picker.remote_source.RemoteSource``), which is also a
``DaemonSource``: the picker then shows the daemon and its attached hosts. Tests and snapshot
tests pass a static source instead, so the app can be shown a fixed ``PluginModel`` with no
server running.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from agentty_tui.bridge.reload_report import ReloadReport
from agentty_tui.config.discover import HostFile
from agentty_tui.config.importing import ImportResult, PreparedImport
from agentty_tui.gateway.picker.view import DaemonAsk, DaemonView
from agentty_tui.model import PluginModel, ServerSpec, SourceRef

if TYPE_CHECKING:  # the picker's first frame comes before the SDK is imported
    import mcp_types as types

    from agentty_tui.bridge.auth import LoginUI
    from agentty_tui.bridge.call_hooks import CallHooks
    from agentty_tui.bridge.elicit import ServerElicitation, ServerElicitationComplete

__all__ = ["DaemonSource", "PluginSource"]


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

    def add_targets(self) -> tuple[SourceRef, ...]:
        """The files a new server may go to, the default first (the workspace's choice; the
        one file of ``--config``)."""
        ...

    def import_target(self) -> Path:
        """The file an import writes: a workspace's own user file (the one file of
        ``--config``)."""
        ...

    def config_files(self) -> tuple[Path, ...]:
        """Every file the config is read from (present or not): an import offers none."""
        ...

    def add_reload_listener(self, listener: Callable[[ReloadReport], None]) -> Callable[[], None]:
        """Call ``listener`` with the report of every reload an outside edit of the config's
        files caused; returns a function that removes it (a source without a watcher never
        calls it)."""
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

    async def tool_set_enabled(
        self, server: str, tool: str, enabled: bool, *, host: str | None = None
    ) -> PluginModel:
        """Turn one tool on or off (a config write, never a re-spawn), for every host holding
        the server or ``host`` alone."""
        ...

    async def tools_set_enabled(
        self, server: str, enabled: bool, *, host: str | None = None
    ) -> PluginModel:
        """Turn every tool of a server on or off (for ``host`` alone, when given)."""
        ...

    async def server_set_disabled(
        self, name: str, disabled: bool, *, host: str | None = None
    ) -> PluginModel:
        """Park a server in the config (stopping it) or bring it back (starting it); for
        ``host`` alone, when given."""
        ...

    async def tool_set_pinned(self, server: str, tool: str, pinned: bool) -> PluginModel:
        """Pin a tool (trimmed only after every unpinned one) or unpin it (``tools.pin`` of
        the server's entry, in agentty's own file)."""
        ...

    async def server_set_priority(self, name: str, priority: int) -> PluginModel:
        """Set a server's ``priority`` (0: none; above 0 every tool of it is pinned)."""
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

    async def import_plan(self, source: HostFile) -> PreparedImport:
        """What importing the host file ``source`` into ``import_target`` would do (a
        project's file's servers come disabled); nothing is written."""
        ...

    async def import_servers(self, prepared: PreparedImport) -> tuple[ImportResult, ReloadReport]:
        """Write ``prepared``'s additions (a name taken meanwhile is refused, in the result),
        then reload, so that the servers added appear in the snapshots; what was written and
        the reload's report."""
        ...

    async def login(self, name: str, ui: LoginUI) -> PluginModel:
        """Log in to a URL server through ``ui`` (URL, progress, paste), then reconnect it."""
        ...

    async def logout(self, name: str) -> PluginModel:
        """Forget a URL server's tokens and client registration, then reconnect it."""
        ...

    async def call_tool(
        self,
        server: str,
        tool: str,
        arguments: dict[str, Any] | None = None,
        hooks: CallHooks | None = None,
    ) -> types.CallToolResult:
        """Call one tool through a step runtime; ``hooks``: where its progress goes and who
        answers what the server asks meanwhile. Cancelling the caller cancels the server's
        request."""
        ...

    def set_elicitation(
        self,
        handler: ServerElicitation | None,
        completed: ServerElicitationComplete | None = None,
    ) -> None:
        """Who answers a server's form or URL request made outside any call with hooks, told
        which server asks (``None``: a decline), and who hears that a URL request it
        accepted completed."""
        ...


@runtime_checkable
class DaemonSource(Protocol):
    """A source that is the gateway daemon's bridge: the picker shows the daemon (attached or
    gone) and the hosts attached for its workspace, with what each one lists."""

    @property
    def daemon(self) -> DaemonView:
        """The daemon as the picker sees it now."""
        ...

    def daemon_views(self) -> AsyncIterator[DaemonView]:
        """The daemon's view now, then every newer one."""
        ...

    def set_daemon_asks(
        self, ask: DaemonAsk | None, completed: ServerElicitationComplete | None = None
    ) -> None:
        """Who answers what the daemon's servers ask of this picker (a request no call owns,
        a host's call that cannot answer, the picker's own call), told who asks (``None``: a
        decline), and who hears that a page it accepted is done."""
        ...
