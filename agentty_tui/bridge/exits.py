"""Why a session ended, in words a user can act on: exit statuses, cut lines, refusals.

The session adds the server's stderr tail under these texts and scrubs what ``${VAR}``
expansion put in (``ServerSession._with_tail``); the texts here are made from the transport's
own observations first, since they say far more than the exception the SDK raised.
"""

from __future__ import annotations

import anyio

from agentty_tui.bridge import stdio
from agentty_tui.bridge.errors import describe_failure
from agentty_tui.bridge.http import HttpTransport
from agentty_tui.bridge.stdio import StdioTransport
from agentty_tui.model import ServerConfig

__all__ = [
    "EXIT_STATUS_WAIT",
    "exit_message",
    "exit_text",
    "failure_text",
    "observed_failure",
    "see_exit",
]

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
