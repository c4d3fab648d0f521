"""Transports for servers reached by URL: Streamable HTTP and the legacy SSE transport.

The SDK turns an HTTP error status into a generic protocol error; the transport keeps the last
error status it saw, so that a failed server can say "answered HTTP 401" instead.

Every response body is bounded (``maxResponseBytes``): a body, or one event of an event
stream, that grows past the limit ends with an error instead of filling memory. The limit counts
the bytes as they arrive, so the client asks for no compression and refuses a compressed body:
a few kilobytes of gzip can unpack to gigabytes.

A Streamable HTTP session is ended with a ``DELETE`` however the connection closes (the SDK's
own is lost when the close is a cancellation, as it is for ``list``, ``call``, remove, reload
and quit), and a session the server forgot is re-established once (``http_session``).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client

from agentty_tui.bridge._sdk import create_http_client
from agentty_tui.bridge.deep_cut import DeepCutStream
from agentty_tui.bridge.http_session import SessionKeeper
from agentty_tui.bridge.transport import ManagedTransport
from agentty_tui.model import DEFAULT_MAX_RESPONSE_BYTES, HttpSpec
from agentty_tui.secrets import mask_url

__all__ = ["HttpTransport", "ResponseRefused", "ResponseTooLarge"]


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
        """How many messages had parts nested too deep cut out (``deep_cut.DeepCutStream``)."""
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
