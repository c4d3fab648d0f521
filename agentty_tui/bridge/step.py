"""Step runtimes: a model snapshot pinned together with the sessions it was built from.

An agent step advertises tools and then calls them; a reload may replace a server in between.
Capturing a step takes a lease on every connected session (no RPC, no restart), so the step
keeps calling through the very connection whose tools it advertised. A session the bridge has
replaced stays open until the last step holding it is closed.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType, TracebackType
from typing import Any

import mcp_types as types

from agentty_tui.bridge.call_hooks import CallHooks
from agentty_tui.bridge.session import ServerSession
from agentty_tui.errors import OperationError, UnknownServerError, UnknownToolError
from agentty_tui.model import PluginModel

__all__ = ["StepRuntime"]


class StepRuntime:
    """What one agent step may use: a snapshot, and a lease on each connected session.

    Use as a context manager (sync or async), or call ``close`` when the step ends.
    """

    def __init__(self, snapshot: PluginModel, sessions: Mapping[str, ServerSession]) -> None:
        self.snapshot = snapshot
        """The model the step's tools were advertised from."""
        self._sessions = MappingProxyType(dict(sessions))
        self._closed = False
        for session in self._sessions.values():
            session.acquire()

    @property
    def server_names(self) -> tuple[str, ...]:
        """The servers whose sessions this step holds."""
        return tuple(self._sessions)

    def session_pid(self, server: str) -> int | None:
        """Process id behind ``server`` for this step (diagnostics)."""
        session = self._sessions.get(server)
        return session.state.pid if session is not None else None

    async def call(
        self,
        server: str,
        tool: str,
        arguments: dict[str, Any] | None = None,
        hooks: CallHooks | None = None,
    ) -> types.CallToolResult:
        """Call ``tool`` of ``server`` through the session this step captured (``hooks``: the
        call's progress and answers, ``ServerSession.call_tool``)."""
        if self._closed:
            raise OperationError("this step has ended; capture a new one")
        session = self._sessions.get(server)
        if session is None:
            state = self.snapshot.server(server)
            if state is None:
                raise UnknownServerError(server)
            why = f": {state.error}" if state.error else ""
            raise OperationError(f"server {server!r} is not connected ({state.status}{why})")
        state = self.snapshot.server(server)
        if state is not None and state.tool(tool) is None:
            raise UnknownToolError(server, tool)
        return await session.call_tool(tool, arguments, hooks)

    def close(self) -> None:
        """End the step: give the leases back (a replaced session may now stop)."""
        if self._closed:
            return
        self._closed = True
        for session in self._sessions.values():
            session.release()

    def __enter__(self) -> StepRuntime:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    async def __aenter__(self) -> StepRuntime:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
