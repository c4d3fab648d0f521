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
  changes go out on the session's standalone GET stream, which starts by telling the host's
  client to come back ``GET_RETRY`` seconds after it breaks. At most ``MAX_SESSIONS`` at once
  (503 beyond). A host's DELETE ends its session for good (404 after). Any other end of a
  session — no request in flight and no GET stream open for ``SESSION_IDLE`` seconds
  (``AGENTTY_HTTP_SESSION_IDLE``), a failure, the gateway's stop — frees its server and
  transport but keeps the session takeable (its id and ``initialize`` params, at most
  ``MAX_KEPT`` of them), as are the sessions a gateway before this one had open (a daemon
  before, or a ``serve --http`` before on the same port: ``http.kept_sessions``): the host's
  next request naming one takes it up under the same id, the host's ``initialize`` replayed
  to a new ``HostServer``, and its next GET stream is ``tools/list_changed`` alone, after
  which the host's client opens the session's own. A session id never opened here, nor kept,
  is answered 404 (the spec's "start a new session").
- **2026-07-28 era** (each request whole, no session): one ``HostServer`` for all such
  requests, through the SDK's ``StreamableHTTPSessionManager``; its list changes go out on
  every open ``subscriptions/listen`` stream.

Leaving (a signal: the command runs under ``shutdown.run_command``) ends the sessions and the
listen streams first, so that no open stream holds the HTTP server's stop up, then the HTTP
server, then the bridge, which stops every server it started.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import logging
import os
import socket
import sys
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Mapping
from typing import Any, Protocol, TextIO, cast
from urllib.parse import urlsplit

import anyio
import anyio.abc
import mcp_types as types
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
from agentty_tui.gateway.host.offers import OfferSource
from agentty_tui.gateway.host.requests import AskElsewhere
from agentty_tui.gateway.host.server import DEFAULT_WAIT, GatewaySource, HostServer
from agentty_tui.gateway.http.answers import (
    ANSWER_ALONE,
    AnswerChoosingTransport,
    answered_alone,
    asks_nothing,
    replaying,
)
from agentty_tui.gateway.http.kept_sessions import (
    MAX_KEPT,
    KeptSessions,
    keepable,
    sessions_path,
)
from agentty_tui.gateway.http.loopback import (
    DEFAULT_PORT,
    MCP_PATH,
    announcement,
    listen_socket,
)
from agentty_tui.gateway.http.token import read_or_make_token, token_path

__all__ = [
    "GET_RETRY",
    "LIST_CHANGED_EVENT",
    "MAX_SESSIONS",
    "SESSION_IDLE",
    "HttpGateway",
    "HttpGuard",
    "SessionBook",
    "http_gateway",
    "serve_http",
    "session_idle",
]

MAX_SESSIONS = 64
"""2025-era sessions at once (each one is a host); beyond, a new one is refused 503."""

SESSION_IDLE = 30 * 60.0
"""Seconds a 2025-era session may go without a request in flight or a GET stream open before
its server is freed (the session stays takeable); ``AGENTTY_HTTP_SESSION_IDLE`` sets another."""

GET_RETRY = 5.0
"""Seconds a host's client waits before it reopens a session's GET stream that broke: the
first bytes of every such stream are an SSE ``retry`` field. The mcp SDK's client tries once
more after a broken stream, then gives the stream up for good (a host deaf to list changes);
its own wait, one second, is shorter than a ``serve --http`` restarted takes to listen again
(a daemon replaced is no matter: the socket stays bound, the retry waits in the kernel's
queue). A stream that ends cleanly (the gateway's stop) gets two tries: ten seconds."""

_RETRY_FIELD = f"retry: {int(GET_RETRY * 1000)}\r\n\r\n".encode()
"""The SSE block that sets ``GET_RETRY`` (an event without data, which clients skip)."""

STOP_GRACE = 2
"""Seconds the HTTP server waits for responses still open when it stops (the sessions' and the
listen streams are ended before)."""

LIST_CHANGED_EVENT = (
    b"retry: 100\r\nevent: message\r\n"
    b'data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\r\n\r\n'
)
"""The whole of the first GET stream of a session taken up from a daemon before: the host's
list may have changed while no daemon ran. The stream then ends, and the host's client opens
the next one 100 ms later (``retry``), a stream of the session's transport. Ending it is what
keeps the host's next GET streams coming: the mcp SDK's client gives a GET stream that breaks
two tries in a row up, and counts its tries afresh only after a stream that ended cleanly."""

TAKEN_UP = "agentty-taken-up"
"""The id of the ``initialize`` replayed to a session taken up (its answer goes nowhere)."""


class SessionBook(Protocol):
    """Who is told of the 2025-era sessions that become takeable and that end for good, to keep
    them for the next gateway (``serve --http --shared``'s process, for the next daemon, and
    the sessions file: ``http.kept_sessions``)."""

    def opened(self, session_id: str, initialize: dict[str, Any]) -> None:
        """A session was opened (or taken up) by a host's ``initialize`` with these params."""
        ...

    def ended(self, session_id: str) -> None:
        """A session ended for good (its host's DELETE, or it was the oldest kept beyond
        ``MAX_KEPT``)."""
        ...


def session_idle(env: Mapping[str, str]) -> float:
    """``AGENTTY_HTTP_SESSION_IDLE`` in seconds (``SESSION_IDLE`` when unset, not a number, or
    not a positive finite one)."""
    try:
        seconds = float(env.get("AGENTTY_HTTP_SESSION_IDLE", SESSION_IDLE))
    except ValueError:
        return SESSION_IDLE
    return seconds if 0 < seconds < float("inf") else SESSION_IDLE


_Incoming = anyio.abc.ObjectReceiveStream[SessionMessage | Exception]
_Outgoing = anyio.abc.ObjectSendStream[SessionMessage]

_LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost"})

logger = logging.getLogger(__name__)


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
        elsewhere: AskElsewhere | None = None,
        book: SessionBook | None = None,
        kept: Mapping[str, dict[str, Any]] | None = None,
        idle: float = SESSION_IDLE,
    ) -> None:
        """``source``: the plugin state (a ``Bridge``); ``host``: whose lens; ``wait``: seconds
        the first request waits for servers still connecting; ``offers``: the servers'
        resources, prompts and log messages (``None``: tools only); ``elsewhere``: who is
        asked a server's form or page during a host's call when the host cannot answer it
        (the daemon's attached picker, ``serve --http --shared``; ``None``: declined);
        ``book``: told of each session made takeable and each ended for good; ``kept``: the
        sessions a gateway before this one had open, by id, with their ``initialize`` params
        (oldest first), taken up when their host comes back; ``idle``: seconds a session may
        go unused before its server is freed (``SESSION_IDLE``)."""
        self._source = source
        self._host = host
        self._wait = wait
        self._offers = offers
        self._elsewhere = elsewhere
        self._book = book
        self._idle = idle
        self._kept: OrderedDict[str, dict[str, Any]] = OrderedDict(kept or {})
        """The takeable sessions no server serves now (idle, failed, or a gateway's before),
        oldest first, at most ``MAX_KEPT``."""
        self._initializes: dict[str, dict[str, Any]] = {}
        """The ``initialize`` params of each session served now (kept when it ends)."""
        self._closing = False
        self._taking_up: dict[str, anyio.Event] = {}
        self._unannounced: set[str] = set()
        """Sessions taken up whose GET stream has not opened since (it is a notice alone)."""
        self._sessions: dict[str, StreamableHTTPServerTransport] = {}
        self._asking_nothing: set[str] = set()
        """The sessions whose host declared neither elicitation nor roots
        (``http.answers``)."""
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
        """End every session and every listen stream (their responses end with them); the
        sessions stay in the book, for the next gateway."""
        self._closing = True
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
        taking = self._taking_up.get(session_id)
        if taking is not None:  # another request of the host is taking it up: wait for that
            await taking.wait()
        transport = self._sessions.get(session_id)
        if transport is None and session_id in self._kept and len(self._sessions) >= MAX_SESSIONS:
            await _error(503, "too many open sessions")(scope, receive, send)
            return
        if transport is None:
            transport = await self._taken_up(session_id)
        if transport is None:
            await _error(404, "Session not found")(scope, receive, send)
            return
        if scope["method"] == "GET":
            if session_id in self._unannounced:
                self._unannounced.discard(session_id)
                await _notice(session_id)(scope, receive, send)
                return
            send = _retrying(send)
        alone = False
        if scope["method"] == "POST" and session_id in self._asking_nothing:
            # The body is whole already (the body limit reads it first): one message.
            first = await receive()
            alone = _whole(first) and answered_alone(first.get("body", b""))
            receive = replaying(first, receive)
        choice = ANSWER_ALONE.set(alone)
        try:
            await transport.handle_request(scope, receive, send)
        finally:
            ANSWER_ALONE.reset(choice)
        if scope["method"] == "DELETE" and transport.is_terminated:  # the host ended it
            self._end_for_good(session_id)

    def _host_server(self) -> HostServer:
        return HostServer(
            self._source,
            self._host,
            wait=self._wait,
            offers=self._offers,
            elsewhere=self._elsewhere,
        )

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
        transport = AnswerChoosingTransport(session_id, idle_timeout=self._idle)
        self._sessions[session_id] = transport
        first = await receive()
        receive = replaying(first, receive)
        established = False
        try:
            await group.start(self._serve_session, session_id, transport)
            status = await _answered_status(transport, scope, receive, send)
            established = status is not None and status < 400
        finally:
            if not established:
                await self._drop(session_id, transport)
        body = first.get("body", b"") if _whole(first) else b""
        if established and session_id in self._sessions:
            if asks_nothing(body):
                self._asking_nothing.add(session_id)
            params = _initialize_params(body)
            if params is not None and keepable(session_id, params):
                self._initializes[session_id] = params
                if self._book is not None:
                    self._book.opened(session_id, params)

    async def _taken_up(self, session_id: str) -> StreamableHTTPServerTransport | None:
        """The session ``session_id`` taken up again when it is kept (its server freed, or a
        gateway before this one had it open): its host's ``initialize`` replayed; ``None``
        when it is not one (404). Another request of the session meanwhile waits
        (``__call__``): the transport is listed before it is connected."""
        group = self._group
        if group is None or session_id not in self._kept or len(self._sessions) >= MAX_SESSIONS:
            return None
        initialize = self._kept.pop(session_id)
        self._initializes[session_id] = initialize
        if self._book is not None:
            self._book.opened(session_id, initialize)  # the newest again: the last dropped
        taking = self._taking_up[session_id] = anyio.Event()
        transport = AnswerChoosingTransport(session_id, idle_timeout=self._idle)
        self._sessions[session_id] = transport
        try:
            await group.start(self._serve_session, session_id, transport, initialize)
        finally:
            del self._taking_up[session_id]
            taking.set()
        if asks_nothing(json.dumps({"params": initialize}).encode()):
            self._asking_nothing.add(session_id)
        self._unannounced.add(session_id)
        return transport

    async def _serve_session(
        self,
        session_id: str,
        transport: StreamableHTTPServerTransport,
        initialize: dict[str, Any] | None = None,
        *,
        task_status: anyio.abc.TaskStatus[None],
    ) -> None:
        """One 2025-era host, until its session ends (DELETE, idle, the gateway's stop);
        ``initialize``: the params of the host's ``initialize``, replayed first (a session
        taken up from a daemon before)."""
        try:
            async with transport.connect() as (read_stream, write_stream):
                task_status.started()
                idle = transport.idle_scope or anyio.CancelScope()
                with idle:
                    host = self._host_server()
                    # The transport's streams are the SDK's own kind, which its ``Server.run``
                    # takes as it takes anyio's; ``HostServer.serve`` names anyio's.
                    incoming = cast(_Incoming, read_stream)
                    outgoing = cast(_Outgoing, write_stream)
                    if initialize is None:
                        await host.serve(incoming, outgoing)
                    else:
                        async with _replaying_handshake(incoming, initialize) as replayed:
                            await host.serve(replayed, outgoing)
        except Exception:  # one session's failure ends it alone, never the others
            logger.exception("gateway HTTP session %s failed", session_id[:8])
        finally:
            await self._drop(session_id, transport)

    def _forget(self, session_id: str) -> dict[str, Any] | None:
        """Forget a session's server; its ``initialize`` params, if it may be kept."""
        self._sessions.pop(session_id, None)
        self._asking_nothing.discard(session_id)
        self._unannounced.discard(session_id)
        return self._initializes.pop(session_id, None)

    def _keep(self, session_id: str, initialize: dict[str, Any]) -> None:
        """Keep a session whose server ended (idle, failed) takeable: the oldest kept beyond
        ``MAX_KEPT`` ends for good."""
        self._kept[session_id] = initialize
        self._kept.move_to_end(session_id)
        while len(self._kept) > MAX_KEPT:
            oldest, _ = self._kept.popitem(last=False)
            if self._book is not None:
                self._book.ended(oldest)

    def _end_for_good(self, session_id: str) -> None:
        """The host ended its session (DELETE): its id answers 404 from now on."""
        self._forget(session_id)
        self._kept.pop(session_id, None)
        if self._book is not None:
            self._book.ended(session_id)

    async def _drop(self, session_id: str, transport: StreamableHTTPServerTransport) -> None:
        """Free a session's server and end its transport; the session stays takeable unless
        the gateway is stopping (its book keeps it then, for the next gateway) or its host
        ended it."""
        initialize = self._forget(session_id)
        if initialize is not None and not self._closing:  # a DELETE after: ``_end_for_good``
            self._keep(session_id, initialize)
        if not transport.is_terminated:
            with anyio.CancelScope(shield=True):
                await transport.terminate()


