"""Transports for servers reached by URL: Streamable HTTP and the legacy SSE transport.

The SDK turns an HTTP error status into a generic protocol error; the transport keeps the last
error status it saw, so that a failed server can say "answered HTTP 401" instead.

Every response body is bounded (``maxResponseBytes``): a body, or one event of an event
stream, that grows past the limit ends with an error instead of filling memory. The limit counts
the bytes as they arrive, so the client asks for no compression and refuses a compressed body:
a few kilobytes of gzip can unpack to gigabytes.

A Streamable HTTP session is ended with a ``DELETE`` however the connection closes (the SDK's
own is lost when the close is a cancellation, as it is for ``list``, ``call``, remove, reload
and quit), and a session the server forgot is re-established once (``SessionKeeper``, below).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx2
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client

from agentty_tui.bridge._sdk import create_http_client
from agentty_tui.bridge.json_depth import MAX_DEPTH, cut_deep_json
from agentty_tui.bridge.transport import ManagedTransport
from agentty_tui.model import DEFAULT_MAX_RESPONSE_BYTES, HttpSpec
from agentty_tui.secrets import mask_url

__all__ = [
    "DELETE_LIMIT",
    "DeepCutStream",
    "HttpTransport",
    "ResponseRefused",
    "ResponseTooLarge",
    "SessionKeeper",
]


class ResponseRefused(httpx2.StreamError):
    """A response the transport will not read: over the size limit, or compressed."""


class ResponseTooLarge(ResponseRefused):
    """A response body (or one server-sent event) went over ``maxResponseBytes``."""


class HttpTransport(ManagedTransport):
    """An mcp ``Transport`` for ``spec``, sending its headers with every request."""

    def __init__(
        self,
        spec: HttpSpec,
        request_timeout: float,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        auth: httpx2.Auth | None = None,
    ) -> None:
        self.spec = spec
        self.request_timeout = request_timeout
        self.max_response_bytes = max_response_bytes
        self.auth = auth
        """The OAuth provider that authenticates every request, if the server uses one."""
        self.error_status: int | None = None
        """The last HTTP status of 400 or more the server answered with, if any."""
        self.refused: str | None = None
        """Why the transport refused a response (over ``max_response_bytes``, compressed)."""
        self.bearer_challenge = False
        """Whether the last 401 asked for a Bearer token (``WWW-Authenticate: Bearer``)."""
        self.deep_cuts = 0
        """How many messages had parts nested too deep cut out (``DeepCutStream``, below)."""
        self.sessions: SessionKeeper | None = None
        """The Streamable HTTP connection's session keeper (``None`` before it connects)."""

    @property
    def unreachable(self) -> httpx2.ConnectError | None:
        """The refused connection of the latest request, when the server is gone."""
        return self.sessions.unreachable if self.sessions is not None else None

    async def _record(self, response: httpx2.Response) -> None:
        if response.status_code >= 400:
            self.error_status = response.status_code
        if response.status_code == 401:
            challenge = response.headers.get("www-authenticate", "")
            self.bearer_challenge = challenge.strip().lower().startswith("bearer")
        encoding = response.headers.get("content-encoding", "").strip().lower()
        if encoding not in ("", "identity"):
            # Asked for none: its unpacked size is out of reach of the limit.
            self.refused = (
                f"{mask_url(self.spec.url)} sent a response compressed with {encoding!r}, which "
                "was not asked for; it was refused (maxResponseBytes counts what arrives)"
            )
            raise ResponseRefused(self.refused)
        events = response.headers.get("content-type", "").startswith("text/event-stream")
        bounded = _BoundedStream(response.stream, self, per_event=events)
        response.stream = DeepCutStream(bounded, self._count_cut, events=events)

    def _count_cut(self) -> None:
        self.deep_cuts += 1

    def _over_limit(self) -> ResponseTooLarge:
        limit = f"{self.max_response_bytes:,} bytes (maxResponseBytes)"
        self.refused = (
            f"{mask_url(self.spec.url)} sent a response of more than {limit}; the request failed"
        )
        return ResponseTooLarge(self.refused)

    def _client_factory(
        self,
        headers: dict[str, str] | None = None,
        timeout: httpx2.Timeout | None = None,
        auth: httpx2.Auth | None = None,
        transport: httpx2.AsyncBaseTransport | None = None,
    ) -> httpx2.AsyncClient:
        auth = auth if auth is not None else self.auth
        client = create_http_client(headers, timeout, auth, transport)
        client.headers["Accept-Encoding"] = "identity"  # see the module docstring
        client.event_hooks["response"].append(self._record)
        return client

    @asynccontextmanager
    async def _connect(self) -> AsyncIterator[Any]:
        headers = dict(self.spec.headers)
        if self.spec.transport == "sse":
            async with sse_client(
                self.spec.url,
                headers=headers,
                timeout=self.request_timeout,
                httpx_client_factory=self._client_factory,
            ) as streams:
                yield streams
            return
        timeout = httpx2.Timeout(self.request_timeout, read=max(self.request_timeout, 300.0))
        self.sessions = SessionKeeper(httpx2.AsyncHTTPTransport())
        async with self._client_factory(
            headers=headers, timeout=timeout, transport=self.sessions
        ) as http:
            try:
                async with streamable_http_client(
                    self.spec.url, http_client=http, terminate_on_close=False
                ) as streams:
                    yield streams
            finally:
                await self.sessions.end_session(http, self.spec.url)


