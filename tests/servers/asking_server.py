"""An MCP test server whose tools ask their client things mid-call, stdio.

Tools:
    count(steps)   -> reports ``notifications/progress`` ``1..steps`` (of ``steps``, with a
                      message) and returns ``"counted <steps>"``
    confirm()      -> sends ``elicitation/create`` (form mode) mid-call and returns
                      ``"<action> <JSON of the content>"``
    visit()        -> sends ``elicitation/create`` in URL mode (id ``visit-1``), and once
                      accepted ``notifications/elicitation/complete``; returns ``"<action>"``
                      (2025 handshake only: the 2026-07-28 era has no URL-mode round)
    authorize()    -> fails with ``-32042`` (URL elicitation required: id ``auth-1``)
    finish()       -> sends ``notifications/elicitation/complete`` for ``auth-1`` (not tied to
                      a call), returns ``"finished"``
    roots()        -> asks ``roots/list`` and returns the root URIs, one a line
    wait(marker)   -> reports one progress step, then waits until it is cancelled; on the
                      cancellation it writes ``cancelled`` to the file ``marker`` (so a test
                      sees that the server heard ``notifications/cancelled``)
    crawl(marker)  -> reports progress 2 of 5 (``"crawling page 2"``), then waits like ``wait``
    sample()       -> with ``--legacy``: sends ``sampling/createMessage`` whatever the client
                      declared, and returns ``"refused <code>: <message>"`` (or ``"sampled"``)
    roots_seen()   -> with ``--legacy``: how many ``notifications/roots/list_changed`` came,
                      then the roots it got by asking outside any call after the last one,
                      one a line (``"<count>"`` alone before any)

``--legacy`` refuses ``server/discover`` (``-32601``): a client in auto mode falls back to the
2025 handshake at once, where every request goes out mid-call or on its own, and URL mode works.

``confirm`` and ``roots`` ask through resolvers, so the SDK uses whichever way the negotiated
protocol has: a request mid-call up to 2025-11-25, an ``input_required`` round from 2026-07-28.

``--cancel-log FILE`` writes each ``notifications/cancelled`` that arrives to FILE, a line each
(its params as JSON), before the SDK acts on it.

Run: ``python tests/servers/asking_server.py [--legacy] [--cancel-log FILE]``. Only protocol is
written to stdout.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

import anyio
import anyio.abc
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context, Elicit, ElicitationResult, ListRoots, MCPServer, Resolve
from mcp.server.session import ServerSession
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError
from mcp.shared.message import SessionMessage
from pydantic import BaseModel, Field

from agentty_tui.bridge._sdk import lowlevel_server


class Confirmation(BaseModel):
    """The form ``confirm`` asks for."""

    proceed: bool = Field(default=False, description="go ahead?")
    note: str = Field(default="", description="anything to add")


class _Seen:
    """What ``roots_seen`` reports (one connection per process)."""

    changes = 0
    roots: tuple[str, ...] = ()


@asynccontextmanager
async def _lifespan(server: MCPServer) -> AsyncIterator[anyio.abc.TaskGroup]:
    # Asking for roots must not wait inside a notification handler (it runs in the reading
    # task, which the answer needs): a task of its own asks.
    async with anyio.create_task_group() as group:
        yield group
        group.cancel_scope.cancel()


async def _ask_roots(session: ServerSession) -> None:
    found = await session.send_request(types.ListRootsRequest(), types.ListRootsResult)
    _Seen.roots = tuple(str(root.uri) for root in found.roots)


def build_server(legacy: bool = False) -> MCPServer:
    """Build the server with its asking tools; ``legacy``: the 2025 handshake only."""
    server: MCPServer = MCPServer(
        "asking", version="1.0.0", log_level="WARNING", lifespan=_lifespan
    )
    if legacy:
        lowlevel = lowlevel_server(server)

        async def roots_changed(ctx: ServerRequestContext[Any, Any], params: Any) -> None:
            _Seen.changes += 1
            ctx.lifespan_context.start_soon(_ask_roots, ctx.session)

        lowlevel.add_notification_handler(
            "notifications/roots/list_changed", types.NotificationParams, roots_changed
        )

    @server.tool(description="How many roots changes came, then the roots asked after them.")
    async def roots_seen() -> str:
        return "\n".join((str(_Seen.changes), *_Seen.roots))

    @server.tool(description="Report progress steps, then return.")
    async def count(steps: int, ctx: Context) -> str:
        for step in range(1, steps + 1):
            await ctx.report_progress(step, steps, f"step {step}")
        return f"counted {steps}"

    @server.tool(description="Ask the user to confirm with a form.")
    async def confirm(
        answer: Annotated[ElicitationResult[Confirmation], Resolve(_confirmation)],
    ) -> str:
        data = answer.data.model_dump() if answer.action == "accept" else None
        return f"{answer.action} {json.dumps(data, sort_keys=True)}"

    @server.tool(description="Ask the user to open a page.")
    async def visit(ctx: Context) -> str:
        answer = await ctx.session.elicit_url(
            "Sign in to the thing",
            "https://example.com/sign-in",
            "visit-1",
            related_request_id=ctx.request_id,
        )
        if answer.action == "accept":  # as if the page was visited at once
            await ctx.session.send_elicit_complete("visit-1")
        return str(answer.action)

    @server.tool(description="Refuse until a page was visited (-32042).")
    async def authorize() -> str:
        page = types.ElicitRequestURLParams(
            message="Authorize the thing",
            url="https://example.com/authorize",
            elicitation_id="auth-1",
        )
        raise UrlElicitationRequiredError([page])

    @server.tool(description="Say that the page of authorize was visited.")
    async def finish(ctx: Context) -> str:
        await ctx.session.send_elicit_complete("auth-1")
        return "finished"

    @server.tool(description="Ask the client for its roots.")
    async def roots(found: Annotated[types.ListRootsResult, Resolve(_roots)]) -> str:
        return "\n".join(str(root.uri) for root in found.roots)

    @server.tool(description="Report one step, then wait until cancelled.")
    async def wait(marker: str, ctx: Context) -> str:
        await ctx.report_progress(1, None, "waiting")
        try:
            await anyio.sleep_forever()
        finally:
            with anyio.CancelScope(shield=True):  # the write must outlive the cancellation
                await anyio.Path(marker).write_text("cancelled")
        return "never"

    @server.tool(description="Report 2 of 5 steps, then wait until cancelled.")
    async def crawl(marker: str, ctx: Context) -> str:
        await ctx.report_progress(2, 5, "crawling page 2")
        try:
            await anyio.sleep_forever()
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.Path(marker).write_text("cancelled")
        return "never"

    @server.tool(description="Ask the client to sample, whatever it declared.")
    async def sample(ctx: Context) -> str:
        request = types.CreateMessageRequest(
            params=types.CreateMessageRequestParams(
                messages=[
                    types.SamplingMessage(
                        role="user", content=types.TextContent(type="text", text="hi")
                    )
                ],
                max_tokens=10,
            )
        )
        try:
            await ctx.session.send_request(request, types.CreateMessageResult)
        except MCPError as exc:
            return f"refused {exc.code}: {exc.error.message}"
        return "sampled"

    return server


def _confirmation() -> Elicit[Confirmation]:
    return Elicit("Proceed with the thing?", Confirmation)


def _roots() -> ListRoots:
    return ListRoots()


def _discover_refused(message: SessionMessage | Exception) -> SessionMessage | None:
    """The ``-32601`` answer to a ``server/discover`` request; ``None`` for anything else."""
    request = message.message if isinstance(message, SessionMessage) else None
    if not isinstance(request, types.JSONRPCRequest) or request.method != "server/discover":
        return None
    error = types.ErrorData(code=types.METHOD_NOT_FOUND, message="Method not found")
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=request.id, error=error))


async def _serve_screened(server: MCPServer, legacy: bool, cancel_log: str | None) -> None:
    """Serve stdio, seeing each message before the SDK: with ``legacy``, ``server/discover`` is
    answered ``-32601`` (the SDK's server would take it as the 2026-07-28 era); with
    ``cancel_log``, each ``notifications/cancelled`` is written to that file, a line each, as
    it arrives (proof that the client sent it, whatever the server does next)."""
    lowlevel = lowlevel_server(server)
    inbound, passed = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    async with stdio_server() as (read_stream, write_stream), anyio.create_task_group() as group:

        async def screen() -> None:
            async with inbound:
                async for message in read_stream:
                    request = message.message if isinstance(message, SessionMessage) else None
                    if (
                        cancel_log is not None
                        and isinstance(request, types.JSONRPCNotification)
                        and request.method == "notifications/cancelled"
                    ):
                        with open(cancel_log, "a") as log:  # noqa: ASYNC230 - a test's line
                            log.write(json.dumps(request.params) + "\n")
                    if (
                        legacy
                        and isinstance(request, types.JSONRPCRequest)
                        and request.method == "server/discover"
                    ):
                        error = types.ErrorData(
                            code=types.METHOD_NOT_FOUND, message="Method not found"
                        )
                        refused = types.JSONRPCError(jsonrpc="2.0", id=request.id, error=error)
                        await write_stream.send(SessionMessage(refused))
                    else:
                        await inbound.send(message)

        group.start_soon(screen)
        await lowlevel.run(passed, write_stream, lowlevel.create_initialization_options())
        group.cancel_scope.cancel()


def main() -> None:
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    words = sys.argv[1:]
    legacy = "--legacy" in words
    cancel_log = words[words.index("--cancel-log") + 1] if "--cancel-log" in words else None
    server = build_server(legacy)
    if legacy or cancel_log is not None:
        anyio.run(_serve_screened, server, legacy, cancel_log)
    else:
        server.run("stdio")


if __name__ == "__main__":
    main()