def _initialize_params(body: bytes) -> dict[str, Any] | None:
    """The params of the ``initialize`` request ``body`` holds (``None``: not one)."""
    try:
        message = json.loads(body)
    except ValueError:
        return None
    params = message.get("params") if isinstance(message, dict) else None
    return params if isinstance(params, dict) else None


@contextlib.asynccontextmanager
async def _replaying_handshake(
    incoming: _Incoming, initialize: dict[str, Any]
) -> AsyncIterator[_Incoming]:
    """``incoming`` after an ``initialize`` with ``initialize`` (its answer, to an id no
    request of the host's has, goes nowhere) and ``notifications/initialized``: a session taken
    up serves as the one its host opened."""
    relay_in, relayed = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    handshake = [
        SessionMessage(
            types.JSONRPCRequest(jsonrpc="2.0", id=TAKEN_UP, method="initialize", params=initialize)
        ),
        SessionMessage(
            types.JSONRPCNotification(jsonrpc="2.0", method="notifications/initialized")
        ),
    ]
    async with anyio.create_task_group() as group:

        async def relay() -> None:
            # The session's end closes the transport's stream under the relay: its end too.
            with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                async with relay_in, incoming:
                    for message in handshake:
                        await relay_in.send(message)
                    async for item in incoming:
                        await relay_in.send(item)

        group.start_soon(relay)
        async with relayed:
            yield relayed
        group.cancel_scope.cancel()


