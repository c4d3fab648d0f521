"""A 2026-07-28 host's answers to a server's questions: ``input_required`` rounds.

A 2026-07-28 host's connection carries no request of the gateway's own, so a form or a
``roots/list`` that a server asks during the host's call is put to the host the 2026-07-28
way: the call's answer is an ``InputRequiredResult`` naming the one question (under the key
``agentty``) with a ``requestState`` token, and the host calls the tool again with its answer
and that token. Meanwhile the server's call waits in a task of the host's serving
(``HostRounds.run``), its question unanswered; the host's next round answers it, and gets
the next question or the call's result.

- The token is random and known to this host's connection only: another host cannot answer.
- A host that does not come back within ``ROUND_TIMEOUT`` seconds, or that cancels its
  round, ends the server's call (the server hears ``notifications/cancelled``).
- A round whose token is unknown (answered twice, too late, after a restart) is refused with
  an ``isError`` result that says to call again.
- Progress of a call in rounds goes to the round that started it.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

import anyio
import anyio.abc
import mcp_types as types
from mcp.client.session import ClientRequestContext
from mcp.server.context import ServerRequestContext
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from agentty_tui.bridge.call_hooks import CallHooks

__all__ = ["KEY", "ROUND_TIMEOUT", "HostRounds"]

KEY = "agentty"
"""The key of the one question an ``InputRequiredResult`` of the gateway carries."""

ROUND_TIMEOUT = 300.0
"""Seconds a host has to come back with its answer before the server's call is ended."""

Question = types.ElicitRequest | types.ListRootsRequest
"""What a server's call may put to the host in a round."""


@dataclass(eq=False)
class _Asked:
    """One question of the server, waiting for the host's answer."""

    request: Question
    """The question, as the host's round gets it."""
    answered: anyio.Event = field(default_factory=anyio.Event)
    """Set once the host's next round brought an answer."""
    answer: object = None
    """That answer as the host gave it (checked by whoever asked)."""


@dataclass(eq=False)
class _Done:
    """The server's call ended: its result, or what it raised."""

    result: types.CallToolResult | None = None
    """The call's result, when it ended with one."""
    error: BaseException | None = None
    """What the call raised, when it did."""


@dataclass(eq=False)
class _Pending:
    """One host call in rounds: the server's call in a task, and what it says next."""

    scope: anyio.CancelScope
    """The server's call's scope: cancelled when the host gives up."""
    events: anyio.abc.ObjectReceiveStream[_Asked | _Done]
    """Its questions, then its end."""
    asked: _Asked | None = None
    """The question the host's last round was given."""


class HostRounds:
    """The calls of one 2026-07-28 host whose servers wait for its answers."""

    def __init__(self, timeout: float = ROUND_TIMEOUT) -> None:
        """``timeout``: seconds a host has to come back with an answer."""
        self._timeout = timeout
        self._pending: dict[str, _Pending] = {}
        self._group: anyio.abc.TaskGroup | None = None

    @staticmethod
    def wanted(ctx: ServerRequestContext[Any, Any]) -> bool:
        """Whether the host's call ``ctx`` is answered in rounds: a 2026-07-28 host that
        declared elicitation or roots, whose connection carries no request of ours."""
        session = ctx.session
        capabilities = session.client_capabilities
        if session.can_send_request or ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            return False
        return capabilities is not None and (
            capabilities.elicitation is not None or capabilities.roots is not None
        )

    async def run(
        self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """Hold the tasks of the calls in rounds until cancelled (which ends them)."""
        async with anyio.create_task_group() as group:
            self._group = group
            task_status.started()
            try:
                await anyio.sleep_forever()
            finally:
                self._group = None
                group.cancel_scope.cancel()

    async def call(
        self,
        ctx: ServerRequestContext[Any, Any],
        params: types.CallToolRequestParams,
        hooks: CallHooks,
        call: Callable[[CallHooks], Awaitable[types.CallToolResult]],
    ) -> types.CallToolResult | types.InputRequiredResult | None:
        """One round of the host's call: the first (``call`` starts the server's call with
        ``hooks`` whose questions become rounds) or an answer to the question of the round
        before (``params.request_state``). ``None``: an answer nobody waits for."""
        token = params.request_state
        if token is not None:
            pending = self._pending.pop(token, None)
            if pending is None or pending.asked is None:
                return None
            _answer(pending.asked, (params.input_responses or {}).get(KEY))
        else:
            pending = self._start(ctx, hooks, call)
        return await self._next(pending)

    def _start(
        self,
        ctx: ServerRequestContext[Any, Any],
        hooks: CallHooks,
        call: Callable[[CallHooks], Awaitable[types.CallToolResult]],
    ) -> _Pending:
        assert self._group is not None, "HostRounds.run is not running"
        send, receive = anyio.create_memory_object_stream[_Asked | _Done](1)
        scope = anyio.CancelScope()
        capabilities = ctx.session.client_capabilities
        elicits = capabilities is not None and capabilities.elicitation is not None
        roots = capabilities is not None and capabilities.roots is not None
        timeout = self._timeout

        async def ask(request: Question) -> object:
            asked = _Asked(request)
            await send.send(asked)
            with anyio.move_on_after(timeout):
                await asked.answered.wait()
                return asked.answer
            scope.cancel()  # the host never came back: the server's call ends
            await anyio.sleep_forever()  # (cancelled at once)
            raise AssertionError("unreachable")

        async def elicit(
            context: ClientRequestContext, params: types.ElicitRequestParams
        ) -> types.ElicitResult:
            answer = await ask(types.ElicitRequest(params=params))
            if isinstance(answer, types.ElicitResult):
                return answer
            return types.ElicitResult(action="decline")  # no answer, or one of another kind

        async def list_roots(context: ClientRequestContext) -> types.ListRootsResult:
            answer = await ask(types.ListRootsRequest())
            return (
                answer
                if isinstance(answer, types.ListRootsResult)
                else types.ListRootsResult(roots=[])
            )

        asking = replace(
            hooks,
            elicitation=elicit if elicits else hooks.elicitation,
            roots=list_roots if roots else hooks.roots,
        )

        async def run_call() -> None:
            async with send:
                with scope:
                    try:
                        done = _Done(result=await call(asking))
                    except Exception as exc:  # said to the round that waits, raised there
                        done = _Done(error=exc)
                    await send.send(done)

        self._group.start_soon(run_call)
        return _Pending(scope, receive)

    async def _next(self, pending: _Pending) -> types.CallToolResult | types.InputRequiredResult:
        """The server's next question as a round, or the call's result (or its error)."""
        try:
            event = await pending.events.receive()
        except anyio.EndOfStream:  # ended without a result: the host went quiet too long
            return types.CallToolResult(
                content=[types.TextContent(type="text", text="the call was ended: no answer came")],
                is_error=True,
            )
        except BaseException:
            pending.scope.cancel()  # the host cancelled its round: the server's call too
            raise
        if isinstance(event, _Done):
            if event.error is not None:
                raise event.error
            assert event.result is not None
            return event.result
        token = secrets.token_urlsafe(16)
        pending.asked = event
        self._pending[token] = pending
        return types.InputRequiredResult(input_requests={KEY: event.request}, request_state=token)


def _answer(asked: _Asked, response: object) -> None:
    asked.answer = response
    asked.answered.set()
