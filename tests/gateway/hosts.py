"""A host's side of the gateway for the tests: the list changes it was told of, in either era."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import anyio.abc
import mcp_types as types
from mcp import Client
from mcp.client.session import IncomingMessage

MODES = ("legacy", "auto")
"""The two protocol eras a host may speak: the 2025 handshake, and 2026-07-28 (``auto`` with a
server that answers ``server/discover``, as the gateway does)."""


class Notices:
    """Counts the ``tools/list_changed`` a host got; ``until`` waits for a count."""

    def __init__(self) -> None:
        self.count = 0
        self.listening = False
        """Counted from a listen stream (2026-07-28), which the SDK also hands to the
        message handler: then that one does not count."""
        self._changed = anyio.Event()

    def seen(self) -> None:
        """One more notice."""
        self.count += 1
        changed, self._changed = self._changed, anyio.Event()
        changed.set()

    async def handler(self, message: IncomingMessage) -> None:
        """The client's message handler (the 2025 era delivers the notice here)."""
        if isinstance(message, types.ToolListChangedNotification) and not self.listening:
            self.seen()

    async def until(self, count: int, timeout: float = 15.0) -> None:
        """Wait until ``count`` notices came (``TimeoutError`` after ``timeout``)."""
        with anyio.fail_after(timeout):
            while self.count < count:
                await self._changed.wait()


@asynccontextmanager
async def listening(client: Client, notices: Notices) -> AsyncIterator[None]:
    """In the 2026-07-28 era, hold a ``subscriptions/listen`` stream counting into
    ``notices`` (in the 2025 era the message handler counts)."""
    if client.protocol_version != "2026-07-28":
        yield
        return
    notices.listening = True
    async with anyio.create_task_group() as group:

        async def follow(*, task_status: anyio.abc.TaskStatus[None]) -> None:
            async with client.listen(tools_list_changed=True) as subscription:
                task_status.started()
                async for _ in subscription:
                    notices.seen()

        await group.start(follow)
        yield
        group.cancel_scope.cancel()


async def cancel_a_waiting_call(host: Client, server: str, marker: Path) -> None:
    """Call ``wait`` of ``server``, cancel it once its progress came (the host's SDK cancels
    the way its era does), and wait until the server says it heard the cancellation (its
    marker file: no event to wait on, polled); the host then calls on."""
    started = anyio.Event()

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        started.set()

    with anyio.fail_after(60):
        async with anyio.create_task_group() as group:

            async def call() -> None:
                arguments = {"marker": str(marker)}
                await host.call_tool(f"{server}__wait", arguments, progress_callback=progress)

            group.start_soon(call)
            await started.wait()
            group.cancel_scope.cancel()
        while not await anyio.Path(marker).exists():  # noqa: ASYNC110 - a file, no event
            await anyio.sleep(0.02)
    assert await anyio.Path(marker).read_text() == "cancelled"
    counted = await host.call_tool(f"{server}__count", {"steps": 1})
    assert counted.content == [types.TextContent(type="text", text="counted 1")]
