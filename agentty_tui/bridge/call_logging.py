"""A call's own log messages: the 2026-07-28 era's per-request opt-in (SEP-2577).

In the 2026-07-28 era there is no ``logging/setLevel``: a server sends
``notifications/message`` only for a request whose ``_meta`` carries
``io.modelcontextprotocol/logLevel``, at or above that level, on that request's own stream
(deprecated with the rest of logging, but in the protocol). The mcp SDK (2.3.0) carries both
ends: as a server, ``ServerSession.send_log_message`` sends for a request only at the levels
its ``_meta`` opted into (``mcp.server.connection.allowed_log_levels``) and request-scoped;
as a client, ``Client.call_tool(meta=...)`` sends one request's opt-in (``Client(log_level=)``
would stamp every request). What it does not say is which request a message is for: the
client's ``logging_callback`` gets the message's params alone (on stdio a notification's
related request is transport metadata, never on the wire).

So a caller that wants a call's log messages sets a ``CallLog`` around the call
(``logging_to``: a context variable, read by ``ServerSession.call_tool`` in the calling task,
and by a task started from it); the session sends the opt-in with the call to a 2026-07-28
server and keeps the call in its ``CallLogs`` while it runs. A message of that server is the
call's when one call in flight opted in, or when every such call is one owner's (the newest
gets it); with calls of two owners in flight it cannot be told whose it is, and is not
passed to either (it is counted and said in the server's log). A message is passed on
(``CallLogs.deliver``) in the SDK's notification task, which starts before the call's result
is taken; the call waits for what is still being passed on (``CallLogs.drained``) before it
returns, so a call's messages reach its caller before its result. A caller slower than
``CALL_LOG_TIMEOUT`` loses a message rather than holding up the server's connection. A
2025-era server's messages are not tied to any request: they go to the bridge's log
listeners, as always.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import anyio
import mcp_types as types

from agentty_tui.bridge.server_logging import ServerLogMessage

__all__ = ["CALL_LOG_TIMEOUT", "CallLog", "CallLogs", "call_log", "logging_to"]

CALL_LOG_TIMEOUT = 1.0
"""Seconds a caller may take to take one of its call's log messages before it is dropped (and
that a call waits, at most, for its messages still being passed on)."""


@dataclass(frozen=True, slots=True, eq=False)
class CallLog:
    """Where one call's log messages go, and from which level."""

    level: types.LoggingLevel
    """The least severe level the caller opted into."""
    send: Callable[[ServerLogMessage], Awaitable[None]]
    """Passes one message on to the caller."""
    owner: object
    """Who made the call (one attached host): calls of one owner may share messages."""


_CURRENT: ContextVar[CallLog | None] = ContextVar("agentty_call_log", default=None)


@contextmanager
def logging_to(log: CallLog | None) -> Iterator[None]:
    """The calls made within (in this task, or a task started from it) send their log
    messages to ``log`` (``None``: they opt into none)."""
    token = _CURRENT.set(log)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def call_log() -> CallLog | None:
    """The ``CallLog`` of the call being made here, if its caller opted in."""
    return _CURRENT.get()


class CallLogs:
    """The calls in flight on one session that opted into their log messages."""

    def __init__(self) -> None:
        self._calls: list[CallLog] = []
        self._sending: dict[int, int] = {}  # messages being passed on, by id of their CallLog
        self._sent = anyio.Event()
        self.unattributed = 0
        """Messages that could not be told to one caller (calls of two owners in flight)."""

    @contextmanager
    def calling(self, log: CallLog | None) -> Iterator[None]:
        """``log``'s call is in flight within (nothing for ``None``)."""
        if log is None:
            yield
            return
        self._calls.append(log)
        try:
            yield
        finally:
            self._calls.remove(log)

    @property
    def open(self) -> bool:
        """Whether any call in flight opted in."""
        return bool(self._calls)

    def target(self) -> CallLog | None:
        """Whose a message that arrives now is: the call in flight that opted in, or the
        newest of one owner's; ``None`` when none opted in or two owners' calls did."""
        if not self._calls:
            return None
        newest = self._calls[-1]
        if all(log.owner is newest.owner for log in self._calls):
            return newest
        return None

    async def deliver(self, log: CallLog, message: ServerLogMessage) -> None:
        """Pass ``message`` to ``log``'s caller, at most ``CALL_LOG_TIMEOUT`` seconds."""
        key = id(log)
        self._sending[key] = self._sending.get(key, 0) + 1  # before any wait: see ``drained``
        try:
            with anyio.move_on_after(CALL_LOG_TIMEOUT):
                await log.send(message)
        finally:
            self._sending[key] -= 1
            if not self._sending[key]:
                del self._sending[key]
            sent, self._sent = self._sent, anyio.Event()
            sent.set()

    async def drained(self, log: CallLog) -> None:
        """Until no message of ``log``'s call is being passed on (at most
        ``CALL_LOG_TIMEOUT`` seconds)."""
        with anyio.move_on_after(CALL_LOG_TIMEOUT):
            while id(log) in self._sending:
                await self._sent.wait()
