"""A host's side of the gateway for the tests: the list changes it was told of, in either era."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

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
