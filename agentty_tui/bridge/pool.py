"""The sessions of one bridge: the live one of each server, and the retired ones still running.

A retired session (replaced by a reload, or removed) stays here until its process is gone, so
that shutting down stops it too and ``live_pids`` counts it; the live ones are what the bridge
builds its snapshots from.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import anyio.abc

from agentty_tui.bridge.logs import ServerLog
from agentty_tui.bridge.session import ServerSession
from agentty_tui.model import ServerConfig

__all__ = ["SessionPool"]


class SessionPool:
    """Starts, retires and stops the sessions of one config file's servers."""

    def __init__(self, log_dir: Path, config_path: Path, on_change: Callable[[], None]) -> None:
        """``on_change`` runs whenever a live session's state changes."""
        self.live: dict[str, ServerSession] = {}
        """The live session of each running server, by name."""
        self._retired: set[ServerSession] = set()
        self._group: anyio.abc.TaskGroup | None = None
        self._log_dir = log_dir
        self._config_path = config_path
        self._on_change = on_change

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
        session = ServerSession(config, log, lambda _state: self._changed(session))
        self.live[config.name] = session
        group.start_soon(self._run, session)
        return session

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
