"""The sessions of one bridge: the live one of each server, and the retired ones still running.

A retired session (replaced by a reload, or removed) stays here until its process is gone, so
that shutting down stops it too and ``live_pids`` counts it; the live ones are what the bridge
builds its snapshots from. What a new config does to them (which sessions it keeps, which
failed ones a reload retries) is decided here too, after the pool; the bridge acts on it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from pathlib import Path

import anyio.abc
import mcp_types as types
from mcp.client.session import ClientRequestContext

from agentty_tui.bridge.call_hooks import decline
from agentty_tui.bridge.early import EarlyStarts, wanted_servers
from agentty_tui.bridge.elicit import ServerElicitation, ServerElicitationComplete
from agentty_tui.bridge.inherited import Inherited
from agentty_tui.bridge.logs import ServerLog
from agentty_tui.bridge.offers import OfferListener
from agentty_tui.bridge.reload_report import ReloadReport
from agentty_tui.bridge.resource_subscriptions import ResourceUpdateListener
from agentty_tui.bridge.roots import RootsBoard, project_roots
from agentty_tui.bridge.server_logging import LogListener
from agentty_tui.bridge.session import ServerSession
from agentty_tui.model import PluginConfig, PluginModel, ServerConfig

__all__ = [
    "RETRY_INTERVAL",
    "Reconciled",
    "RetryPacer",
    "SessionPool",
    "keeps",
    "wait_closed_or_settled",
    "wanted_servers",
]


class SessionPool:
    """Starts, retires and stops the sessions of one config file's servers."""

    def __init__(
        self,
        log_dir: Path,
        config_path: Path,
        on_change: Callable[[], None],
        roots: RootsBoard | None = None,
        *,
        on_offer: OfferListener | None = None,
        on_log: LogListener | None = None,
        log_level: Callable[[], types.LoggingLevel | None] = lambda: None,
        on_resource_updated: ResourceUpdateListener | None = None,
        resource_uris: Callable[[str], tuple[str, ...]] = lambda _server: (),
        inherited: Inherited | None = None,
        early: EarlyStarts | None = None,
    ) -> None:
        """``on_change`` runs whenever a live session's state changes; ``roots``: what a
        server asking for roots outside a call gets (``None``: the project folder of
        ``config_path``'s parent); ``on_offer``, ``on_log``, ``log_level`` and
        ``on_resource_updated`` are handed to every session (``ServerSession``), and
        ``resource_uris(server)`` (the resources a session of ``server`` subscribes to when it
        connects); ``inherited``: what the servers start from
        (default: this process's environment and folder); ``early``: processes started before
        the SDK was imported, which the sessions take over."""
        self._inherited = inherited or Inherited()
        self._early = early
        self.live: dict[str, ServerSession] = {}
        """The live session of each running server, by name."""
        self._retired: set[ServerSession] = set()
        self._group: anyio.abc.TaskGroup | None = None
        self._log_dir = log_dir
        self._config_path = config_path
        self._on_change = on_change
        self._on_offer = on_offer
        self._on_log = on_log
        self._log_level = log_level
        self._on_resource_updated = on_resource_updated
        self._resource_uris = resource_uris
        self._roots = roots or RootsBoard(project_roots(config_path.parent))
        self.elicitation: ServerElicitation | None = None
        self.elicitation_complete: ServerElicitationComplete | None = None
        """Answers a server's form or URL request that no call's hooks answer (``None``: a
        decline); read at each request."""

    @property
    def running(self) -> bool:
        """Between ``open`` and ``close``."""
        return self._group is not None

    async def open(self) -> None:
        """Open the task group the sessions run in."""
        self._group = anyio.create_task_group()
        await self._group.__aenter__()

    async def close(self) -> None:
        """Stop every session and wait until each has ended (shielded: a cancelled caller
        still leaves no process behind)."""
        group, self._group = self._group, None
        if group is None:
            return
        for session in [*self.live.values(), *self._retired]:
            session.stop()
        # Shield the group itself (it must be exited in its own scope).
        group.cancel_scope.shield = True
        await group.__aexit__(None, None, None)

    def start(self, config: ServerConfig) -> ServerSession:
        """Start a session for ``config``; it becomes the server's live one."""
        assert self._group is not None, "the bridge is not running"
        group = self._group
        log = ServerLog(self._log_dir, config.name, self._config_path)
        # Every session offers forms and roots: a call's hooks answer them, else the pool's
        # ``elicitation`` (read when a request comes, so a handler set later applies to the
        # servers already running), else a form is declined (the server hears a decline, not
        # "not declared"); roots are the board's.
        name = config.name

        async def elicitation(
            context: ClientRequestContext, params: types.ElicitRequestParams
        ) -> types.ElicitResult | types.ErrorData:
            handler = self.elicitation
            if handler is None:
                return await decline(context, params)
            return await handler(name, context, params)

        async def completed(elicitation_id: str) -> None:
            # Read when the server says so: the handler of then is the one that accepted it,
            # or its successor (the picker restarted its queue), which says it as well.
            told = self.elicitation_complete
            if told is not None:
                await told(name, elicitation_id)

        session = ServerSession(
            config,
            log,
            lambda _state: self._changed(session),
            on_offer=self._on_offer,
            on_log=self._on_log,
            log_level=self._log_level,
            on_resource_updated=self._on_resource_updated,
            resource_uris=lambda: self._resource_uris(name),
            elicitation=elicitation,
            elicitation_complete=completed,
            roots=lambda: self._roots.answer(name),
            inherited=self._inherited,
            early=self._early,
        )
        self.live[config.name] = session
        group.start_soon(self._run, session)
        return session

    def announce_roots(self, names: Iterable[str]) -> None:
        """Tell the live sessions of ``names`` that their roots changed (beside the caller:
        a server slow to take the notification delays nothing)."""
        if self._group is None:
            return
        for name in names:
            session = self.live.get(name)
            if session is not None:
                self._group.start_soon(_tell_roots_changed, session)

    def release_early(self, sessions: Iterable[ServerSession]) -> None:
        """Stop the processes started early that none of ``sessions`` took, once each of them
        has settled (a session takes its process before it connects); sessions started later
        spawn their own."""
        early, self._early = self._early, None
        if early is None or self._group is None:
            return
        self._group.start_soon(_close_when_settled, early, tuple(sessions))

    def retire(self, session: ServerSession) -> None:
        """Stop ``session`` once no step holds it; it is no server's live one any more."""
        if self.live.get(session.name) is session:
            del self.live[session.name]
        if not session.closed.is_set():
            self._retired.add(session)
        session.retire()

    @property
    def live_pids(self) -> tuple[int, ...]:
        """Process ids of every server process still running, retired ones included."""
        sessions = [*self.live.values(), *self._retired]
        return tuple(pid for pid in (s.state.pid for s in sessions) if pid is not None)

    def connected(self) -> dict[str, ServerSession]:
        """The live sessions that are connected now, by server name."""
        return {name: s for name, s in self.live.items() if s.state.status == "connected"}

    def _changed(self, session: ServerSession) -> None:
        # A retired session's state is in no snapshot; only its closing matters (live_pids).
        if self.live.get(session.name) is session:
            self._on_change()

    async def _run(self, session: ServerSession) -> None:
        await session.run()
        self._retired.discard(session)


