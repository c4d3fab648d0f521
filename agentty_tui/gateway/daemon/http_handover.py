"""The gateway daemon's side of ``serve --http --shared``: a listener handed over, served.

``serve --http --shared`` binds its port on 127.0.0.1 itself (so a taken port is said before
anything else, by the process the user ran), attaches to the daemon with an ``Attachment``
that carries its bearer token, and after the daemon's ``ok`` sends one byte (``HANDOVER``)
with the listening socket as a descriptor (``SCM_RIGHTS`` over the user's uid-checked socket).
The daemon checks what it was handed (``http.loopback.loopback_listener``), serves the gateway
on it (``http.endpoint.http_gateway``: uvicorn in the daemon itself, no relay between host and
bridge)
over the bridge of the attachment's workspace, the bridge its stdio hosts and the picker
share, says ``listening``, and serves until the attachment's connection ends: then the
sessions end and its copy of the listener is closed. The connection counts as an attachment
for the daemon's idle exit while it is open.

The ``serve`` keeps its own copy of the socket: a daemon that dies leaves the port bound (the
kernel queues new connections) and the next daemon is handed the same socket, so the hosts
find the same port and token. After ``listening`` the daemon says each 2025-era session it
opens and ends for good, a line each (``http.kept_sessions``), which the ``serve`` keeps and
hands the next daemon in its attachment: that one takes the sessions up (``http.endpoint``).
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
from typing import Any

import anyio
import anyio.abc
from anyio.streams.memory import MemoryObjectSendStream

from agentty_tui.bridge import Bridge
from agentty_tui.errors import AgenttyError
from agentty_tui.gateway.attachment import Attachment
from agentty_tui.gateway.host.requests import AskElsewhere
from agentty_tui.gateway.http.endpoint import http_gateway, session_idle
from agentty_tui.gateway.http.kept_sessions import MAX_KEPT, ended_line, kept_sessions, opened_line
from agentty_tui.gateway.http.loopback import HANDOVER, LISTENING, loopback_listener

__all__ = ["HANDOVER_TIMEOUT", "serve_handed_listener"]

_log = logging.getLogger(__name__)

HANDOVER_TIMEOUT = 10.0
"""Seconds the daemon waits for the socket after its ``ok``."""


async def serve_handed_listener(
    stream: anyio.abc.SocketStream,
    bridge: Bridge,
    attachment: Attachment,
    elsewhere: AskElsewhere | None = None,
) -> None:
    """Take the listening socket ``stream`` brings and serve the gateway on it over
    ``bridge`` until ``stream`` ends; a socket that is not one, or none, is refused
    (``error <why>``) and nothing is served. ``elsewhere``: who is asked a server's form or
    page during a call of a host that cannot answer it (the workspace's attached picker)."""
    token = attachment.http_token
    try:
        if token is None or not isinstance(stream, anyio.abc.UNIXSocketStream):
            raise AgenttyError("an HTTP listener is handed over a Unix socket, with its token")
        listener = await _handed(stream)
    except AgenttyError as error:
        with contextlib.suppress(OSError, anyio.BrokenResourceError):
            await stream.send(f"error {error}\n".encode())
        return
    lines_in, lines = anyio.create_memory_object_stream[bytes](MAX_KEPT * 4)
    with listener, lines_in, lines:
        async with http_gateway(
            listener,
            token,
            bridge,
            attachment.host,
            wait=attachment.wait,
            offers=bridge,
            elsewhere=elsewhere,
            book=_Book(lines_in),
            kept=kept_sessions(attachment.http_sessions),
            idle=session_idle(os.environ),  # the daemon's: its starter's environment
        ):
            await stream.send(LISTENING)
            async with anyio.create_task_group() as group:
                group.start_soon(_say, stream, lines)
                await _until_closed(stream)
                group.cancel_scope.cancel()


class _Book:
    """The gateway's ``SessionBook``: each session opened and ended, a line for the ``serve``."""

    def __init__(self, lines: MemoryObjectSendStream[bytes]) -> None:
        self._lines = lines

    def opened(self, session_id: str, initialize: dict[str, Any]) -> None:
        line = opened_line(session_id, initialize)
        if line is not None:
            self._put(line)

    def ended(self, session_id: str) -> None:
        self._put(ended_line(session_id))

    def _put(self, line: bytes) -> None:
        try:
            self._lines.send_nowait(line)
        except anyio.WouldBlock:  # the serve does not read: the session is not kept
            _log.info("a session line was not said: the serve process reads none")
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            pass  # the listener is closing: nothing is kept any more


async def _say(stream: anyio.abc.SocketStream, lines: anyio.abc.ObjectReceiveStream[bytes]) -> None:
    """Send each session line to the ``serve`` (until it is gone)."""
    with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        async for line in lines:
            await stream.send(line)


async def _handed(stream: anyio.abc.UNIXSocketStream) -> socket.socket:
    """The listening socket the peer sends (``HANDOVER`` and one descriptor), checked."""
    try:
        with anyio.fail_after(HANDOVER_TIMEOUT):
            message, descriptors = await stream.receive_fds(len(HANDOVER), 1)
    except (TimeoutError, OSError, anyio.EndOfStream, anyio.BrokenResourceError) as exc:
        raise AgenttyError("no listening socket was handed over") from exc
    if message != HANDOVER or len(descriptors) != 1:
        for descriptor in descriptors:
            with contextlib.suppress(OSError):
                socket.close(descriptor)
        raise AgenttyError("no listening socket was handed over")
    try:
        handed = socket.socket(fileno=descriptors[0])
    except OSError as exc:  # a descriptor of another kind (a pipe, a file)
        with contextlib.suppress(OSError):
            socket.close(descriptors[0])
        raise AgenttyError("what was handed over is not a socket") from exc
    return loopback_listener(handed)


async def _until_closed(stream: anyio.abc.SocketStream) -> None:
    """Until the peer closes ``stream`` (what it sends meanwhile is not read for anything)."""
    with contextlib.suppress(anyio.EndOfStream, anyio.BrokenResourceError, OSError):
        while True:
            await stream.receive()