def _notice(session_id: str) -> Response:
    """The first GET stream of a session taken up: ``LIST_CHANGED_EVENT``, then its end."""
    headers = {MCP_SESSION_ID_HEADER: session_id, "Cache-Control": "no-cache, no-transform"}
    return Response(LIST_CHANGED_EVENT, media_type="text/event-stream", headers=headers)


def _retrying(send: Send) -> Send:
    """``send`` for a session's GET stream: its first bytes set ``GET_RETRY``."""
    started = False

    async def sending(message: Message) -> None:
        nonlocal started
        await send(message)
        if message["type"] == "http.response.start" and not started:
            started = True
            sse = Headers(raw=message.get("headers", [])).get("content-type", "")
            if message["status"] == 200 and sse.startswith("text/event-stream"):
                await send({"type": "http.response.body", "body": _RETRY_FIELD, "more_body": True})

    return sending


def _whole(message: Message) -> bool:
    """Whether ``message`` is a request's whole body."""
    return message["type"] == "http.request" and not message.get("more_body", False)


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
        # httptools, the C parser of HTTP/1.1 (a dependency: uvicorn's own `standard` extra),
        # 0.1 to 0.4 ms less a call than h11 by the minimums (bench/bench_gateway_http.py);
        # "auto" falls back to h11 in an environment installed before it was one.
        http="auto",
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


