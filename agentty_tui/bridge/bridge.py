"""The bridge: owns one session per configured server and the authoritative ``PluginModel``.

Everything that changes plugin state goes through the four operations here, and every change
ends in one place, ``_publish``, which rebuilds the model from the config and the sessions'
live state and hands the new immutable snapshot to the feed.

- ``tool_set_enabled`` writes the config and re-derives; it never touches a session.
- ``plugin_add`` / ``plugin_remove`` write the config and reconcile: only the named server is
  started or stopped.
- ``reload`` re-reads the config and reconciles: added servers start, removed ones stop,
  servers whose connection settings changed are re-spawned, the rest keep their process.
  Reloads run one at a time; requests that arrive during one are served by a single next one.
- A config file others can change (``PluginConfig.insecure``) does not start its stdio servers
  (they are ``untrusted``) until ``trust_config`` is called, for this bridge's life only.

Besides the operations, the bridge is how its state is read (snapshots, process ids, step
runtimes, where a new server or an import may go), how what servers offer besides tools is
reached (their resources and prompts, the changes of those, their log messages and the level
asked of them, the resources subscribed to once for everybody: ``bridge/offers.py``,
``bridge/server_logging.py``, ``bridge/resource_subscriptions.py``), how a URL server logs in
and how another host's servers are imported (the bridge writes them, then reloads); the feed
that publishes its snapshots and the coalescer that serializes its reloads are at the end of
this module.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Generic, TypeVar

import anyio
import anyio.abc
import anyio.to_thread
import mcp_types as types

from agentty_tui.bridge.auth import LoginUI, login, login_spec, logout
from agentty_tui.bridge.call_hooks import CallHooks
from agentty_tui.bridge.early import EarlyStarts
from agentty_tui.bridge.elicit import ServerElicitation, ServerElicitationComplete
from agentty_tui.bridge.inherited import Inherited
from agentty_tui.bridge.live_reload import LiveReload
from agentty_tui.bridge.logs import default_log_dir
from agentty_tui.bridge.offers import OfferChange, OfferListener, ServerOffers
from agentty_tui.bridge.pool import (
    Reconciled,
    RetryPacer,
    SessionPool,
    keeps,
    wait_closed_or_settled,
    wanted_servers,
)
from agentty_tui.bridge.reaper import reap_orphans
from agentty_tui.bridge.reload_report import ReloadReport
from agentty_tui.bridge.resource_subscriptions import (
    ResourceSubscriptions,
    ResourceUpdate,
    ResourceUpdateListener,
)
from agentty_tui.bridge.roots import RootsBoard, project_roots
from agentty_tui.bridge.server_logging import LogLevels, LogListener, ServerLogMessage
from agentty_tui.bridge.session import ServerSession
from agentty_tui.bridge.states import (
    UNTRUSTED_ERROR,
    ServerStates,
    ShadowedStates,
    plugin_model,
)
from agentty_tui.bridge.step import StepRuntime
from agentty_tui.config import operations
from agentty_tui.config.announce import one_announcement
from agentty_tui.config.dialect import Dialect
from agentty_tui.config.discover import HostFile
from agentty_tui.config.engine import (
    ConfigEdit,
    RemoveServer,
    SetServerPriority,
    SetToolEnabled,
    SetToolPinned,
    UpdateServer,
)
from agentty_tui.config.entry_rules import EntryError
from agentty_tui.config.importing import ImportResult, PreparedImport, apply_import, prepare_import
from agentty_tui.config.store import ConfigStore
from agentty_tui.config.trust import TrustGate, entry_hash
from agentty_tui.config.workspace import Workspace, add_targets
from agentty_tui.errors import (
    ConfigError,
    EntryChangedError,
    OperationError,
    UnknownServerError,
)
from agentty_tui.model import (
    HttpSpec,
    PluginConfig,
    PluginModel,
    ServerConfig,
    ServerSpec,
    SourceRef,
)

__all__ = ["UNTRUSTED_ERROR", "Bridge", "Coalescer", "Listener", "Listeners", "SnapshotFeed"]

T = TypeVar("T")


class Bridge:
    """The live plugin state of one config file, and the only way to change it.

    Use as an async context manager: entering loads the config and starts every enabled
    server concurrently (it does not wait for them); leaving stops every server.
    """

    def __init__(
        self,
        config: Workspace | ConfigStore,
        *,
        log_dir: Path | str | None = None,
        trust: bool = False,
        inherited: Inherited | None = None,
        early: EarlyStarts | None = None,
        elicitation: ServerElicitation | None = None,
    ) -> None:
        """``config``: the workspace, or the store of one file (taken as the workspace of
        that one file, ``Workspace.of_store``); ``trust``: start the stdio servers of the
        config even if it is not trusted (as ``trust_config`` does later); ``inherited``:
        the environment and folder its servers start from (default: this process's, or
        ``early``'s); ``early``: the stdio servers already started for it before the SDK was
        imported (their owner until a session takes them: enter it around the bridge);
        ``elicitation``: answers a server's form or URL request that no call's hooks answer,
        told which server asks (``None``: such a request is declined; ``set_elicitation``)."""
        store = config if isinstance(config, Workspace) else Workspace.of_store(config)
        self.store = store
        """The config's files: a workspace (of one file for ``--config``)."""
        self.log_dir = Path(log_dir) if log_dir is not None else default_log_dir()
        self._config = PluginConfig()
        self._config_error: str | None = None
        self._trust = TrustGate(everything=trust)
        self._retries = RetryPacer()
        self._offer_listeners = Listeners[OfferChange]()
        self._log_listeners = Listeners[ServerLogMessage]()
        self._log_levels = LogLevels()
        self._update_listeners = Listeners[ResourceUpdate]()
        self._subscriptions = ResourceSubscriptions()
        self._subscribing: dict[str, anyio.Lock] = {}  # one subscription change a server at once
        self.roots = RootsBoard(project_roots(store.root))
        """The roots a server gets when it asks outside a call that answers them: what the
        bridge's clients offer, else the project root (``bridge/roots.py``)."""
        self._inherited = inherited or (early.inherited if early is not None else Inherited())
        self._pool = SessionPool(
            self.log_dir,
            store.path,
            self._publish,
            self.roots,
            on_offer=self._offer_listeners.call,
            on_log=self._log_listeners.call,
            log_level=lambda: self._log_levels.floor,
            on_resource_updated=self._update_listeners.call,
            resource_uris=self._subscriptions.uris,
            inherited=self._inherited,
            early=early,
        )
        self._early = early
        self._pool.elicitation = elicitation
        self._sessions = self._pool.live  # the live session of each server, by name
        # Each server's state in the last snapshot, with what it was built from.
        self._states = ServerStates()
        self._shadowed = ShadowedStates()
        # The files' fingerprint as of our last read or write: an outside edit changes it.
        self._seen_version: object = None
        self._feed = SnapshotFeed(PluginModel(config_path=str(store.path)))
        self._revision = 0
        self._config_lock = anyio.Lock()
        self._reloads = Coalescer(self._reload)
        self.live = LiveReload(store, lambda: self._seen_version, self.reload)
        """The live reload on outside edits (``watch`` runs it)."""

    @classmethod
    def on_file(
        cls,
        path: Path,
        *,
        dialect: Dialect | None = None,
        log_dir: Path | str | None = None,
        trust: bool = False,
    ) -> Bridge:
        """A bridge on one config file, in ``dialect`` (detected from the file when ``None``)."""
        return cls(Workspace.of_file(path, dialect), log_dir=log_dir, trust=trust)

    # --- life cycle -----------------------------------------------------------------

    async def __aenter__(self) -> Bridge:
        await self._pool.open()
        try:
            try:
                config = await anyio.to_thread.run_sync(self._load)
            except ConfigError as exc:
                self._config_error = str(exc)
                config = PluginConfig()
            started = self._reconcile(config, retry_failed=False)
            self._pool.release_early(started.sessions)
        except BaseException:
            await self.aclose()
            raise
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Stop every server (shielded: a cancelled caller still leaves no process behind)."""
        if not self._pool.running:
            return
        try:
            await self._pool.close()
        finally:
            self._feed.close()
            with anyio.CancelScope(shield=True):
                if self._early is not None:  # what no session took (its owner stops it too)
                    await self._early.aclose()
                # A server's descendant that was slow to die is ended here, and reaped.
                await reap_orphans()

    # --- reading --------------------------------------------------------------------

    @property
    def config(self) -> PluginConfig:
        """The config the current model was built from."""
        return self._config

    @property
    def snapshot(self) -> PluginModel:
        """The current model. Immutable: hold it as long as you like."""
        return self._feed.latest

    def updates(self) -> AsyncIterator[PluginModel]:
        """The current snapshot, then every newer one (a slow reader skips to the latest)."""
        return self._feed.updates()

    def add_listener(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` synchronously with every new snapshot; returns a remover."""
        return self._feed.add_listener(listener)

    async def wait_for(
        self, predicate: Callable[[PluginModel], bool], timeout: float | None = None
    ) -> PluginModel:
        """The first snapshot, now or later, that satisfies ``predicate``."""
        return await self._feed.wait_for(predicate, timeout)

    async def settled(self, timeout: float | None = None) -> PluginModel:
        """The first snapshot in which no server is still connecting."""
        return await self._feed.wait_for(lambda model: model.settled, timeout)

    def server_pid(self, name: str) -> int | None:
        """Process id of the live session of ``name`` (diagnostics and tests)."""
        session = self._pool.live.get(name)
        return session.state.pid if session is not None else None

    def session_relists(self, name: str) -> int:
        """How many list_changed re-lists the live session of ``name`` has done."""
        session = self._pool.live.get(name)
        return session.state.relists if session is not None else 0

    @property
    def live_pids(self) -> tuple[int, ...]:
        """Process ids of every server process still running, replaced ones included."""
        return self._pool.live_pids

    def add_targets(self) -> tuple[SourceRef, ...]:
        """The files a new server may go to (the workspace's choice, its default first; the
        one file of ``--config``)."""
        return add_targets(self.store)

    def import_target(self) -> Path:
        """The file an import writes: a workspace's own user file (the one file of
        ``--config``)."""
        return self._import_store().path

    def config_files(self) -> tuple[Path, ...]:
        """Every file the config is read from (present or not)."""
        return self.store.watched_paths()

    def add_reload_listener(self, listener: Callable[[ReloadReport], None]) -> Callable[[], None]:
        """Call ``listener`` with the report of every reload an outside edit of the config's
        files caused (``watch``); returns a function that removes it."""
        return self.live.add_listener(listener)

    def set_elicitation(
        self,
        handler: ServerElicitation | None,
        completed: ServerElicitationComplete | None = None,
    ) -> None:
        """From now on ``handler`` answers a server's form or URL request that no call's hooks
        answer, told which server asks (``None``: such a request is declined), and
        ``completed`` hears the server's completion of a URL request it accepted; it applies
        to the servers already running too."""
        self._pool.elicitation = handler
        self._pool.elicitation_complete = completed

    def step(self) -> StepRuntime:
        """Pin the current snapshot and its connected sessions for one agent step."""
        return StepRuntime(self.snapshot, self._pool.connected())

    async def call_tool(
        self,
        server: str,
        tool: str,
        arguments: dict[str, Any] | None = None,
        hooks: CallHooks | None = None,
    ) -> types.CallToolResult:
        """Call one tool through a step runtime captured for just this call; ``hooks``: where
        its progress goes and who answers what the server asks meanwhile
        (``bridge/call_hooks.py``). Cancelling the caller cancels the server's request."""
        with self.step() as step:
            return await step.call(server, tool, arguments, hooks)

    async def roots_changed(self, servers: Iterable[str] | None = None) -> None:
        """Tell the connected servers among ``servers`` (``None``: all) that the roots
        changed, so that they ask again (2025 handshake connections; ``roots_changed``)."""
        wanted = None if servers is None else set(servers)
        for name, session in self._pool.connected().items():
            if wanted is None or name in wanted:
                await session.roots_changed()

    # --- what servers offer besides tools: resources, prompts, log messages ---------

    def offers(self, server: str) -> ServerOffers | None:
        """What ``server`` declared besides tools; ``None`` while it is not connected."""
        session = self._pool.live.get(server)
        return session.offers if session is not None else None

    def _session(self, server: str) -> ServerSession:
        session = self._pool.live.get(server)
        if session is None:
            raise UnknownServerError(server)
        return session

    async def list_resources(self, server: str) -> tuple[types.Resource, ...]:
        """Every resource ``server`` lists now (``OperationError`` when it is not connected)."""
        return await self._session(server).list_resources()

    async def list_resource_templates(self, server: str) -> tuple[types.ResourceTemplate, ...]:
        """Every resource template ``server`` lists now."""
        return await self._session(server).list_resource_templates()

    async def read_resource(self, server: str, uri: str) -> types.ReadResourceResult:
        """Read the resource ``uri`` of ``server`` (the server's own refusal is its
        ``MCPError``, passed on)."""
        return await self._session(server).read_resource(uri)

    async def list_prompts(self, server: str) -> tuple[types.Prompt, ...]:
        """Every prompt ``server`` lists now."""
        return await self._session(server).list_prompts()

    async def get_prompt(
        self, server: str, name: str, arguments: dict[str, str] | None = None
    ) -> types.GetPromptResult:
        """Get the prompt ``name`` of ``server`` with ``arguments``."""
        return await self._session(server).get_prompt(name, arguments)

    def add_offer_listener(self, listener: OfferListener) -> Callable[[], None]:
        """Call ``listener`` on every change of what a server offers besides tools (its
        resources, its prompts, its connection); returns a remover."""
        return self._offer_listeners.add(listener)

    def add_log_listener(self, listener: LogListener) -> Callable[[], None]:
        """Call ``listener`` with every log message a server sends; returns a remover."""
        return self._log_listeners.add(listener)

    async def set_log_level(self, owner: object, level: types.LoggingLevel | None) -> None:
        """Record the log level ``owner`` wants (``None``: none any more); the servers are
        asked for the most verbose level any owner wants (``LogLevels``), now and whenever
        one connects."""
        if not self._log_levels.ask(owner, level):
            return
        floor = self._log_levels.floor
        async with anyio.create_task_group() as group:  # a slow server holds up no other
            for session in self._pool.connected().values():
                group.start_soon(session.set_log_level, floor)

    # Resource subscriptions: each (server, URI) is subscribed once, however many owners want
    # it (``bridge/resource_subscriptions.py``); a session that connects again subscribes to
    # what is held. One change a server at a time, so that an owner that comes while the
    # first one's subscription is under way does not count as subscribed before it is.

    def _subscription_lock(self, server: str) -> anyio.Lock:
        return self._subscribing.setdefault(server, anyio.Lock())

    async def subscribe_resource(self, owner: object, server: str, uri: str) -> None:
        """Subscribe ``owner`` to the resource ``uri`` of ``server``: the server is asked
        when ``owner`` is the first; an ``OperationError`` (or the server's own refusal) says
        why not, and then nothing is recorded."""
        session = self._session(server)
        async with self._subscription_lock(server):
            if not self._subscriptions.held(server, uri):
                if not self._subscriptions.room(server):
                    raise OperationError(
                        f"server {server} has too many resources subscribed to; "
                        "unsubscribe from some first"
                    )
                await session.subscribe_resource(uri)
            self._subscriptions.add(owner, server, uri)

    async def unsubscribe_resource(self, owner: object, server: str, uri: str) -> None:
        """``owner`` no longer wants the updates of ``uri`` of ``server``; the server is told
        when it was the last."""
        async with self._subscription_lock(server):
            if self._subscriptions.remove(owner, server, uri):
                await self._unsubscribed(server, uri)

    async def release_subscriptions(self, owner: object) -> None:
        """Drop every subscription of ``owner`` (it went away); shielded, so that a
        cancelled owner still leaves no server subscribed for nobody."""
        with anyio.CancelScope(shield=True):
            for server, uri in self._subscriptions.drop(owner):
                async with self._subscription_lock(server):
                    if not self._subscriptions.held(server, uri):
                        await self._unsubscribed(server, uri)

    async def _unsubscribed(self, server: str, uri: str) -> None:
        session = self._pool.live.get(server)
        if session is not None:
            await session.unsubscribe_resource(uri)

    def subscribed(self, server: str) -> tuple[str, ...]:
        """The resources of ``server`` somebody is subscribed to (so the server is)."""
        return self._subscriptions.uris(server)

    def add_resource_update_listener(self, listener: ResourceUpdateListener) -> Callable[[], None]:
        """Call ``listener`` on every update of a subscribed resource; returns a remover."""
        return self._update_listeners.add(listener)

    # --- the four operations --------------------------------------------------------

    async def plugin_add(
        self, name: str, spec: ServerSpec, *, source: SourceRef | None = None
    ) -> PluginModel:
        """Add a server to the config and start it (no other server is touched); in a
        workspace, into ``source`` (default: our user file). A name in use is refused, unless
        ``source`` is named and holds none of that name (an entry over another scope's)."""
        checked = self._config
        if source is not None:
            try:
                checked = await anyio.to_thread.run_sync(self.store.store(source).load)
            except ConfigError as exc:
                raise OperationError(str(exc)) from exc
        try:
            edit = operations.add_server(checked, name, spec)
        except EntryError as exc:
            raise OperationError(exc.message) from exc
        return await self._edit(edit, source)

    async def plugin_update(self, name: str, spec: ServerSpec) -> PluginModel:
        """Change how a server is reached (its command line, env and cwd, or its URL and
        headers): a config write, then that server alone is restarted."""
        if self._config.server(name) is None:
            raise UnknownServerError(name)
        return await self._edit(UpdateServer(server=name, spec=spec))

    async def plugin_remove(self, name: str, *, source: SourceRef | None = None) -> PluginModel:
        """Remove a server from the config and stop it; in a workspace, its entry in
        ``source`` (default: the file whose entry is in use, after which another file's
        entry of that name, if any, takes its place)."""
        if source is not None:
            # The file the user chose, or an error saying where the entry is: never the
            # entry of another file.
            self.store.holders_in(self._config, name, source=source)
            return await self._edit(RemoveServer(name=name), source)
        return await self._edit(operations.remove_server(self._config, name))

    async def tool_set_enabled(
        self, server: str, tool: str, enabled: bool, *, host: str | None = None
    ) -> PluginModel:
        """Turn one tool on or off: a config write and a re-derive, never a re-spawn; for
        every host holding the server, or ``host`` alone."""
        operations.configured(self._config, server)
        state = self.snapshot.server(server)
        if state is None:
            raise UnknownServerError(server)
        advertised = {t.bare for t in state.tools} if state.status == "connected" else None
        edit = operations.set_tool_enabled(self._config, server, tool, enabled, advertised)
        return await self._edit(edit, host=host)

    async def tools_set_enabled(
        self, server: str, enabled: bool, *, host: str | None = None
    ) -> PluginModel:
        """Turn every advertised tool of ``server`` on or off, in one config write a file
        (for ``host`` alone, when given: every tool is written, as that host's may differ)."""
        state = self.snapshot.server(server)
        if state is None:
            raise UnknownServerError(server)
        edits = [
            SetToolEnabled(server=server, tool=tool.bare, enabled=enabled)
            for tool in state.tools
            if host is not None or tool.enabled != enabled
        ]
        return await self._edit(edits, host=host) if edits else self.snapshot

    async def server_set_disabled(
        self, name: str, disabled: bool, *, host: str | None = None
    ) -> PluginModel:
        """Park a server in the config (stopping it) or bring it back; for every host holding
        it, or ``host`` alone."""
        edit = operations.set_server_disabled(self._config, name, disabled)
        return await self._edit(edit, host=host)

    async def tool_set_pinned(self, server: str, tool: str, pinned: bool) -> PluginModel:
        """Pin one tool or unpin it: a config write (``tools.pin``) and a re-derive."""
        operations.configured(self._config, server)
        return await self._edit(SetToolPinned(server=server, tool=tool, pinned=pinned))

    async def server_set_priority(self, name: str, priority: int) -> PluginModel:
        """Set a server's priority (0 drops the key): a config write, never a re-spawn."""
        operations.configured(self._config, name)
        return await self._edit(SetServerPriority(server=name, priority=priority))

    async def restart(self, name: str) -> PluginModel:
        """Re-spawn one server (for a server that failed, or to pick up a new binary).

        Returns at once, with the server ``connecting``; an entry the config cannot start (an
        invalid one, or one marked disabled) is an ``OperationError`` that says why.
        """
        config = self._config.server(name)
        if config is None:
            raise UnknownServerError(name)
        if config.problem is not None:
            raise OperationError(f"server {name!r} cannot start: {config.problem}")
        if config.disabled:
            raise OperationError(f"server {name!r} is disabled in the config")
        self._trust.refuse_untrusted(self._config, config, "is not started")
        async with self._config_lock:
            old = self._sessions.get(name)
            if old is not None:
                self._retire(old)
            self._pool.start(config)
            self._publish()
        return self.snapshot

    async def trust_config(self) -> PluginModel:
        """Trust the config file for the rest of this bridge's life (not on disk): the stdio
        servers it held back start now, and those of later reloads start as usual."""
        async with self._config_lock:
            self._trust.everything = True
            self._reconcile(self._config, retry_failed=False)
        return self.snapshot

    async def trust_servers(
        self, names: Sequence[str] | None = None, *, shown: Mapping[str, str] | None = None
    ) -> PluginModel:
        """Trust the waiting servers ``names`` (or all of them) of a workspace: a project
        file's are remembered on disk (they start in later runs too, for as long as their
        entries stay the same); those of a file others can write, for this run only. One file
        (``--config``) is trusted as a whole: ``trust_config``.

        ``shown``: the entries as the user saw them when asked, name -> ``entry_hash``. The
        files are read afresh, and an entry that is no longer the one shown (its file was
        edited while the user read the question) is not trusted: the bridge converges on the
        files as they are and raises ``EntryChangedError`` naming it, so that the user can be
        shown the entry as it is now and asked again.
        """
        if self.store.single:  # one file is trusted as a whole, for this run
            return await self.trust_config()
        workspace = self.store
        async with self._config_lock:
            config = self._config
            if shown is not None:
                config = await anyio.to_thread.run_sync(self._load)
                unchanged = [n for n in names or shown if _is_shown(config, n, shown)]
                names = unchanged
            if names is None or names:
                await anyio.to_thread.run_sync(workspace.trust, config, names)
                self._trust.trust_entries(config, names)
            config = await anyio.to_thread.run_sync(self._load)
            self._reconcile(config, retry_failed=False)
        # Checked against the files as read after the trust: an edit that landed between the
        # check and the trust was not trusted (the trust is by hash), and is said too.
        changed = [n for n in shown or () if not _is_shown(config, n, shown or {})]
        if changed:
            raise EntryChangedError(changed)
        return self.snapshot

    # --- imports (another host's servers) --------------------------------------------

    async def import_plan(self, source: HostFile) -> PreparedImport:
        """What importing the host file ``source`` into ``import_target`` would do (a
        project's file's servers come disabled); nothing is written. ``ConfigError`` when a
        file is refused."""
        store = self._import_store()
        return await anyio.to_thread.run_sync(prepare_import, source, store, self.store.pins)

    async def import_servers(self, prepared: PreparedImport) -> tuple[ImportResult, ReloadReport]:
        """Write ``prepared``'s additions (a name taken meanwhile is refused, in the result),
        then reload: the servers added start, and the snapshots show them. Returns what was
        written and the reload's report."""
        store = self._import_store()
        if store.path != prepared.target:
            raise OperationError(f"the import was planned for {prepared.target}, not this config")
        async with self._config_lock:
            result = await anyio.to_thread.run_sync(self._write_import, prepared, store)
        return result, await self.reload()

    def _import_store(self) -> ConfigStore:
        """The file an import writes: a workspace's own user file (the one file of
        ``--config``)."""
        return self.store.store(self.store.add_to)

    def _write_import(self, prepared: PreparedImport, store: ConfigStore) -> ImportResult:
        # Announced to the running bridges once our own fingerprint is noted (``_write``).
        with one_announcement():
            # The imported servers' pins go where the workspace keeps those of its file.
            workspace = self.store
            place = workspace.pin_place(workspace.add_to)
            result = apply_import(prepared.plan, store, pins=workspace.pins, place=place)
            # Our own write: the live reload leaves it to the reload that follows.
            self._seen_version = self.store.version()
        return result

    # --- logins (URL servers) -----------------------------------------------------

    async def login(self, name: str, ui: LoginUI) -> PluginModel:
        """Log in to the URL server ``name`` through ``ui``, then reconnect it alone.

        ``ui`` shows the authorization URL (also opened in the browser) and may take a pasted
        redirect; a login that is denied, times out or is refused raises ``LoginError``. A
        server that waits for trust is an ``OperationError``, before any request is sent.
        """
        spec, request_timeout = self.login_target(name)
        await login(spec, ui, request_timeout=request_timeout)
        return await self.restart(name)

    def login_target(self, name: str) -> tuple[HttpSpec, float]:
        """What a login to the URL server ``name`` goes to: its spec, expanded as its session
        expands it (from the environment its servers inherit), and its request timeout.

        A server that waits for trust is an ``OperationError``, as is one with no login.
        """
        config = self._config.server(name)
        if config is None:
            raise UnknownServerError(name)
        self._trust.refuse_untrusted(self._config, config, "cannot log in before it is trusted")
        return login_spec(config, self._inherited.environ), config.request_timeout

    async def logout(self, name: str) -> PluginModel:
        """Forget the URL server ``name``'s tokens and client registration; reconnect it."""
        config = self._config.server(name)
        if config is None:
            raise UnknownServerError(name)
        logout(login_spec(config, self._inherited.environ))
        return await self.restart(name)

    # --- reloads ---------------------------------------------------------------------

    async def reload(self) -> ReloadReport:
        """Re-read the config and converge on it; returns once the servers it started settle.

        Serialized and coalesced: a request that arrives while a reload runs is served by
        the one next reload, however many such requests there are; each gets that reload's
        report. A config that does not load changes nothing: the report says why.
        """
        return await self._reloads.request()

    async def watch(
        self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """Reload on every outside edit of the config's files until cancelled (run it in a
        task beside the bridge); ``task_status`` is told once the files are watched."""
        await self.live.run(task_status=task_status)

    @property
    def reload_runs(self) -> int:
        """How many reloads actually ran (coalesced requests do not count)."""
        return self._reloads.runs

    async def _reload(self) -> ReloadReport:
        async with self._config_lock:
            try:
                config = await anyio.to_thread.run_sync(self._load)
            except ConfigError as exc:
                self._config_error = str(exc)
                self._publish()
                return ReloadReport(self.snapshot, error=str(exc))
            self._config_error = None
            before = self._config
            changes = self._reconcile(config, retry_failed=True)
        await wait_closed_or_settled(changes.sessions)
        return changes.report(before, config, self.snapshot)

    # --- internals ------------------------------------------------------------------

    def _load(self) -> PluginConfig:
        """Load the config (in a worker thread), noting the files' fingerprint first: an
        outside edit that lands meanwhile still differs from it, and is reloaded."""
        self._seen_version = self.store.version()
        if self._early is not None:
            # The config the early starts were made from, when no file moved since.
            kept = self._early.take_loaded(self._seen_version)
            if kept is not None:
                return kept
        return self.store.load()

    def _write(
        self,
        edit: ConfigEdit | Sequence[ConfigEdit],
        source: SourceRef | None,
        host: str | None = None,
    ) -> PluginConfig:
        # Other bridges hear of the write at once (``config.announce``); our own listener
        # hears of it after the files' new fingerprint is noted, and leaves it alone.
        with one_announcement():
            config = self.store.apply(edit, source=source, host=host)
            self._seen_version = self.store.version()
        return config

    async def _edit(
        self,
        edit: ConfigEdit | Sequence[ConfigEdit],
        source: SourceRef | None = None,
        *,
        host: str | None = None,
    ) -> PluginModel:
        async with self._config_lock:
            try:
                config = await anyio.to_thread.run_sync(self._write, edit, source, host)
            except ConfigError as exc:
                raise OperationError(str(exc)) from exc
            self._config_error = None
            self._reconcile(config, retry_failed=False)
        return self.snapshot

    def _reconcile(self, config: PluginConfig, *, retry_failed: bool) -> Reconciled:
        """Converge the sessions on ``config``; returns what it started and stopped."""
        self._config = config
        # A change of a server's roots alone keeps its process: it is told, and asks again.
        roots_changed = self.roots.configure(config)
        wanted = wanted_servers(config, {s.name: self._gated(s) for s in config.servers})
        stopped: list[str] = []
        retried: list[str] = []
        for name in list(self._sessions):
            session, target = self._sessions[name], wanted.get(name)
            retry = retry_failed and self._retries.retry(session, target)
            if retry or not keeps(session, target):
                self._retire(session)
                stopped.append(name)
                if retry:
                    retried.append(name)
        self._retries.keep_only({server.name for server in config.servers})
        started = [
            self._pool.start(server)
            for name, server in wanted.items()
            if name not in self._sessions
        ]
        fresh = {session.name for session in started}
        self._pool.announce_roots(name for name in roots_changed if name not in fresh)
        self._publish()
        return Reconciled(tuple(started), tuple(stopped), tuple(retried))

    def _gated(self, server: ServerConfig) -> bool:
        """Whether ``server`` waits for the user to trust the config file."""
        return self._trust.gated(self._config, server)

    def _retire(self, session: ServerSession) -> None:
        self._pool.retire(session)

    def _publish(self) -> None:
        """Rebuild the model from config + live sessions and publish it."""
        servers = self._states.build(self._config, self._sessions, self._gated)
        shadowed = self._shadowed.build(self._config.shadowed)
        self._revision += 1
        snapshot = plugin_model(
            self._config,
            servers,
            shadowed,
            config_path=str(self.store.path),
            config_error=self._config_error,
            trust=self._trust,
            revision=self._revision,
        )
        self._feed.publish(snapshot)


def _is_shown(config: PluginConfig, name: str, shown: Mapping[str, str]) -> bool:
    """Whether ``config``'s entry ``name`` is the one the user was shown (``entry_hash``)."""
    server = config.server(name)
    return server is not None and name in shown and entry_hash(server) == shown[name]


# --- Publication of model snapshots to any number of readers.
#
# Readers always get the latest snapshot: a slow reader skips the ones it missed instead of
# queueing them (a snapshot is complete, so nothing is lost by skipping). Publishing never
# blocks and never waits for a reader.

Listener = Callable[[PluginModel], None]
"""A synchronous callback run on every publish, in the publisher's task."""


class SnapshotFeed:
    """Holds the current ``PluginModel`` and wakes whoever waits for the next one."""

    def __init__(self, first: PluginModel) -> None:
        self._latest = first
        self._changed = anyio.Event()
        self._listeners: list[Listener] = []
        self._closed = False

    @property
    def latest(self) -> PluginModel:
        """The snapshot published last."""
        return self._latest

    def publish(self, snapshot: PluginModel) -> None:
        """Make ``snapshot`` current and wake every reader."""
        self._latest = snapshot
        changed, self._changed = self._changed, anyio.Event()
        changed.set()
        for listener in tuple(self._listeners):
            listener(snapshot)

    def add_listener(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` on every publish; returns a function that removes it."""
        self._listeners.append(listener)

        def remove() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return remove

    def close(self) -> None:
        """End every ``updates`` iteration."""
        self._closed = True
        self._changed.set()

    async def updates(self) -> AsyncIterator[PluginModel]:
        """The current snapshot at once, then each newer one as it is published."""
        seen: PluginModel | None = None
        while not self._closed:
            latest = self._latest
            if latest is not seen:
                seen = latest
                yield latest
                continue
            await self._changed.wait()

    async def wait_for(
        self, predicate: Callable[[PluginModel], bool], timeout: float | None = None
    ) -> PluginModel:
        """The first snapshot, current or future, for which ``predicate`` holds."""
        with anyio.fail_after(timeout):
            while not predicate(self._latest):
                if self._closed:
                    raise anyio.ClosedResourceError("the bridge is closed")
                await self._changed.wait()
        return self._latest


class Listeners(Generic[T]):
    """Synchronous callbacks of one kind of event, each called in turn with every event."""

    def __init__(self) -> None:
        self._listeners: list[Callable[[T], None]] = []

    def add(self, listener: Callable[[T], None]) -> Callable[[], None]:
        """Call ``listener`` on every event; returns a function that removes it."""
        self._listeners.append(listener)

        def remove() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return remove

    def call(self, event: T) -> None:
        """Hand ``event`` to every listener."""
        for listener in tuple(self._listeners):
            listener(event)


# --- Serialized, coalesced runs of one job (the bridge's reload).
#
# One run at a time; every request that arrives while a run is under way is served by the one
# next run, however many such requests there are, and each gets that run's result.


class Coalescer(Generic[T]):
    """Runs ``job`` for requests, one run at a time, a run serving every request before it."""

    def __init__(self, job: Callable[[], Awaitable[T]]) -> None:
        self.runs = 0
        """How many runs actually happened (coalesced requests do not count)."""
        self._job = job
        self._lock = anyio.Lock()
        self._requested = 0
        self._done = 0
        self._last: T | None = None

    async def request(self) -> T:
        """The result of the first run that starts after this request (a run under way when
        it arrives is waited for, then one more serves it and everything queued behind it)."""
        self._requested += 1
        ticket = self._requested
        async with self._lock:
            if self._done >= ticket and self._last is not None:
                return self._last
            target = self._requested
            try:
                self.runs += 1
                self._last = await self._job()
            finally:
                self._done = target
        return self._last
