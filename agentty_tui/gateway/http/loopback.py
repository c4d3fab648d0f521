"""Where ``serve --http`` listens: a TCP socket on 127.0.0.1 only, and the one path served.

The socket is bound by the process the user runs (``serve --http``, or ``serve --http
--shared``, which hands it to the gateway daemon: ``loopback_listener`` is the daemon's check
of what it was handed). Kept apart from ``gateway/http/endpoint`` (uvicorn, the SDK) so that the
process that only holds the socket imports neither.
"""

from __future__ import annotations

import errno
import os
import socket

from agentty_tui.errors import AgenttyError

__all__ = [
    "DEFAULT_PORT",
    "HANDOVER",
    "LISTENING",
    "LOOPBACK",
    "MCP_PATH",
    "announcement",
    "listen_socket",
    "loopback_listener",
]

LOOPBACK = "127.0.0.1"
"""The one address ``serve --http`` listens on."""

DEFAULT_PORT = 8731
"""The port without ``--port``."""

MCP_PATH = "/mcp"
"""The one path served."""

HANDOVER = b"L"
"""The one byte ``serve --http --shared`` sends its listening socket with, as a descriptor,
to the gateway daemon (after the daemon's ``ok``)."""

LISTENING = b"listening\n"
"""The daemon's answer once it serves the socket handed over (else ``error <why>``)."""


def listen_socket(port: int, address: str = LOOPBACK) -> socket.socket:
    """A listening TCP socket on ``address`` (only ``LOOPBACK`` is accepted) and ``port`` (0: a
    free one); an ``AgenttyError`` that names the port when it is taken."""
    if address != LOOPBACK:
        raise AgenttyError(f"serve --http listens on {LOOPBACK} only, not on {address}")
    if not 0 <= port <= 65535:
        raise AgenttyError(f"port {port} is not a TCP port (0 to 65535)")
    # The protocol named: asyncio turns Nagle's algorithm off (TCP_NODELAY) only on sockets
    # that say they are TCP, and with it on each response waits out the host's delayed ACK
    # (40 ms a request, measured).
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        # SO_REUSEADDR: a gateway restarted at once binds its port again although the
        # connections of the one before wait out TIME_WAIT on it (its hosts come back to that
        # port: ``http.kept_sessions``). It shares no port: a socket listening on it still
        # fails the bind (Linux and the BSDs; sharing is SO_REUSEPORT's, never set).
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((address, port))
        listener.listen(128)
    except OSError as exc:
        listener.close()
        if exc.errno == errno.EADDRINUSE:
            raise AgenttyError(
                f"port {port} on {address} is taken by another program: choose another with "
                "--port N (--port 0 takes a free one)"
            ) from exc
        raise AgenttyError(f"cannot listen on {address}:{port}: {exc.strerror}") from exc
    listener.setblocking(False)
    return listener


def loopback_listener(listener: socket.socket) -> socket.socket:
    """``listener`` once it is what ``listen_socket`` makes (a listening TCP socket on
    ``LOOPBACK``), non-blocking; else an ``AgenttyError`` (and it is closed): what another
    process hands the daemon is checked, not believed."""
    try:
        listening = listener.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN)
        address = listener.getsockname()
        kind = (listener.family, listener.type, listener.proto)
    except OSError as exc:
        listener.close()
        raise AgenttyError(f"the socket handed over cannot be used: {exc.strerror}") from exc
    tcp = (socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    if not listening or kind != tcp or address[0] != LOOPBACK:
        listener.close()
        raise AgenttyError(f"the socket handed over is not one listening on {LOOPBACK} over TCP")
    listener.setblocking(False)
    return listener


def announcement(port: int, token_file: os.PathLike[str], token: str | None) -> str:
    """What ``serve --http`` says once hosts may connect: where, the token's file, and the
    token itself when asked (``--show-token``)."""
    lines = [
        f"agentty gateway: http://{LOOPBACK}:{port}{MCP_PATH}",
        f"bearer token in {token_file}",
    ]
    if token is not None:
        lines.append(f"token: {token}")
    return "".join(f"{line}\n" for line in lines)