_EVENT_END = re.compile(rb"\r?\n\r?\n")


class _BoundedStream(httpx2.AsyncByteStream):
    """A response body that raises once it has brought more than the limit.

    For an event stream the count starts afresh after each event (a blank line): the stream
    may live for hours, one event may not be huge.
    """

    def __init__(
        self,
        inner: httpx2.SyncByteStream | httpx2.AsyncByteStream,
        owner: HttpTransport,
        *,
        per_event: bool,
    ) -> None:
        self._inner = inner
        self._owner = owner
        self._per_event = per_event

    async def __aiter__(self) -> AsyncIterator[bytes]:
        assert isinstance(self._inner, httpx2.AsyncByteStream)
        limit = self._owner.max_response_bytes
        count = 0
        async for chunk in self._inner:
            ends = list(_EVENT_END.finditer(chunk)) if self._per_event else ()
            if ends:  # the event that ends here, then what follows the last end
                over = count + ends[0].start() > limit
                count = len(chunk) - ends[-1].end()
            else:
                count += len(chunk)
                over = False
            if over or count > limit:
                raise self._owner._over_limit()
            yield chunk

    async def aclose(self) -> None:
        """Close the underlying stream."""
        if isinstance(self._inner, httpx2.AsyncByteStream):
            await self._inner.aclose()


# --- Keeping a Streamable HTTP session alive across a server restart, and ending it properly.
#
# A server of the 2025 protocol era hands out an ``Mcp-Session-Id`` at ``initialize`` and forgets
# it when it restarts: every later request then gets ``404`` (or ``400`` from servers that say
# "no valid session ID"). The mcp SDK's transport gives up on such a session for good, so every
# call fails until the server is restarted by hand. ``SessionKeeper`` sits under the HTTP client
# and, the first time a request meets a session the server no longer knows, runs the
# ``initialize`` handshake again (the same request the SDK sent at first), then sends the request
# once more under the new session id; later requests carry the new id in place of the old one.
#
# It also remembers the live session id, so that the session can be ended with a ``DELETE``
# when the connection closes, even when that close is a cancellation (see ``end_session``).

DELETE_LIMIT = 2.0
"""Seconds the ``DELETE`` that ends a session may take (it is sent even while cancelled)."""

SESSION_HEADER = "mcp-session-id"
VERSION_HEADER = "mcp-protocol-version"
_BODY_LIMIT = 65536
"""How much of an error body is read to tell a lost session from another bad request."""


