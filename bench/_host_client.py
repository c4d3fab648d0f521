"""What the gateway benchmarks measure from the host's side: a call's time and the arrival of
each ``tools/list_changed``."""

from __future__ import annotations

import time
from typing import Any

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.session import IncomingMessage


class Notices:
    """When each ``tools/list_changed`` arrived (``time.perf_counter``)."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self._changed = anyio.Event()

    async def handler(self, message: IncomingMessage) -> None:
        """The client's message handler: note a ``tools/list_changed``."""
        if isinstance(message, types.ToolListChangedNotification):
            self.times.append(time.perf_counter())
            changed, self._changed = self._changed, anyio.Event()
            changed.set()

    async def next_after(self, count: int, timeout: float = 20.0) -> float:
        """The time of notice number ``count + 1``."""
        with anyio.fail_after(timeout):
            while len(self.times) <= count:
                await self._changed.wait()
        return self.times[count]


async def timed_call(client: Client, name: str, arguments: dict[str, Any]) -> float:
    """Seconds one call of ``name`` took; the call must not report an error."""
    start = time.perf_counter()
    result = await client.call_tool(name, arguments)
    elapsed = time.perf_counter() - start
    assert not result.is_error, result
    return elapsed


def params(argv: list[str], env: dict[str, str]) -> StdioServerParameters:
    """How the benchmark's client starts ``argv`` over stdio, in ``env``."""
    return StdioServerParameters(command=argv[0], args=argv[1:], env=env)
