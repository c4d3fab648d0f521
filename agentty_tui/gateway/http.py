"""``agentty-tui serve --http``: the gateway over Streamable HTTP, on 127.0.0.1 only.

One process, one ``Bridge`` (as ``serve`` over stdio), any number of hosts:

- **Listening**: a socket bound to ``127.0.0.1`` (``LOOPBACK``) and nothing else, whatever the
  port; a taken port is an ``AgenttyError`` that says so, port 0 takes a free one. Served by
  uvicorn on that socket (its own signal handling unused: the app's way out stops it).
- **Every request** passes ``HttpGuard`` first: a ``Host`` other than ``127.0.0.1:PORT`` or
  ``localhost:PORT`` (a DNS rebinding page's request names its own host) and an ``Origin``
  that is not a page of those two hosts are refused 403; then a request without
  ``Authorization: Bearer <token>`` 401 (the token's file: ``read_or_make_token``); a path
  other than ``/mcp`` 404; a body over 4 MiB 413.
- **2025 era** (an ``initialize`` handshake, ``Mcp-Session-Id``): each session is one host,
  served by its own ``HostServer`` over the SDK's ``StreamableHTTPServerTransport``; its list
  changes go out on the session's standalone GET stream. A session that has no request in
  flight and no GET stream open for ``SESSION_IDLE`` seconds is ended; at most
  ``MAX_SESSIONS`` at once (503 beyond).
- **2026-07-28 era** (each request whole, no session): one ``HostServer`` for all such
  requests, through the SDK's ``StreamableHTTPSessionManager``; its list changes go out on
  every open ``subscriptions/listen`` stream.

Leaving (a signal: the command runs under ``shutdown.run_command``) ends the sessions and the
listen streams first, so that no open stream holds the HTTP server's stop up, then the HTTP
server, then the bridge, which stops every server it started.
"""

from __future__ import annotations

import contextlib
import errno
import hmac
import logging
import os
import re
import secrets
import socket
import stat
import sys
import uuid
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any, TextIO, cast
from urllib.parse import urlsplit

import anyio
import anyio.abc
import uvicorn
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER, StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE, RequestBodyLimitMiddleware
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp.shared.message import SessionMessage
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.datastructures import Headers
from starlette.responses import JSONResponse, Response
from starlette.types import Message, Receive, Scope, Send

from agentty_tui.bridge import Bridge
from agentty_tui.config.workspace import Workspace
from agentty_tui.errors import AgenttyError
from agentty_tui.gateway.offer_source import OfferSource
from agentty_tui.gateway.server import DEFAULT_WAIT, GatewaySource, HostServer

__all__ = [
    "DEFAULT_PORT",
    "LOOPBACK",
    "MAX_SESSIONS",
    "MCP_PATH",
    "SESSION_IDLE",
    "TOKEN_BYTES",
    "HttpGateway",
    "HttpGuard",
    "listen_socket",
    "read_or_make_token",
    "serve_http",
    "token_path",
]

LOOPBACK = "127.0.0.1"
"""The one address ``serve --http`` listens on."""

DEFAULT_PORT = 8731
"""The port without ``--port``."""

MCP_PATH = "/mcp"
"""The one path served."""

MAX_SESSIONS = 64
"""2025-era sessions at once (each one is a host); beyond, a new one is refused 503."""

SESSION_IDLE = 30 * 60.0
"""Seconds a 2025-era session may go without a request in flight or a GET stream open."""

STOP_GRACE = 2
"""Seconds the HTTP server waits for responses still open when it stops (the sessions' and the
listen streams are ended before)."""

_Incoming = anyio.abc.ObjectReceiveStream[SessionMessage | Exception]
_Outgoing = anyio.abc.ObjectSendStream[SessionMessage]

_LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost"})

logger = logging.getLogger(__name__)


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
        # No SO_REUSEADDR: a port another program holds must fail here, not be shared.
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


# --- The bearer token: a random secret in a file only the user may read.
#
# The file is ``http-token`` in ``$XDG_STATE_HOME/agentty/`` (``~/.local/state/agentty/``): a
# state folder, not the runtime one, so the token outlives a logout and a host's entry that
# carries it keeps working from one ``serve --http`` to the next. It is made once (32 random
# bytes, URL-safe base64), created with mode 0600 and never rewritten; removing it makes the
# next ``serve --http`` choose a new one. A file that others may read, that another user owns
# or that does not hold a token is refused with a message naming it, never used or overwritten.

