"""A bridge that is still starting: the picker's first frame from the config alone.

Importing the mcp SDK (which the bridge needs) takes about half a second; the picker's first
frame does not wait for it. ``StartingSource`` is a source of snapshots and operations like
``Bridge`` (the picker's ``PluginSource``) that shows, at once, the
config's servers as the bridge is about to show them (those it starts ``connecting``:
``bridge.states.opening_model``); once that frame is out, ``run`` starts their processes
(``bridge/early.py``), imports the SDK while they boot, and enters the real bridge; from then
on every snapshot and every operation is the bridge's. An operation asked for before then
waits for it.

Nor does the first frame wait for a large file of the workspace (a heavy Claude Code user's
``~/.claude.json``, tens of MiB, about 10 ms a MiB to read): ``load`` reads the workspace
without the hosts whose files are over ``SLOW_SOURCE_BYTES`` (``Workspace.leaving_out``), and
the opening model says which files are still being read (``PluginModel.reading``) rather than
showing their servers, or none. Once the frame is out, ``run`` reads the whole workspace in a
thread and publishes its opening model before it starts anything: every server started, and
every snapshot from then on, is the whole workspace's, as if it had been read first.

A config with nothing to connect (empty, or every server off) needs no SDK at all until that
changes: ``run`` then waits, without the SDK, until an operation asks for the bridge or one of
the config's files changes (``Workspace.version``, looked at every ``IDLE_LOOK`` seconds), and
only then imports the SDK and enters the bridge, which reads the files itself. The picker on an
empty config keeps the SDK's 25 MiB out of its memory (``bench/bench_picker_memory.py``).

``run`` owns the bridge: it enters it, follows the outside edits (``Bridge.watch``) and leaves
it (every server stopped) once ``close`` is called, or at once when it is cancelled.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from agentty_tui.bridge.early import EarlyStarts, loaded_with_version, wanted_servers
from agentty_tui.bridge.reload_report import ReloadReport
from agentty_tui.bridge.states import opening_model
from agentty_tui.config.discover import HostFile
from agentty_tui.config.importing import ImportResult, PreparedImport
from agentty_tui.config.trust import TrustGate
from agentty_tui.config.workspace import Workspace, add_targets
from agentty_tui.errors import ConfigError
from agentty_tui.model import PluginConfig, PluginModel, ServerSpec, SourceRef

if TYPE_CHECKING:
    import mcp_types as types

    from agentty_tui.bridge.auth import LoginUI
    from agentty_tui.bridge.bridge import Bridge
    from agentty_tui.bridge.call_hooks import CallHooks
    from agentty_tui.bridge.elicit import ServerElicitation, ServerElicitationComplete

__all__ = ["IDLE_LOOK", "SLOW_SOURCE_BYTES", "StartingSource", "slow_files"]

IDLE_LOOK = 0.2
"""Seconds between two looks at the config's files while nothing needs the bridge (one
``stat`` a file): an outside edit that adds a server starts the bridge within that."""

SLOW_SOURCE_BYTES = 1024 * 1024
"""A workspace file this large (about 10 ms to read, more on a busy machine) is read after the
first frame: its host's servers arrive in the next one."""


def slow_files(workspace: Workspace, limit: int) -> dict[str, tuple[tuple[Path, int], ...]]:
    """The files of ``workspace`` of ``limit`` bytes or more, with their sizes, by host (never
    agentty's own: the files a new server goes to are always read first); none for one file
    (``--config``)."""
    if workspace.single:
        return {}
    found: dict[str, dict[Path, int]] = {}
    for source in workspace.sources:
        if source.ref.host == "agentty":
            continue
        path = workspace.store(source.ref).path
        try:
            size = os.stat(path).st_size
        except OSError:
            continue  # not there: nothing to wait for
        if size >= limit:
            found.setdefault(source.ref.host, {})[path] = size
    return {host: tuple(files.items()) for host, files in found.items()}


