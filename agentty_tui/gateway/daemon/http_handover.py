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
find the same port and token.
"""

from __future__ import annotations

import contextlib
import socket

import anyio
import anyio.abc

from agentty_tui.bridge import Bridge
from agentty_tui.errors import AgenttyError
from agentty_tui.gateway.attachment import Attachment
from agentty_tui.gateway.host.requests import AskElsewhere
from agentty_tui.gateway.http.endpoint import http_gateway
from agentty_tui.gateway.http.loopback import HANDOVER, LISTENING, loopback_listener

__all__ = ["HANDOVER_TIMEOUT", "serve_handed_listener"]

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
    with listener:
        async with http_gateway(
            listener,
            token,
            bridge,
            attachment.host,
            wait=attachment.wait,
            offers=bridge,
            elsewhere=elsewhere,
        ):
            await stream.send(LISTENING)
            await _until_closed(stream)


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
