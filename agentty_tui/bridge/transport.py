"""The shape both of our transports share: an object the mcp ``Client`` enters and exits.

A transport keeps state a supervisor reads (a PID, an exit status, the last HTTP error), so it
is an object rather than a bare context manager; its connection itself is written as one
``_connect`` async context manager, entered and exited in the client's task.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from types import TracebackType
from typing import Any

__all__ = ["ManagedTransport"]


class ManagedTransport:
    """Base of a transport whose connection is the context manager returned by ``_connect``."""

    _context: AbstractAsyncContextManager[Any] | None = None

    def _connect(self) -> AbstractAsyncContextManager[Any]:
        """Open the connection; yields the (read, write) streams the mcp ``Client`` uses."""
        raise NotImplementedError

    async def __aenter__(self) -> Any:
        self._context = self._connect()
        return await self._context.__aenter__()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        assert self._context is not None, "the transport was not entered"
        return await self._context.__aexit__(exc_type, exc, tb)