class StartingSource:
    """A ``PluginSource`` that is the config alone until the bridge is up, then the bridge."""

    def __init__(
        self, workspace: Workspace, *, trust: bool = False, slow_bytes: int = SLOW_SOURCE_BYTES
    ) -> None:
        """``workspace``: the config's files (one file for ``--config``); ``trust``: start the
        stdio servers of a config that is not trusted (``--trust``); ``slow_bytes``: the size
        from which a file is read after the first frame."""
        self.workspace = workspace
        """The config's files, as the bridge will read them."""
        self._trust = trust
        self._slow_bytes = slow_bytes
        # Set once the whole workspace is read, when ``load`` left files out (else ``None``).
        self._whole: anyio.Event | None = None
        self._loaded: PluginConfig | None = None
        self._version: object | None = None  # the fingerprint of ``_loaded``'s files
        self._first = PluginModel(config_path=str(workspace.path))
        self._bridge: Bridge | None = None
        self._ready = anyio.Event()
        self._needed = anyio.Event()  # an operation waits for the bridge
        self.idle = anyio.Event()
        """Set while ``run`` waits for a need of the bridge, the SDK not imported (nothing to
        connect); it stays set once that wait is over."""
        self._closing = anyio.Event()
        self._loading: anyio.CancelScope | None = None  # the wait for the frame and the SDK
        self._listeners: list[_WaitingListener] = []
        self._elicitation: ServerElicitation | None = None  # handed to the bridge
        self._elicitation_complete: ServerElicitationComplete | None = None

    def load(self) -> None:
        """Read the config (blocking) for the first snapshot; one that does not load shows
        nothing until the bridge, which says why. A workspace whose files include large ones
        is read without their hosts here, the whole of it in ``run``."""
        slow = slow_files(self.workspace, self._slow_bytes)
        if slow:
            self._whole = anyio.Event()
            self._first = self._fast_model(slow)
            return
        try:
            self._version, config = loaded_with_version(self.workspace)
        except ConfigError:
            return
        self._loaded = config
        gate = TrustGate(everything=self._trust)
        self._first = opening_model(config, str(self.workspace.path), gate)

    def _fast_model(self, slow: Mapping[str, tuple[tuple[Path, int], ...]]) -> PluginModel:
        """The opening model of the workspace without the hosts of ``slow``, saying which
        files are being read (nothing is kept of it: the whole workspace is read in ``run``)."""
        from agentty_tui.config.hosts.claude.switches import shown_path

        workspace = self.workspace
        home = Path.home() if workspace.claude is None else workspace.claude.home
        reading = tuple(
            f"reading {shown_path(path, home, workspace.root)} "
            f"({size / (1024 * 1024):.1f} MiB): its servers are shown once it is read"
            for files in slow.values()
            for path, size in files
        )
        try:
            config = workspace.leaving_out(slow).load()
        except ConfigError:
            return self._first.model_copy(update={"reading": reading})
        gate = TrustGate(everything=self._trust)
        model = opening_model(config, str(workspace.path), gate)
        return model.model_copy(update={"reading": reading})

    async def _read_whole(self) -> None:
        """Read the whole workspace in a thread (the first frame is out) and make its opening
        model the one shown; a quit meanwhile waits for the read (a load may rewrite Claude
        Code's old switches, which is not left half done)."""
        assert self._whole is not None
        try:
            self._version, config = await anyio.to_thread.run_sync(
                loaded_with_version, self.workspace
            )
        except ConfigError:
            self._first = PluginModel(config_path=str(self.workspace.path))
        else:
            self._loaded = config
            gate = TrustGate(everything=self._trust)
            self._first = opening_model(config, str(self.workspace.path), gate)
        finally:
            self._whole.set()

    @property
    def bridge(self) -> Bridge | None:
        """The bridge once it is up."""
        return self._bridge

    async def run(self, first_frame: anyio.Event) -> None:
        """Wait for ``first_frame``, start the servers, import the SDK and run the bridge
        until ``close``; every server is stopped when this returns."""
        async with EarlyStarts() as early:
            with anyio.CancelScope() as self._loading:
                # The servers start once the frame is out: on a busy machine their boot
                # competes for the CPU the first frame needs, while it overlaps the SDK's load.
                await first_frame.wait()
                if self._whole is not None:
                    await self._read_whole()
                if self._loaded is not None:
                    if self._version is not None:  # the bridge reads the files once, not twice
                        early.keep_loaded(self._version, self._loaded)
                    await early.start(self._loaded, TrustGate(everything=self._trust))
                    if not self._connects(self._loaded):
                        await self._until_needed()
                # After the first frame, in a thread (about half a second of the SDK's
                # imports): the picker keeps answering keys meanwhile, and a quit does not wait
                # for it (the thread is left to finish; the process ends at once, ``cli.run``).
                module = await anyio.to_thread.run_sync(
                    importlib.import_module, "agentty_tui.bridge.bridge", abandon_on_cancel=True
                )
            if self._loading.cancelled_caught or self._closing.is_set():
                return  # quit before the bridge was up: the early starts are stopped here
            bridge: Bridge = module.Bridge(self.workspace, trust=self._trust, early=early)
            bridge.set_elicitation(self._elicitation, self._elicitation_complete)
            async with bridge, anyio.create_task_group() as watching:
                await watching.start(bridge.watch)
                self._bridge = bridge
                for waiting in self._listeners:
                    waiting.hand_to(bridge)
                self._ready.set()
                await self._closing.wait()
                watching.cancel_scope.cancel()

    def _connects(self, config: PluginConfig) -> bool:
        """Whether ``config`` has a server the bridge would connect (started or not here)."""
        gate = TrustGate(everything=self._trust)
        return bool(wanted_servers(config, {s.name: gate.gated(config, s) for s in config.servers}))

    async def _until_needed(self) -> None:
        """Wait, without the SDK, until an operation asks for the bridge or a file of the
        config changes from what was read (a file that moved during the read: at once)."""
        self.idle.set()
        while not self._needed.is_set():
            if self._version is None or self.workspace.version() != self._version:
                return
            with anyio.move_on_after(IDLE_LOOK):
                await self._needed.wait()

    def close(self) -> None:
        """Have ``run`` leave the bridge (its servers stopped) and return; one that is not up
        yet is not started."""
        self._closing.set()
        if self._whole is not None:
            self._whole.set()  # no more opening models: ``updates`` goes on to the bridge's
        if self._loading is not None:
            self._loading.cancel()

    async def _up(self) -> Bridge:
        """The bridge, once it is up (asked for: a ``run`` waiting with nothing to connect
        starts it now)."""
        self._needed.set()
        await self._ready.wait()
        assert self._bridge is not None
        return self._bridge

    # --- PluginSource ---------------------------------------------------------------

    @property
    def snapshot(self) -> PluginModel:
        """The bridge's current model; the config's opening model before it is up."""
        return self._first if self._bridge is None else self._bridge.snapshot

    async def updates(self) -> AsyncIterator[PluginModel]:
        """The opening model (that of the fast files, then, once read, the whole
        workspace's), then the bridge's snapshots."""
        if self._bridge is None:
            yield self._first
            if self._whole is not None and not self._whole.is_set():
                await self._whole.wait()
                if self._bridge is None and not self._closing.is_set():
                    yield self._first
        await self._ready.wait()  # following the snapshots is no need of the bridge
        bridge = self._bridge
        assert bridge is not None
        async for model in bridge.updates():
            yield model

    def add_targets(self) -> tuple[SourceRef, ...]:
        """The files a new server may go to (as the bridge says: the workspace's choice)."""
        return add_targets(self.workspace) if self._bridge is None else self._bridge.add_targets()

    def import_target(self) -> Path:
        """The file an import writes (as the bridge says)."""
        if self._bridge is None:
            return self.workspace.store(self.workspace.add_to).path
        return self._bridge.import_target()

    def config_files(self) -> tuple[Path, ...]:
        """Every file the config is read from (present or not)."""
        return self.workspace.watched_paths()

    def add_reload_listener(self, listener: Callable[[ReloadReport], None]) -> Callable[[], None]:
        """Hear the bridge's reloads of outside edits (from when it is up)."""
        if self._bridge is not None:
            return self._bridge.add_reload_listener(listener)
        waiting = _WaitingListener(listener)
        self._listeners.append(waiting)

        def remove() -> None:
            if waiting in self._listeners:
                self._listeners.remove(waiting)
            waiting.remove()

        return remove

    async def plugin_add(
        self, name: str, spec: ServerSpec, *, source: SourceRef | None = None
    ) -> PluginModel:
        """``Bridge.plugin_add``, once the bridge is up."""
        return await (await self._up()).plugin_add(name, spec, source=source)

    async def plugin_update(self, name: str, spec: ServerSpec) -> PluginModel:
        """``Bridge.plugin_update``, once the bridge is up."""
        return await (await self._up()).plugin_update(name, spec)

    async def plugin_remove(self, name: str, *, source: SourceRef | None = None) -> PluginModel:
        """``Bridge.plugin_remove``, once the bridge is up."""
        return await (await self._up()).plugin_remove(name, source=source)

    async def tool_set_enabled(
        self, server: str, tool: str, enabled: bool, *, host: str | None = None
    ) -> PluginModel:
        """``Bridge.tool_set_enabled``, once the bridge is up."""
        return await (await self._up()).tool_set_enabled(server, tool, enabled, host=host)

    async def tools_set_enabled(
        self, server: str, enabled: bool, *, host: str | None = None
    ) -> PluginModel:
        """``Bridge.tools_set_enabled``, once the bridge is up."""
        return await (await self._up()).tools_set_enabled(server, enabled, host=host)

    async def server_set_disabled(
        self, name: str, disabled: bool, *, host: str | None = None
    ) -> PluginModel:
        """``Bridge.server_set_disabled``, once the bridge is up."""
        return await (await self._up()).server_set_disabled(name, disabled, host=host)

    async def tool_set_pinned(self, server: str, tool: str, pinned: bool) -> PluginModel:
        """``Bridge.tool_set_pinned``, once the bridge is up."""
        return await (await self._up()).tool_set_pinned(server, tool, pinned)

    async def server_set_priority(self, name: str, priority: int) -> PluginModel:
        """``Bridge.server_set_priority``, once the bridge is up."""
        return await (await self._up()).server_set_priority(name, priority)

    async def reload(self) -> ReloadReport:
        """``Bridge.reload``, once the bridge is up."""
        return await (await self._up()).reload()

    async def restart(self, name: str) -> PluginModel:
        """``Bridge.restart``, once the bridge is up."""
        return await (await self._up()).restart(name)

    async def trust_config(self) -> PluginModel:
        """``Bridge.trust_config``, once the bridge is up."""
        return await (await self._up()).trust_config()

    async def trust_servers(
        self, names: Sequence[str] | None = None, *, shown: Mapping[str, str] | None = None
    ) -> PluginModel:
        """``Bridge.trust_servers``, once the bridge is up."""
        return await (await self._up()).trust_servers(names, shown=shown)

    async def import_plan(self, source: HostFile) -> PreparedImport:
        """``Bridge.import_plan``, once the bridge is up."""
        return await (await self._up()).import_plan(source)

    async def import_servers(self, prepared: PreparedImport) -> tuple[ImportResult, ReloadReport]:
        """``Bridge.import_servers``, once the bridge is up."""
        return await (await self._up()).import_servers(prepared)

    async def login(self, name: str, ui: LoginUI) -> PluginModel:
        """``Bridge.login``, once the bridge is up."""
        return await (await self._up()).login(name, ui)

    async def logout(self, name: str) -> PluginModel:
        """``Bridge.logout``, once the bridge is up."""
        return await (await self._up()).logout(name)

    async def call_tool(
        self,
        server: str,
        tool: str,
        arguments: dict[str, Any] | None = None,
        hooks: CallHooks | None = None,
    ) -> types.CallToolResult:
        """``Bridge.call_tool`` (with the call's ``hooks``), once the bridge is up."""
        return await (await self._up()).call_tool(server, tool, arguments, hooks)

    def set_elicitation(
        self,
        handler: ServerElicitation | None,
        completed: ServerElicitationComplete | None = None,
    ) -> None:
        """``Bridge.set_elicitation``: now if the bridge is up, else once it is."""
        self._elicitation, self._elicitation_complete = handler, completed
        if self._bridge is not None:
            self._bridge.set_elicitation(handler, completed)


class _WaitingListener:
    """A reload listener added before the bridge was up: handed to it once it is."""

    def __init__(self, listener: Callable[[ReloadReport], None]) -> None:
        self.listener = listener
        """What hears each reload."""
        self._remove: Callable[[], None] | None = None

    def hand_to(self, bridge: Bridge) -> None:
        """Add the listener to ``bridge``."""
        self._remove = bridge.add_reload_listener(self.listener)

    def remove(self) -> None:
        """Remove it from the bridge, if it was handed over."""
        if self._remove is not None:
            self._remove()
            self._remove = None
