"""Failure text: why a server could not be reached, stopped answering or ended, in one sentence.

Every text a user reads about a failed server or call is made here: the session only decides
which one applies (and adds the stderr tail, scrubbed).

The mcp SDK raises through nested task groups, so the interesting error arrives wrapped in
``ExceptionGroup`` layers; ``root_cause`` digs it out.

The description is made from the config as written (``config.spec`` is the template, before any
``${VAR}`` expansion), with URLs masked, and so is every URL the exception's own text quotes
(``mask_urls``: a redirect's or a metadata document's URL may carry a token too); exception text
that may quote the expanded values is scrubbed by the session's ``Redactor`` before the message
is shown or logged.
"""

from __future__ import annotations

import errno

import anyio
import httpx2
from mcp.shared.exceptions import MCPError

from agentty_tui.bridge import stdio
from agentty_tui.bridge.http import HttpTransport
from agentty_tui.bridge.stdio import StdioTransport
from agentty_tui.model import HttpSpec, ServerConfig, StdioSpec
from agentty_tui.secrets import mask_url, mask_urls

__all__ = [
    "EXIT_STATUS_WAIT",
    "authorization_failure",
    "call_failed",
    "connect_timeout",
    "describe_failure",
    "exit_message",
    "exit_text",
    "failure_text",
    "login_hint",
    "missing_cwd",
    "not_connected",
    "observed_failure",
    "root_cause",
    "see_exit",
]