class SessionKeeper(httpx2.AsyncBaseTransport):
    """An HTTP transport that re-establishes a session the server forgot, once per request."""

    def __init__(self, inner: httpx2.AsyncBaseTransport) -> None:
        self._inner = inner
        self.session_id: str | None = None
        """The live session's id, if the server gave one."""
        self.protocol_version: str | None = None
        """The protocol version the requests of the session carry."""
        self.reestablished = 0
        """How many times a forgotten session was established again."""
        self.unreachable: httpx2.ConnectError | None = None
        """The refused connection of the latest request, if it was refused (a server gone)."""
        self._handshake: tuple[bytes, httpx2.Headers] | None = None
        self._renamed: dict[str, str] = {}
        self._lock = anyio.Lock()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """Send ``request``; on a forgotten session, re-establish it and send it once more."""
        sent_id = self._current(request)
        if request.method == "POST" and _method(request) == "initialize":
            self._handshake = (request.content, request.headers.copy())
        version = request.headers.get(VERSION_HEADER)
        if version:
            self.protocol_version = version
        response = await self._send(request)
        given = response.headers.get(SESSION_HEADER)
        if given and request.method == "POST" and sent_id is None:
            self.session_id = given
        if sent_id is None or request.method != "POST" or response.status_code not in (400, 404):
            return response
        response, lost = await _lost_session(response)
        if not lost:
            return response
        fresh = await self._reestablish(request, sent_id)
        if fresh is None:
            return response
        await response.aclose()
        request.headers[SESSION_HEADER] = fresh
        return await self._send(request)

    async def _send(self, request: httpx2.Request) -> httpx2.Response:
        try:
            response = await self._inner.handle_async_request(request)
        except httpx2.ConnectError as exc:
            # The SDK reports only "Connection closed" to the call that met it.
            self.unreachable = exc
            raise
        self.unreachable = None
        return response

    def _current(self, request: httpx2.Request) -> str | None:
        """Put the live session id on ``request`` in place of one the server forgot."""
        sent = request.headers.get(SESSION_HEADER)
        if sent is not None and sent in self._renamed:
            sent = self._renamed[sent]
            request.headers[SESSION_HEADER] = sent
        return sent

    async def _reestablish(self, failed: httpx2.Request, lost_id: str) -> str | None:
        """A new session through the SDK's own ``initialize`` request; ``None`` if refused."""
        async with self._lock:
            if self.session_id is not None and self.session_id != lost_id:
                return self.session_id  # another request re-established it meanwhile
            if self._handshake is None:
                return None
            body, first = self._handshake
            headers = failed.headers.copy()
            for name in (SESSION_HEADER, VERSION_HEADER, "content-length"):
                headers.pop(name, None)
            headers["content-type"] = first.get("content-type", "application/json")
            answer = await self._inner.handle_async_request(
                httpx2.Request("POST", failed.url, headers=headers, content=body)
            )
            try:
                await _drain(answer)
            finally:
                await answer.aclose()
            fresh = answer.headers.get(SESSION_HEADER)
            if answer.status_code != 200 or not fresh:
                return None
            headers[SESSION_HEADER] = fresh
            if self.protocol_version:
                headers[VERSION_HEADER] = self.protocol_version
            initialized = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})
            notice = await self._inner.handle_async_request(
                httpx2.Request("POST", failed.url, headers=headers, content=initialized.encode())
            )
            await notice.aclose()
            self._renamed[lost_id] = fresh
            for old, new in self._renamed.items():
                if new == lost_id:
                    self._renamed[old] = fresh
            self.session_id = fresh
            self.reestablished += 1
            return fresh

    async def aclose(self) -> None:
        """Close the underlying transport."""
        await self._inner.aclose()

    async def end_session(self, http: httpx2.AsyncClient, url: str) -> None:
        """Send the ``DELETE`` that ends the live session, shielded and within
        ``DELETE_LIMIT``: a connection that is being cancelled still ends its session."""
        session = self.session_id
        if session is None:
            return
        self.session_id = None
        headers = {SESSION_HEADER: session}
        if self.protocol_version:
            headers[VERSION_HEADER] = self.protocol_version
        # Ending a session is a courtesy to the server: nothing it meets (a server already
        # gone, a token that no longer works) may fail the close.
        with anyio.move_on_after(DELETE_LIMIT, shield=True), contextlib.suppress(Exception):
            await http.delete(url, headers=headers)


