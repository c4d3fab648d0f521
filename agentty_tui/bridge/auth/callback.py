"""The loopback redirect listener: takes exactly one valid redirect from the browser.

It listens on 127.0.0.1 (a free port, or the one configured), answers the browser with a short
page, and finishes on the first redirect whose ``state`` is the one the login sent. A redirect
with another ``state`` (a stale tab, or someone else's request) is refused and the wait goes
on. A URL the user pastes (when no browser could reach the listener) is judged the same way.
"""

from __future__ import annotations

import contextlib
import html
import secrets
from dataclasses import dataclass
from types import TracebackType
from urllib.parse import parse_qs, urlsplit

import anyio
import anyio.abc
from anyio.abc import SocketAttribute
from anyio.streams.buffered import BufferedByteReceiveStream
from mcp.shared.auth import AuthorizationCodeResult

from agentty_tui.errors import OperationError

__all__ = ["CALLBACK_PATH", "DEFAULT_LOGIN_TIMEOUT", "LoginError", "LoopbackCallback"]

CALLBACK_PATH = "/callback"
"""The path of the redirect URI."""

DEFAULT_LOGIN_TIMEOUT = 300.0
"""Seconds a login waits for the browser's redirect."""

_REQUEST_LIMIT = 16384
_READ_TIMEOUT = 10.0


class LoginError(OperationError):
    """A login that did not complete: denied, timed out or refused, with the reason."""


@dataclass(frozen=True)
class _Verdict:
    status: int
    page: str
    result: AuthorizationCodeResult | None = None
    error: str | None = None

    @property
    def final(self) -> bool:
        return self.result is not None or self.error is not None


class LoopbackCallback:
    """A one-shot HTTP listener for the authorization redirect (enter it to listen)."""

    def __init__(self, port: int | None = None) -> None:
        self._wanted_port = port or 0
        self._listener: anyio.abc.Listener[anyio.abc.SocketStream] | None = None
        self.expected_state: str | None = None
        """The ``state`` the authorization request carried; set before the browser is sent."""
        self.refused = 0
        """How many redirects were refused (wrong state, wrong path)."""
        self._outcome: _Verdict | None = None
        self._done = anyio.Event()

    async def __aenter__(self) -> LoopbackCallback:
        self._listener = await anyio.create_tcp_listener(
            local_host="127.0.0.1", local_port=self._wanted_port
        )
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._listener is not None:
            await self._listener.aclose()
            self._listener = None

    @property
    def port(self) -> int:
        """The port listened on."""
        assert self._listener is not None, "the listener is not open"
        port: int = self._listener.extra(SocketAttribute.local_port)
        return port

    @property
    def redirect_uri(self) -> str:
        """The redirect URI to register and send: ``http://127.0.0.1:PORT/callback``."""
        return f"http://127.0.0.1:{self.port}{CALLBACK_PATH}"

    def offer(self, url: str) -> str | None:
        """Judge a redirect URL the user pasted; ``None`` when taken, else why it was refused."""
        verdict = self._judge(url)
        if verdict.final:
            self._finish(verdict)
            return None
        return "that is not the redirect of this login (wrong state or address)"

    async def wait(self, timeout: float = DEFAULT_LOGIN_TIMEOUT) -> AuthorizationCodeResult:
        """Serve until one valid redirect arrives; ``LoginError`` if denied or timed out."""
        assert self._listener is not None, "the listener is not open"
        with anyio.move_on_after(timeout):
            async with anyio.create_task_group() as group:
                group.start_soon(self._listener.serve, self._handle, group)
                await self._done.wait()
                group.cancel_scope.cancel()
        outcome = self._outcome
        if outcome is None:
            raise LoginError(
                f"no answer from the browser within {timeout:g} s: the login timed out "
                "(open the URL shown, or run the login again)"
            )
        if outcome.error is not None:
            raise LoginError(outcome.error)
        assert outcome.result is not None
        return outcome.result

    def _finish(self, verdict: _Verdict) -> None:
        if self._outcome is None:
            self._outcome = verdict
            self._done.set()

    async def _handle(self, stream: anyio.abc.SocketStream) -> None:
        async with stream:
            try:
                with anyio.fail_after(_READ_TIMEOUT):
                    head = await BufferedByteReceiveStream(stream).receive_until(
                        b"\r\n\r\n", _REQUEST_LIMIT
                    )
            except (TimeoutError, anyio.EndOfStream, anyio.DelimiterNotFound, OSError):
                return
            request_line = head.split(b"\r\n", 1)[0].decode("latin-1")
            parts = request_line.split(" ")
            if len(parts) != 3 or parts[0] != "GET":
                verdict = _Verdict(405, "Only the browser's redirect is expected here.")
            else:
                verdict = self._judge(parts[1])
            if not verdict.final:
                self.refused += 1
            with contextlib.suppress(anyio.BrokenResourceError, OSError):
                await stream.send(_response(verdict.status, verdict.page))
            if verdict.final:
                self._finish(verdict)

    def _judge(self, target: str) -> _Verdict:
        """What a redirect to ``target`` (a path with query, or a whole URL) amounts to."""
        parts = urlsplit(target)
        if parts.path != CALLBACK_PATH:
            return _Verdict(404, "Not the sign-in callback.")
        query = parse_qs(parts.query)
        state = _one(query, "state")
        expected = self.expected_state
        if state is None or expected is None or not secrets.compare_digest(state, expected):
            # Not ours (a stale tab, or a forged request): refuse it, keep waiting for ours.
            return _Verdict(400, "This sign-in response does not belong to the login in progress.")
        error = _one(query, "error")
        if error is not None:
            detail = _one(query, "error_description")
            reason = f"{error}: {detail}" if detail else error
            return _Verdict(
                200,
                "The sign-in was not completed. You can return to the terminal.",
                error=f"the authorization server refused the login ({reason[:200]})",
            )
        code = _one(query, "code")
        if not code:
            return _Verdict(400, "The sign-in response carries no authorization code.")
        result = AuthorizationCodeResult(code=code, state=state, iss=_one(query, "iss"))
        return _Verdict(
            200, "Signed in. You can close this tab and return to the terminal.", result
        )


def _one(query: dict[str, list[str]], name: str) -> str | None:
    values = query.get(name)
    return values[0] if values else None


def _response(status: int, message: str) -> bytes:
    reason = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed"}
    body = (
        "<!doctype html><meta charset=utf-8><title>agentty-tui</title>"
        f"<p>{html.escape(message)}</p>"
    ).encode()
    head = (
        f"HTTP/1.1 {status} {reason.get(status, 'Error')}\r\n"
        "Content-Type: text/html; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\n"
        "Cache-Control: no-store\r\n"
        "Connection: close\r\n\r\n"
    )
    return head.encode() + body