async def _tell_roots_changed(session: ServerSession) -> None:
    """``session.roots_changed()``; a connection that breaks meanwhile is the session's own
    business (it notices), never an error of the pool's task group."""
    try:
        await session.roots_changed()
    except Exception as exc:  # a server that went away must not stop the others' sessions
        session.log.note(f"telling it the roots changed failed: {type(exc).__name__}")


async def _close_when_settled(early: EarlyStarts, sessions: tuple[ServerSession, ...]) -> None:
    """``early.aclose()`` once every one of ``sessions`` has settled."""
    await wait_closed_or_settled(sessions)
    await early.aclose()


# --- The reconcile step's decisions: which sessions a new config keeps, and what it changed.
#
# ``Bridge._reconcile`` converges the running sessions on a config; what it decides is here, apart
# from how it starts and stops them. A session is kept when its server is still wanted and how it
# is reached (``ServerConfig.connection_key``) is unchanged; a reload also retries failed ones,
# at most once a minute each while their entries stay the same (``RetryPacer``): Claude Code
# rewrites its file after every prompt, and each rewrite is a reload.

RETRY_INTERVAL = 60.0
"""Seconds between two reloads' retries of one failed server whose entry did not change."""


def keeps(session: ServerSession, target: ServerConfig | None) -> bool:
    """Whether ``session`` serves ``target`` (the server's entry in the new config) as it is.

    A kept session keeps the entry it started with: what may differ (the tool filter) is
    applied above it, by the bridge; a different connection means a new session.
    """
    return target is not None and target.connection_key() == session.config.connection_key()


class RetryPacer:
    """Which failed servers a reload starts again: one whose entry did not change is retried
    at most once every ``RETRY_INTERVAL`` seconds (the first retry at once); a changed entry
    is a restart, never held back."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        """``clock``: seconds, monotonic."""
        self._clock = clock
        # name -> (the connection retried, when)
        self._last: dict[str, tuple[tuple[object, ...], float]] = {}

    def retry(self, session: ServerSession, target: ServerConfig | None) -> bool:
        """Whether a reload should start the failed ``session``'s server again with its
        unchanged entry ``target``; a yes is noted as a retry now."""
        if not keeps(session, target) or session.state.status != "failed":
            return False
        key, now = session.config.connection_key(), self._clock()
        last = self._last.get(session.name)
        if last is not None and last[0] == key and now - last[1] < RETRY_INTERVAL:
            return False
        self._last[session.name] = (key, now)
        return True

    def keep_only(self, names: Collection[str]) -> None:
        """Forget the servers not among ``names`` (those gone from the config)."""
        for name in [name for name in self._last if name not in names]:
            del self._last[name]


@dataclass(frozen=True, slots=True)
class Reconciled:
    """The sessions one reconciliation started, and the names of those it stopped."""

    sessions: tuple[ServerSession, ...]
    """The sessions it started, in config order."""
    stopped: tuple[str, ...]
    """The names of the servers whose sessions it stopped."""
    retried: tuple[str, ...] = ()
    """The names of the failed servers it started again, their entries unchanged."""

    def report(
        self, before: PluginConfig, after: PluginConfig, snapshot: PluginModel
    ) -> ReloadReport:
        """Name each change from the user's side: added to or removed from the file,
        restarted (a changed entry), retried (a failed one, unchanged), or started / stopped
        while staying in it."""
        old = {server.name for server in before.servers}
        new = {server.name for server in after.servers}
        started = [session.name for session in self.sessions]
        again = [name for name in started if name in self.stopped]
        return ReloadReport(
            snapshot,
            added=tuple(name for name in started if name not in old),
            removed=tuple(name for name in self.stopped if name not in new),
            restarted=tuple(name for name in again if name not in self.retried),
            retried=tuple(name for name in again if name in self.retried),
            started=tuple(name for name in started if name in old and name not in self.stopped),
            stopped=tuple(name for name in self.stopped if name in new and name not in started),
        )


async def wait_closed_or_settled(sessions: Iterable[ServerSession]) -> None:
    """Wait until each session has connected, failed or ended."""
    for session in sessions:
        await session.settled.wait()
