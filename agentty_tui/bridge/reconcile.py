"""The reconcile step's decisions: which sessions a new config keeps, and what it changed.

``Bridge._reconcile`` converges the running sessions on a config; what it decides is here, apart
from how it starts and stops them. A session is kept when its server is still wanted and how it
is reached (``ServerConfig.connection_key``) is unchanged; a reload also retries failed ones,
at most once a minute each while their entries stay the same (``RetryPacer``): Claude Code
rewrites its file after every prompt, and each rewrite is a reload.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass

from agentty_tui.bridge.reload_report import ReloadReport
from agentty_tui.bridge.session import ServerSession
from agentty_tui.model import PluginConfig, PluginModel, ServerConfig

__all__ = [
    "RETRY_INTERVAL",
    "Reconciled",
    "RetryPacer",
    "keeps",
    "wait_closed_or_settled",
    "wanted_servers",
]

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


def wanted_servers(config: PluginConfig, gated: Mapping[str, bool]) -> dict[str, ServerConfig]:
    """The servers of ``config`` that should run: enabled, valid, and not held back."""
    return {
        server.name: server
        for server in config.servers
        if not server.disabled and server.problem is None and not gated[server.name]
    }


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