def root_cause(exc: BaseException) -> BaseException:
    """The first leaf of nested exception groups (the error that started the unwinding)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def login_hint(name: str, reason: str | None = None) -> str:
    """What a server that wants an OAuth login says in its error (and why, when known)."""
    why = f" ({reason})" if reason else ""
    return f"needs login{why}: run agentty-tui login {name}"


def authorization_failure(failure: BaseException) -> str:
    """What an OAuth flow that failed on a connection says (the SDK's text quotes the URLs of
    the server and its metadata, masked here)."""
    return mask_urls(f"authorization failed: {failure}")


def _asks_for_bearer(cause: BaseException) -> bool:
    if not isinstance(cause, httpx2.HTTPStatusError):
        return False
    challenge = cause.response.headers.get("www-authenticate", "")
    return challenge.strip().lower().startswith("bearer")


def describe_failure(
    exc: BaseException,
    config: ServerConfig,
    *,
    http_status: int | None = None,
    bearer_challenge: bool = False,
) -> str:
    """Why ``config``'s server could not be reached or stopped answering, in plain words.

    ``http_status`` is the last error status a URL server answered with, when known;
    ``bearer_challenge`` whether its last 401 asked for a Bearer token (an OAuth login).
    Every URL in the text is masked, the ones the exception quotes included.
    """
    return mask_urls(_described(exc, config, http_status, bearer_challenge))


def _described(
    exc: BaseException, config: ServerConfig, http_status: int | None, bearer_challenge: bool
) -> str:
    cause = root_cause(exc)
    spec = config.spec
    if isinstance(spec, StdioSpec):
        if isinstance(cause, FileNotFoundError):
            return f"command not found: {spec.command!r} (is it installed and on PATH?)"
        if isinstance(cause, PermissionError) or (
            isinstance(cause, OSError) and cause.errno == errno.EACCES
        ):
            return f"command is not executable: {spec.command!r}"
    if isinstance(spec, HttpSpec):
        url = mask_url(spec.url)
        if isinstance(cause, httpx2.ConnectError):
            return f"cannot connect to {url}: {str(cause) or 'connection refused'}"
        code = cause.response.status_code if isinstance(cause, httpx2.HTTPStatusError) else None
        code = code or http_status
        if code is not None:
            if code == 401 and (bearer_challenge or _asks_for_bearer(cause)):
                # An OAuth server: the fix is a login, not an edit of the headers, unless the
                # config carries the token itself.
                if any(key.lower() == "authorization" for key in spec.headers):
                    return f"{url} answered HTTP 401: it refused the configured bearer token"
                return f"{url} answered HTTP 401: {login_hint(config.name)}"
            auth = code in (401, 403)
            hint = " (check the headers: is a token missing or expired?)" if auth else ""
            return f"{url} answered HTTP {code}{hint}"
    if isinstance(cause, TimeoutError):
        return f"no answer within {config.request_timeout:g} s (request timeout)"
    if isinstance(cause, MCPError):
        text = str(cause) or cause.__class__.__name__
        if "timed out" in text.lower():
            return f"no answer within {config.request_timeout:g} s (request timeout)"
        return f"protocol error: {text}"
    text = str(cause).strip()
    name = cause.__class__.__name__
    return f"{name}: {text}" if text else name


# --- Why a session ended, in words a user can act on: exit statuses, cut lines, refusals.
#
# The session adds the server's stderr tail under these texts and scrubs what ``${VAR}``
# expansion put in (``ServerSession._with_tail``); the texts here are made from the transport's
# own observations first, since they say far more than the exception the SDK raised.

EXIT_STATUS_WAIT = 0.5
"""After stdout ends, how long to wait for the exit status before reporting without it."""


def observed_failure(transport: StdioTransport | None, http: HttpTransport | None) -> str | None:
    """Why the connection failed as the transport saw it (a cut line, an exit, a refused
    response), or ``None`` when it saw nothing that says more than the exception."""
    if transport is not None and transport.line_too_long:
        return line_too_long()
    if transport is not None and transport.gone_by_itself:
        code = transport.returncode
        if code is not None:
            return exit_text(code)
    if http is not None and http.refused is not None:
        return http.refused
    return None


def failure_text(exc: BaseException, config: ServerConfig, http: HttpTransport | None) -> str:
    """What ``exc`` means for the server of ``config`` (with the HTTP status it answered)."""
    status = http.error_status if http is not None else None
    bearer = http is not None and http.bearer_challenge
    return describe_failure(exc, config, http_status=status, bearer_challenge=bearer)


async def exit_message(transport: StdioTransport) -> str:
    """Why a stdio server whose output ended is gone (waits a moment for its exit status
    and for the rest of its stderr)."""
    if transport.line_too_long:
        return line_too_long()
    with anyio.move_on_after(EXIT_STATUS_WAIT):
        # No event fires on exit; the exit status is only observable by polling.
        while transport.returncode is None:  # noqa: ASYNC110
            await anyio.sleep(0.01)
    code = transport.returncode
    text = exit_text(code) if code is not None else "closed its output and stopped answering"
    await transport.stderr_drained(EXIT_STATUS_WAIT)
    return text


async def see_exit(transport: StdioTransport) -> None:
    """Give a stdio server whose connection closed under a call a moment to be reaped.

    Its exit status says why far better than "Connection closed", and it is known only
    once the end of its output has been read and the process waited for.
    """
    with anyio.move_on_after(EXIT_STATUS_WAIT):
        await transport.ended.wait()
        while transport.returncode is None:  # noqa: ASYNC110 - no event fires on exit
            await anyio.sleep(0.01)


def line_too_long() -> str:
    """The text of a server cut off for a line over ``stdio.MAX_LINE``."""
    limit = stdio.MAX_LINE  # read now: a test may lower it
    size = f"{limit / 2**20:g} MiB" if limit >= 2**20 else f"{limit} bytes"
    return f"the server sent a line of more than {size}; the connection was closed"


def exit_text(code: int) -> str:
    """The text of an exit status (negative: the signal that killed the process)."""
    if code < 0:
        return f"the server was killed by signal {-code}"
    return f"the server exited with status {code}"


def missing_cwd(cwd: str) -> str:
    """The text of a stdio server whose working directory does not exist."""
    return f"working directory {cwd!r} does not exist"


def connect_timeout(timeout: float) -> str:
    """The text of a server that neither connected nor failed within ``timeout`` seconds."""
    return f"timed out after {timeout:g} s while connecting"


def not_connected(name: str, status: str, error: str | None) -> str:
    """Why a call to server ``name`` was not sent: its status, and its error if it has one."""
    why = f": {error}" if error else ""
    return f"server {name!r} is not connected ({status}{why})"


def call_failed(tool: str, name: str, message: str) -> str:
    """The text of a call of ``tool`` on server ``name`` that failed with ``message``."""
    return f"calling {tool!r} on {name!r} failed: {message}"
