"""The reconcile step's decisions: which sessions a new config keeps, and what it changed.

``Bridge._reconcile`` converges the running sessions on a config; what it decides is here, apart
from how it starts and stops them. A session is kept when its server is still wanted and how it
is reached (``ServerConfig.connection_key``) is unchanged; a reload also retries failed ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from agentty_tui.bridge.reload_report import ReloadReport
from agentty_tui.bridge.session import ServerSession
from agentty_tui.model import PluginConfig, PluginModel, ServerConfig

__all__ = ["Reconciled", "keeps", "wait_closed_or_settled", "wanted_servers"]


def keeps(session: ServerSession, target: ServerConfig | None, *, retry_failed: bool) -> bool:
    """Whether ``session`` serves ``target`` (the server's entry in the new config) as it is.

    A kept session keeps the entry it started with: what may differ (the tool filter) is
    applied above it, by the bridge; a different connection means a new session.
    """
    return (
        target is not None
        and target.connection_key() == session.config.connection_key()
        and not (retry_failed and session.state.status == "failed")
    )


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

    def report(
        self, before: PluginConfig, after: PluginConfig, snapshot: PluginModel
    ) -> ReloadReport:
        """Name each change from the user's side: added to or removed from the file,
        restarted, or started / stopped while staying in it."""
        old = {server.name for server in before.servers}
        new = {server.name for server in after.servers}
        started = [session.name for session in self.sessions]
        return ReloadReport(
            snapshot,
            added=tuple(name for name in started if name not in old),
            removed=tuple(name for name in self.stopped if name not in new),
            restarted=tuple(name for name in started if name in self.stopped),
            started=tuple(name for name in started if name in old and name not in self.stopped),
            stopped=tuple(name for name in self.stopped if name in new and name not in started),
        )


async def wait_closed_or_settled(sessions: Iterable[ServerSession]) -> None:
    """Wait until each session has connected, failed or ended."""
    for session in sessions:
        await session.settled.wait()
