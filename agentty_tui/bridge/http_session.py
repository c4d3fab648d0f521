"""Keeping a Streamable HTTP session alive across a server restart, and ending it properly.

A server of the 2025 protocol era hands out an ``Mcp-Session-Id`` at ``initialize`` and forgets
it when it restarts: every later request then gets ``404`` (or ``400`` from servers that say
"no valid session ID"). The mcp SDK's transport gives up on such a session for good, so every
call fails until the server is restarted by hand. ``SessionKeeper`` sits under the HTTP client
and, the first time a request meets a session the server no longer knows, runs the
``initialize`` handshake again (the same request the SDK sent at first), then sends the request
once more under the new session id; later requests carry the new id in place of the old one.

It also remembers the live session id, so that the session can be ended with a ``DELETE``
when the connection closes, even when that close is a cancellation (see ``end_session``).
"""

from __future__ import annotations

import contextlib
import json

import anyio
import httpx2

__all__ = ["DELETE_LIMIT", "SessionKeeper"]

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
