"""The rounds of a 2026-07-28 host's call: a host that never answers, or cancels its round,
ends the server's call (the host's rounds with real servers: ``test_host_requests.py``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import SimpleNamespace
from typing import Any, cast

import anyio
import mcp_types as types
import pytest
from mcp.server.context import ServerRequestContext

from agentty_tui.bridge.call_hooks import CallHooks
from agentty_tui.gateway.host.rounds import KEY, HostRounds

pytestmark = pytest.mark.anyio

FORM = types.ElicitRequestFormParams(message="ok?", requested_schema={"type": "object"})


def context() -> ServerRequestContext[Any, Any]:
    """What the rounds read of a host's call: its declared capabilities."""
    capabilities = types.ClientCapabilities(elicitation=types.ElicitationCapability())
    found = SimpleNamespace(session=SimpleNamespace(client_capabilities=capabilities))
    return cast("ServerRequestContext[Any, Any]", found)


class Server:
    """A server's call that asks one form, and says whether it was cancelled."""

    def __init__(self) -> None:
        self.cancelled = anyio.Event()

    async def call(self, hooks: CallHooks) -> types.CallToolResult:
        assert hooks.elicitation is not None
        try:
            answer = await hooks.elicitation(cast(Any, None), FORM)
        except anyio.get_cancelled_exc_class():
            self.cancelled.set()
            raise
        assert isinstance(answer, types.ElicitResult)
        return types.CallToolResult(content=[types.TextContent(type="text", text=answer.action)])


@asynccontextmanager
async def running(rounds: HostRounds) -> AsyncIterator[None]:
    async with anyio.create_task_group() as group:
        await group.start(rounds.run)
        yield
        group.cancel_scope.cancel()


def params(state: str | None = None, action: str | None = None) -> types.CallToolRequestParams:
    responses = None if action is None else {KEY: types.ElicitResult(action=action)}
    return types.CallToolRequestParams(
        name="s__t", arguments={}, request_state=state, input_responses=responses
    )


async def test_a_question_is_a_round_and_the_answer_ends_the_call() -> None:
    rounds, server = HostRounds(), Server()
    with anyio.fail_after(10):
        async with running(rounds):
            first = await rounds.call(context(), params(), CallHooks(), server.call)
            assert isinstance(first, types.InputRequiredResult)
            assert first.input_requests == {KEY: types.ElicitRequest(params=FORM)}
            state = first.request_state
            assert state is not None
            last = await rounds.call(context(), params(state, "decline"), CallHooks(), server.call)
            assert isinstance(last, types.CallToolResult)
            assert last.content == [types.TextContent(type="text", text="decline")]
            # The same token again: nobody waits for it.
            again = await rounds.call(context(), params(state, "accept"), CallHooks(), server.call)
            assert again is None


async def test_a_host_that_never_answers_ends_the_servers_call() -> None:
    rounds, server = HostRounds(timeout=0.2), Server()
    with anyio.fail_after(10):
        async with running(rounds):
            first = await rounds.call(context(), params(), CallHooks(), server.call)
            assert isinstance(first, types.InputRequiredResult)
            await server.cancelled.wait()


async def test_a_host_cancelling_its_round_ends_the_servers_call() -> None:
    rounds = HostRounds()
    started, cancelled = anyio.Event(), anyio.Event()

    async def slow(hooks: CallHooks) -> types.CallToolResult:
        started.set()
        try:
            await anyio.sleep_forever()
        finally:
            cancelled.set()
        raise AssertionError("unreachable")

    with anyio.fail_after(10):
        async with running(rounds):
            async with anyio.create_task_group() as group:
                group.start_soon(rounds.call, context(), params(), CallHooks(), slow)
                await started.wait()
                group.cancel_scope.cancel()
            await cancelled.wait()  # while the rounds still run: the round's cancel did it
