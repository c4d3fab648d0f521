"""What the daemon knows of an attached host: its requests in flight (``InFlight``), which
decide when a host being moved to another bridge has its connection ended."""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.shared.message import SessionMessage

from agentty_tui.gateway.daemon.registry import InFlight

pytestmark = pytest.mark.anyio


def request(number: int, method: str = "tools/call") -> SessionMessage:
    return SessionMessage(types.JSONRPCRequest(jsonrpc="2.0", id=number, method=method))


def answer(number: int) -> SessionMessage:
    return SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=number, result={}))


def cancelled(number: int) -> SessionMessage:
    params: dict[str, Any] = {"requestId": number}
    notice = types.JSONRPCNotification(
        jsonrpc="2.0", method="notifications/cancelled", params=params
    )
    return SessionMessage(notice)


async def none_in_flight(requests: InFlight) -> bool:
    """Whether ``until_none`` returns now."""
    with anyio.move_on_after(0.01):  # a bound on waiting for what should return at once
        await requests.until_none()
        return True
    return False


async def test_a_request_is_in_flight_until_answered_or_cancelled_and_a_listen_never_is() -> None:
    requests = InFlight()
    assert await none_in_flight(requests)
    requests.came(request(1, "subscriptions/listen"))  # a stream, asked again of a new daemon
    assert await none_in_flight(requests)
    requests.came(request(2))
    requests.came(request(3))
    assert not await none_in_flight(requests)
    requests.went(answer(2))
    assert not await none_in_flight(requests)
    requests.came(cancelled(3))  # the SDK sends a cancelled request no answer
    assert await none_in_flight(requests)
    requests.came(ValueError("a line that is not JSON"))
    assert await none_in_flight(requests)


async def test_the_counted_streams_note_what_passes() -> None:
    requests = InFlight()
    send_in, receive_in = anyio.create_memory_object_stream[SessionMessage | Exception](1)
    send_out, receive_out = anyio.create_memory_object_stream[SessionMessage](1)
    read, write = requests.counted(receive_in, send_out)
    async with send_in, receive_out, read, write:
        await send_in.send(request(7))
        assert await read.receive() == request(7)
        assert not await none_in_flight(requests)
        await write.send(answer(7))
        assert await receive_out.receive() == answer(7)
        assert await none_in_flight(requests)