TOKEN_BYTES = 32
"""Random bytes in a new token (43 characters of URL-safe base64)."""

_TOKEN = re.compile(r"[A-Za-z0-9_-]{32,256}")
"""What a token file may hold (one made here, or one the user put there), without the
trailing newline."""


def token_path(env: Mapping[str, str], home: Path | None = None) -> Path:
    """``$XDG_STATE_HOME/agentty/http-token``, else ``~/.local/state/agentty/http-token``."""
    state = env.get("XDG_STATE_HOME")
    base = Path(state) if state else (home or Path.home()) / ".local" / "state"
    return base / "agentty" / "http-token"


def read_or_make_token(path: Path) -> str:
    """The token in ``path``, made first if the file does not exist; an ``AgenttyError``
    naming the file when it cannot be used."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    made = secrets.token_urlsafe(TOKEN_BYTES)
    try:
        # Exclusive: two serves starting at once make one token, and the second reads it.
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        return _read(path)
    except OSError as exc:
        raise AgenttyError(f"cannot make the token file {path}: {exc.strerror}") from exc
    try:
        os.write(descriptor, (made + "\n").encode())
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(path)  # never leave a half-written token behind
        raise AgenttyError(f"cannot write the token file {path}: {exc.strerror}") from exc
    finally:
        os.close(descriptor)
    return made


def _read(path: Path) -> str:
    """The token of an existing file, once the file is the user's alone."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as exc:
        raise AgenttyError(f"cannot read the token file {path}: {exc.strerror}") from exc
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
            raise AgenttyError(f"{path} is not a file of this user: remove it for a new token")
        if info.st_mode & 0o077:
            raise AgenttyError(
                f"{path} may be read by others (mode {stat.S_IMODE(info.st_mode):o}): remove it "
                "for a new token, or chmod 600 it"
            )
        text = os.read(descriptor, 1024).decode("ascii", errors="replace").strip()
    finally:
        os.close(descriptor)
    if not _TOKEN.fullmatch(text):
        raise AgenttyError(f"{path} does not hold a token: remove it for a new one")
    return text


