"""The reading side of the bridge: its snapshots, its sessions' diagnostics, and steps.

Nothing here changes plugin state: the snapshots come from the feed (``FeedReader``), the
diagnostics and the step runtimes from the session pool. ``Bridge`` adds the operations.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types

from agentty_tui.bridge.feed import FeedReader
from agentty_tui.bridge.pool import SessionPool
from agentty_tui.bridge.step import StepRuntime

__all__ = ["BridgeReader"]


class BridgeReader(FeedReader):
    """Snapshots, process diagnostics and step runtimes over a ``SessionPool``."""

    _pool: SessionPool

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

    def step(self) -> StepRuntime:
        """Pin the current snapshot and its connected sessions for one agent step."""
        return StepRuntime(self.snapshot, self._pool.connected())

    async def call_tool(
        self, server: str, tool: str, arguments: dict[str, Any] | None = None
    ) -> types.CallToolResult:
        """Call one tool through a step runtime captured for just this call."""
        with self.step() as step:
            return await step.call(server, tool, arguments)
