"""Reading a child's pipes: lines out of chunks, and a per-second allowance of bytes.

The transport reads a server's stdout and stderr itself (not through the SDK) to bound what a
hostile server costs: a line over a size cap ends the connection instead of growing a buffer,
and a flood of bytes is read slower instead of taking a whole CPU.
"""

from __future__ import annotations

import math

import anyio
import anyio.abc

__all__ = ["LineSplitter", "RateBudget", "receive", "size_text"]


class LineSplitter:
    """Splits a byte stream, chunk by chunk, into newline-terminated lines up to ``limit`` bytes.

    The unfinished line is kept as a list of chunks: each byte is copied once when its line is
    complete, and only new chunks are searched for the newline (linear in the line).
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        """The longest unfinished line accepted, in bytes."""
        self._pending: list[bytes] = []
        self._pending_size = 0

    def feed(self, chunk: bytes) -> list[bytes] | None:
        """The lines ``chunk`` completes (none while a line goes on); None once over the limit."""
        parts = chunk.split(b"\n")
        if self._pending_size + len(parts[0]) > self.limit:
            return None
        if len(parts) == 1:
            self._pending.append(chunk)
            self._pending_size += len(chunk)
            return []
        self._pending.append(parts[0])
        lines = [b"".join(self._pending), *parts[1:-1]]
        self._pending = [parts[-1]]
        self._pending_size = len(parts[-1])
        return lines


class RateBudget:
    """A per-second allowance of bytes; going over it waits for the next second."""

    def __init__(self, per_second: int) -> None:
        self.per_second = per_second
        self._start = -math.inf
        self._used = 0

    def charge(self, amount: int) -> None:
        """Count ``amount`` bytes against the current second."""
        now = anyio.current_time()
        if now - self._start >= 1.0:
            self._start, self._used = now, 0
        self._used += amount

    async def spend(self, amount: int) -> bool:
        """Charge ``amount``; if the second's allowance is gone, wait for the next (True)."""
        self.charge(amount)
        if self._used <= self.per_second:
            return False
        await anyio.sleep(self._start + 1.0 - anyio.current_time())
        self._start, self._used = anyio.current_time(), 0
        return True


async def receive(stream: anyio.abc.ByteReceiveStream) -> bytes | None:
    """The next chunk of ``stream``, or None at its end."""
    try:
        return await stream.receive()
    except anyio.EndOfStream:
        return None


def size_text(count: int) -> str:
    """A byte count for a log note: in MiB from one MiB up."""
    return f"{count / 2**20:g} MiB" if count >= 2**20 else f"{count} bytes"
