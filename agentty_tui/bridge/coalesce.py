"""Serialized, coalesced runs of one job (the bridge's reload).

One run at a time; every request that arrives while a run is under way is served by the one
next run, however many such requests there are, and each gets that run's result.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

import anyio

__all__ = ["Coalescer"]

T = TypeVar("T")


class Coalescer(Generic[T]):
    """Runs ``job`` for requests, one run at a time, a run serving every request before it."""

    def __init__(self, job: Callable[[], Awaitable[T]]) -> None:
        self.runs = 0
        """How many runs actually happened (coalesced requests do not count)."""
        self._job = job
        self._lock = anyio.Lock()
        self._requested = 0
        self._done = 0
        self._last: T | None = None

    async def request(self) -> T:
        """The result of the first run that starts after this request (a run under way when
        it arrives is waited for, then one more serves it and everything queued behind it)."""
        self._requested += 1
        ticket = self._requested
        async with self._lock:
            if self._done >= ticket and self._last is not None:
                return self._last
            target = self._requested
            try:
                self.runs += 1
                self._last = await self._job()
            finally:
                self._done = target
        return self._last