class HttpGuard:
    """The checks every request passes before any MCP is read (an ASGI middleware)."""

    def __init__(self, app: Any, token: str, port: int) -> None:
        """``app``: what a request that passes reaches; ``token``: the bearer token;
        ``port``: the port listened on (the one a ``Host`` may name)."""
        self._app = app
        self._expected = f"Bearer {token}".encode()
        self._hosts = frozenset(f"{name}:{port}" for name in _LOCAL_HOSTS)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse the request, or pass it on."""
        if scope["type"] != "http":
            return  # no lifespan or websocket is served
        headers = Headers(scope=scope)
        refusal = self._refusal(headers, scope["path"])
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        await self._app(scope, receive, send)

    def _refusal(self, headers: Headers, path: str) -> Response | None:
        # Host and Origin first: a page that rebinds a name to 127.0.0.1 is told nothing more.
        if headers.get("host", "").lower() not in self._hosts:
            return _plain(403, "Host not allowed: use 127.0.0.1 or localhost")
        origin = headers.get("origin")
        if origin is not None and not _local_origin(origin):
            return _plain(403, "Origin not allowed")
        given = headers.get("authorization", "").encode("latin-1")
        scheme, _, credential = given.partition(b" ")
        if scheme.lower() != b"bearer" or not hmac.compare_digest(
            b"Bearer " + credential.strip(), self._expected
        ):
            response = _plain(401, "a bearer token is required (see agentty-tui serve --http)")
            response.headers["WWW-Authenticate"] = 'Bearer realm="agentty"'
            return response
        if path.rstrip("/") != MCP_PATH:
            return _plain(404, f"not found: the gateway is at {MCP_PATH}")
        return None


def _plain(status: int, text: str) -> Response:
    return Response(text, status_code=status, media_type="text/plain")


def _local_origin(origin: str) -> bool:
    """A page of 127.0.0.1 or localhost, on any port (``null`` or a malformed one is not)."""
    try:
        parts = urlsplit(origin)
        _ = parts.port  # raises on a malformed port
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and (parts.hostname or "") in _LOCAL_HOSTS


class HttpGateway:
    """The MCP side of ``serve --http`` (an ASGI app): routes each request to its era's
    server, and owns the sessions' tasks while ``run`` runs."""

    def __init__(
        self,
        source: GatewaySource,
        host: str | None = None,
        *,
        wait: float = DEFAULT_WAIT,
        offers: OfferSource | None = None,
    ) -> None:
        """``source``: the plugin state (a ``Bridge``); ``host``: whose lens; ``wait``: seconds
        the first request waits for servers still connecting; ``offers``: the servers'
        resources, prompts and log messages (``None``: tools only)."""
        self._source = source
        self._host = host
        self._wait = wait
        self._offers = offers
        self._sessions: dict[str, StreamableHTTPServerTransport] = {}
        self._group: anyio.abc.TaskGroup | None = None
        self._modern: StreamableHTTPSessionManager | None = None
        self._modern_ready = anyio.Event()
        self._modern_host: HostServer | None = None

    @property
    def sessions(self) -> int:
        """How many 2025-era sessions are open (diagnostics, tests)."""
        return len(self._sessions)

    async def run(self, *, task_status: anyio.abc.TaskStatus[None]) -> None:
        """Serve until cancelled; started (``task_status``) once requests can be taken."""
        try:
            async with anyio.create_task_group() as group:
                self._group = group
                group.start_soon(self._serve_modern)
                task_status.started()
                await anyio.sleep_forever()
        finally:
            self._group = None

    async def close(self) -> None:
        """End every session and every listen stream (their responses end with them)."""
        if self._modern_host is not None:
            self._modern_host.end_listens()
        for transport in list(self._sessions.values()):
            with anyio.CancelScope(shield=True):
                await transport.terminate()
        self._sessions.clear()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """One HTTP request (it passed ``HttpGuard``)."""
        headers = Headers(scope=scope)
        version = headers.get(MCP_PROTOCOL_VERSION_HEADER)
        if version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS:
            await self._modern_request(scope, receive, send)
            return
        session_id = headers.get(MCP_SESSION_ID_HEADER)
        if session_id is None:
            await self._open_session(scope, receive, send)
            return
        transport = self._sessions.get(session_id)
        if transport is None:
            await _error(404, "Session not found")(scope, receive, send)
            return
        await transport.handle_request(scope, receive, send)
        if transport.is_terminated:  # the host ended it (DELETE)
            self._sessions.pop(session_id, None)

    def _host_server(self) -> HostServer:
        return HostServer(self._source, self._host, wait=self._wait, offers=self._offers)

    async def _modern_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._modern_ready.wait()  # at most the first settling, ``wait`` seconds
        manager = self._modern
        if manager is None:  # stopping
            await _error(503, "the gateway is stopping")(scope, receive, send)
            return
        await manager.handle_request(scope, receive, send)

    async def _serve_modern(self) -> None:
        """The one server of every 2026-07-28 request, from the first settling on."""
        served = self._host_server()
        await served.settle()
        manager = StreamableHTTPSessionManager(served.build())
        self._modern_host = served
        try:
            async with manager.run(), anyio.create_task_group() as group:
                await group.start(served.follow)
                self._modern = manager
                self._modern_ready.set()
        finally:
            self._modern = None
            self._modern_ready.set()  # a request still waiting is told the gateway stops

    async def _open_session(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A request without a session: only an ``initialize`` opens one (the transport
        answers anything else with an error, and the session is dropped again)."""
        group = self._group
        if group is None:
            await _error(503, "the gateway is stopping")(scope, receive, send)
            return
        if len(self._sessions) >= MAX_SESSIONS:
            await _error(503, "too many open sessions")(scope, receive, send)
            return
        session_id = uuid.uuid4().hex
        transport = StreamableHTTPServerTransport(session_id, idle_timeout=SESSION_IDLE)
        self._sessions[session_id] = transport
        established = False
        try:
            await group.start(self._serve_session, session_id, transport)
            status = await _answered_status(transport, scope, receive, send)
            established = status is not None and status < 400
        finally:
            if not established:
                await self._drop(session_id, transport)

    async def _serve_session(
        self,
        session_id: str,
        transport: StreamableHTTPServerTransport,
        *,
        task_status: anyio.abc.TaskStatus[None],
    ) -> None:
        """One 2025-era host, until its session ends (DELETE, idle, the gateway's stop)."""
        try:
            async with transport.connect() as (read_stream, write_stream):
                task_status.started()
                idle = transport.idle_scope or anyio.CancelScope()
                with idle:
                    host = self._host_server()
                    # The transport's streams are the SDK's own kind, which its ``Server.run``
                    # takes as it takes anyio's; ``HostServer.serve`` names anyio's.
                    await host.serve(cast(_Incoming, read_stream), cast(_Outgoing, write_stream))
        except Exception:  # one session's failure ends it alone, never the others
            logger.exception("gateway HTTP session %s failed", session_id[:8])
        finally:
            await self._drop(session_id, transport)

    async def _drop(self, session_id: str, transport: StreamableHTTPServerTransport) -> None:
        """Forget a session (its id answers 404 from now on) and end its transport."""
        self._sessions.pop(session_id, None)
        if not transport.is_terminated:
            with anyio.CancelScope(shield=True):
                await transport.terminate()


def _error(status: int, message: str) -> Response:
    """A JSON-RPC error without an id, with the HTTP status."""
    body = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}
    return JSONResponse(body, status_code=status)


async def _answered_status(
    transport: StreamableHTTPServerTransport, scope: Scope, receive: Receive, send: Send
) -> int | None:
    """Let ``transport`` answer the request; the HTTP status it answered with."""
    status: int | None = None

    async def watched(message: Message) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = int(message["status"])
        await send(message)

    await transport.handle_request(scope, receive, watched)
    return status


@contextlib.asynccontextmanager
async def http_server(app: Any, listener: socket.socket) -> AsyncIterator[None]:
    """uvicorn serving ``app`` on ``listener`` while the context is open.

    Driven through its parts (``startup``, ``shutdown``) rather than ``serve``, which would
    take the process's SIGINT and SIGTERM from the app's own handling."""
    config = uvicorn.Config(
        app,
        log_config=None,  # the app's logging is set already (the log file); keep it
        access_log=False,
        lifespan="off",
        ws="none",
        http="h11",
        proxy_headers=False,  # nothing sits in front of a loopback server
        server_header=False,
        date_header=False,
        timeout_graceful_shutdown=STOP_GRACE,
    )
    config.load()
    server = uvicorn.Server(config)
    server.lifespan = config.lifespan_class(config)
    await server.startup(sockets=[listener])
    try:
        yield
    finally:
        with anyio.CancelScope(shield=True):
            server.should_exit = True
            await server.shutdown(sockets=[listener])


async def serve_http(
    workspace: Workspace,
    host: str | None = None,
    trust: bool = False,
    wait: float = DEFAULT_WAIT,
    *,
    port: int = DEFAULT_PORT,
    show_token: bool = False,
    out: TextIO | None = None,
    env: Mapping[str, str] | None = None,
) -> int:
    """Serve ``host``'s view of ``workspace`` over HTTP until cancelled (a signal); says on
    ``out`` (stdout) where, and where the token is (the token itself only with
    ``show_token``). ``env``: where the token file is (``os.environ``)."""
    token_file = token_path(os.environ if env is None else env)
    token = read_or_make_token(token_file)
    listener = listen_socket(port)  # a taken port fails before any server starts
    chosen = int(listener.getsockname()[1])
    stream = sys.stdout if out is None else out
    with listener:
        async with Bridge(workspace, trust=trust) as bridge, anyio.create_task_group() as group:
            await group.start(bridge.watch)
            gateway = HttpGateway(bridge, host, wait=wait, offers=bridge)
            await group.start(gateway.run)
            app = HttpGuard(
                RequestBodyLimitMiddleware(gateway, DEFAULT_MAX_REQUEST_BODY_SIZE), token, chosen
            )
            async with http_server(app, listener):
                try:
                    stream.write(f"agentty gateway: http://{LOOPBACK}:{chosen}{MCP_PATH}\n")
                    stream.write(f"bearer token in {token_file}\n")
                    if show_token:
                        stream.write(f"token: {token}\n")
                    stream.flush()
                    await anyio.sleep_forever()
                finally:
                    with anyio.CancelScope(shield=True):
                        await gateway.close()
    return 0