@contextlib.asynccontextmanager
async def http_gateway(
    listener: socket.socket,
    token: str,
    source: GatewaySource,
    host: str | None = None,
    *,
    wait: float = DEFAULT_WAIT,
    offers: OfferSource | None = None,
    elsewhere: AskElsewhere | None = None,
    book: SessionBook | None = None,
    kept: Mapping[str, dict[str, Any]] | None = None,
    idle: float = SESSION_IDLE,
) -> AsyncIterator[HttpGateway]:
    """The gateway served on ``listener`` (bound to ``LOOPBACK``) to every host with ``token``,
    over ``source``, while the block runs. Leaving ends the sessions and the listen streams
    first (no open stream holds the HTTP server's stop up), then the HTTP server, which closes
    ``listener``: ``serve --http`` over its own bridge, and the gateway daemon over the bridge
    of a ``serve --http --shared`` (``gateway/daemon/http_handover``), which passes its
    attached picker as ``elsewhere``, and its sessions' ``book`` and those ``kept`` from a daemon
    before (``HttpGateway``, as ``idle``)."""
    port = int(listener.getsockname()[1])
    async with anyio.create_task_group() as group:
        gateway = HttpGateway(
            source,
            host,
            wait=wait,
            offers=offers,
            elsewhere=elsewhere,
            book=book,
            kept=kept,
            idle=idle,
        )
        await group.start(gateway.run)
        app = HttpGuard(
            RequestBodyLimitMiddleware(gateway, DEFAULT_MAX_REQUEST_BODY_SIZE), token, port
        )
        try:
            async with http_server(app, listener):
                try:
                    yield gateway
                finally:
                    with anyio.CancelScope(shield=True):
                        await gateway.close()
        finally:
            group.cancel_scope.cancel()


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
    ``show_token``). ``env``: where the token file and the sessions file are, and the sessions'
    idle setting (``os.environ``). The sessions of a ``serve --http`` on the same port before
    (its sessions file) are taken up when their hosts come back."""
    settings = os.environ if env is None else env
    token_file = token_path(settings)
    token = read_or_make_token(token_file)
    listener = listen_socket(port)  # a taken port fails before any server starts
    chosen = int(listener.getsockname()[1])
    stream = sys.stdout if out is None else out
    book = KeptSessions(sessions_path(settings, chosen))  # read once the port is ours
    with listener:
        async with Bridge(workspace, trust=trust) as bridge, anyio.create_task_group() as group:
            await group.start(bridge.watch)
            async with http_gateway(
                listener,
                token,
                bridge,
                host,
                wait=wait,
                offers=bridge,
                book=book,
                kept=book.table(),
                idle=session_idle(settings),
            ):
                stream.write(announcement(chosen, token_file, token if show_token else None))
                stream.flush()
                await anyio.sleep_forever()
    return 0