def _method(request: httpx2.Request) -> str | None:
    """The JSON-RPC method a POST carries (``None`` for a response or a batch)."""
    try:
        message = json.loads(request.content)
    except (ValueError, httpx2.RequestNotRead):
        return None
    method = message.get("method") if isinstance(message, dict) else None
    return method if isinstance(method, str) else None


async def _lost_session(response: httpx2.Response) -> tuple[httpx2.Response, bool]:
    """Whether ``response`` says the session is unknown, and the response to pass on (its
    body, read here when it is needed to tell, is put back)."""
    if response.status_code == 404:
        return response, True
    body = b""
    async for chunk in response.aiter_raw():
        body += chunk
        if len(body) > _BODY_LIMIT:
            break
    await response.aclose()
    again = httpx2.Response(
        response.status_code, headers=response.headers, content=body, request=response.request
    )
    return again, b"session" in body.lower()


async def _drain(response: httpx2.Response) -> None:
    """Read (a bounded part of) a body we do not use, so the connection can be reused."""
    read = 0
    async for chunk in response.aiter_raw():
        read += len(chunk)
        if read > _BODY_LIMIT:
            break


# --- Responses of a URL server with parts nested too deep to parse, cut as stdio lines are.
#
# A tool whose ``inputSchema`` is nested deeper than the JSON parser allows makes its whole
# ``tools/list`` answer unreadable, and the request then waits for its timeout. Over stdio the
# transport cuts such a line (``stdio.cut_deep_json``); over HTTP the SDK parses the body itself,
# so the body is cut before it gets there: a JSON body whole, an event stream event by event
# (its ``data:`` lines). The parts below ``MAX_DEPTH`` become ``TOO_DEEP``, and the listing drops
# the tool that holds one, with the reason, as over stdio.


class DeepCutStream(httpx2.AsyncByteStream):
    """A response body with its too-deep JSON cut; ``on_cut`` is called for each cut message.

    The body (or one event) is bounded by the stream it wraps (``maxResponseBytes``), so
    holding it until its end costs at most that much.
    """

    def __init__(
        self, inner: httpx2.AsyncByteStream, on_cut: Callable[[], None], *, events: bool
    ) -> None:
        self._inner = inner
        self._on_cut = on_cut
        self._events = events

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if not self._events:
            body = b"".join([chunk async for chunk in self._inner])
            if body:
                yield self._cut(body)
            return
        pending = bytearray()
        async for chunk in self._inner:
            start = max(len(pending) - 3, 0)  # an event end may straddle two chunks
            pending += chunk
            last: re.Match[bytes] | None = None
            for last in _EVENT_END.finditer(pending, start):  # noqa: B007 - the last one counts
                pass
            if last is None:
                continue
            done = bytes(pending[: last.end()])
            del pending[: last.end()]
            yield b"\n".join(self._cut(line) for line in done.split(b"\n"))
        if pending:
            yield b"\n".join(self._cut(line) for line in bytes(pending).split(b"\n"))

    def _cut(self, text: bytes) -> bytes:
        """``text`` (a JSON body, or an event's line) with its too-deep parts cut."""
        if self._events and not text.startswith(b"data:"):
            return text
        if text.count(b"{") + text.count(b"[") <= MAX_DEPTH:  # too few to be too deep
            return text
        cut = cut_deep_json(text, MAX_DEPTH)
        if cut == text:
            return text
        self._on_cut()
        return cut

    async def aclose(self) -> None:
        """Close the underlying stream."""
        await self._inner.aclose()
