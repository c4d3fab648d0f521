"""One host's log messages through the gateway: each server's, tagged with its name.

A server's ``notifications/message`` reaches the bridge (``bridge.server_logging``), which
hands it to every listener; an attached host gets the messages of the servers of its view
(``host.tools.served_lens``) at or above the level it asked for with ``logging/setLevel``
(all of them until it asks), with ``logger`` set to the server's name (``<server>.<logger>``
when the server named its own logger). The level a host asks for goes to the bridge
(``set_log_level``), which asks the servers for the most verbose level any host wants.

Only a 2025 handshake host is sent these messages on its connection. In the 2026-07-28 era a
log message rides the stream of the request it is for, opted into by that request's ``_meta``
(``io.modelcontextprotocol/logLevel``; deprecated, SEP-2577): a 2026-07-28 host's
``tools/call`` that opts in gets the messages a 2026-07-28 server sends for the call
(``call_log``: the call is made with the same opt-in, ``bridge/call_logging.py``), on the
call's stream, at or above its level (the SDK holds back the rest), ``logger`` tagged the
same way. A 2025-era server's messages belong to no request, so such a call gets none of them.
Messages wait in a bounded queue (``BACKLOG``); a host that does not keep up loses the newest,
counted in agentty's log, rather than slowing the servers.
"""

from __future__ import annotations

import contextlib
import logging
import warnings
from collections.abc import Callable
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.session import ServerSession
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from agentty_tui.bridge.call_logging import CallLog
from agentty_tui.bridge.server_logging import LEVELS, ServerLogMessage, at_least
from agentty_tui.gateway.host.offers import OfferSource
from agentty_tui.gateway.host.tools import served_lens

__all__ = ["BACKLOG", "HostLogging", "tagged_logger"]

_log = logging.getLogger(__name__)

BACKLOG = 256
"""Log messages that may wait for one host; more are dropped."""


def tagged_logger(message: ServerLogMessage) -> str:
    """The ``logger`` a host sees on ``message``: the server's name, then its own logger's."""
    return message.server if not message.logger else f"{message.server}.{message.logger}"


class HostLogging:
    """The log messages and the log level of one attached host."""

    def __init__(
        self, source: OfferSource, host: str | None, session: Callable[[], ServerSession | None]
    ) -> None:
        """``session``: the host's 2025 handshake connection, once it has one."""
        self._source = source
        self._host = host
        self._session = session
        self.level: types.LoggingLevel | None = None
        """The level the host asked for (``None``: it has not)."""
        self.dropped = 0
        """Messages dropped because the host did not keep up."""
        self._send, self._receive = anyio.create_memory_object_stream[ServerLogMessage](BACKLOG)

    def call_log(self, ctx: ServerRequestContext[Any, Any]) -> CallLog | None:
        """Where the log messages of the host's call ``ctx`` go: its own stream, when a
        2026-07-28 host's request opted in (``_meta`` ``io.modelcontextprotocol/logLevel``);
        ``None`` otherwise (a 2025 handshake host has ``logging/setLevel``)."""
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            return None
        level = (ctx.meta or {}).get(types.LOG_LEVEL_META_KEY)
        if level not in LEVELS:
            return None
        session = ctx.session

        async def send(message: ServerLogMessage) -> None:
            with warnings.catch_warnings():
                # Deprecated (SEP-2577), still the protocol; the warning is raised when the
                # coroutine is made, so only that is inside.
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                sending = session.send_log_message(
                    message.level, message.data, logger=tagged_logger(message)
                )
            # A host that went away meanwhile: its connection ends the serving anyway.
            with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                await sending

        return CallLog(level, send, owner=self)

    async def set_level(
        self, ctx: ServerRequestContext[Any, Any], params: types.SetLevelRequestParams
    ) -> types.EmptyResult:
        """``logging/setLevel``: the host's filter, and the bridge asks the servers for it."""
        self.level = params.level
        await self._source.set_log_level(self, params.level)
        return types.EmptyResult()

    def _heard(self, message: ServerLogMessage) -> None:
        try:
            self._send.send_nowait(message)
        except anyio.WouldBlock:
            self.dropped += 1
            if self.dropped == 1 or self.dropped % 1000 == 0:
                _log.warning("a host does not keep up with log messages: %d dropped", self.dropped)

    async def run(self) -> None:
        """Pass the servers' log messages on until cancelled; then ask for no level."""
        remove = self._source.add_log_listener(self._heard)
        try:
            async for message in self._receive:
                await self._pass(message)
        finally:
            remove()
            with anyio.CancelScope(shield=True):
                await self._source.set_log_level(self, None)

    async def _pass(self, message: ServerLogMessage) -> None:
        session = self._session()
        if session is None or not at_least(message.level, self.level):
            return
        if served_lens(self._source.snapshot, self._host).server(message.server) is None:
            return
        # A host that went away meanwhile: its connection ends the serving anyway.
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            await session.send_log_message(
                message.level, message.data, logger=tagged_logger(message)
            )
