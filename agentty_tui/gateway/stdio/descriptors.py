"""The host's pipe as non-blocking descriptors: claimed for the protocol, read, written.

Claimed as the SDK claims them: the protocol is served from private duplicates of descriptors
0 and 1, and while it is served descriptor 0 reads the null device and 1 writes to stderr, so
nothing else in the process (a library's stray print) or started by it can read the host's
requests or write into its responses; both are put back on the way out. Reading and writing
wait on the event loop, never in a thread. Nothing here knows MCP: ``serve --shared`` relays
bytes with it without importing the SDK, and ``stdio`` reads messages through it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator, Iterator

import anyio

__all__ = ["MAX_LINE", "host_descriptors", "read_chunks", "write_all"]

MAX_LINE = 64 * 1024 * 1024
"""The longest line a host may send (the bridge's own bound for a server's lines)."""

_CHUNK = 1 << 16


def _claim(descriptor: int, flags: int, target: str | int) -> int:
    """A non-blocking private duplicate of ``descriptor``, which now points at ``target``
    (a path opened with ``flags``, or another descriptor)."""
    private = os.dup(descriptor)  # close-on-exec: no child inherits the host's pipe
    diversion = os.open(target, flags) if isinstance(target, str) else os.dup(target)
    try:
        os.dup2(diversion, descriptor)
    finally:
        os.close(diversion)
    os.set_blocking(private, False)
    return private


def _give_back(descriptor: int, private: int) -> None:
    with contextlib.suppress(OSError):
        os.set_blocking(private, True)
        os.dup2(private, descriptor)
    with contextlib.suppress(OSError):
        os.close(private)


@contextlib.contextmanager
def host_descriptors() -> Iterator[tuple[int, int]]:
    """``(wire_in, wire_out)``: private non-blocking duplicates of stdin and stdout, claimed
    for the protocol (0 reads the null device and 1 writes to stderr meanwhile), given back
    on the way out."""
    wire_in = _claim(0, os.O_RDONLY, os.devnull)
    try:
        wire_out = _claim(1, os.O_WRONLY, 2)
    except BaseException:
        _give_back(0, wire_in)
        raise
    try:
        yield wire_in, wire_out
    finally:
        _give_back(1, wire_out)
        _give_back(0, wire_in)


async def read_chunks(descriptor: int) -> AsyncIterator[bytes]:
    """What the non-blocking ``descriptor`` gives, chunk by chunk, until its end (or an
    error: the other side is gone)."""
    while True:
        try:
            chunk = os.read(descriptor, _CHUNK)
        except BlockingIOError:
            await anyio.wait_readable(descriptor)
            continue
        except OSError:
            return
        if not chunk:
            return
        yield chunk


async def write_all(descriptor: int, data: bytes) -> bool:
    """Write all of ``data`` to the non-blocking ``descriptor``; ``False`` when the other side
    closed its end (nobody reads what follows)."""
    while data:
        try:
            written = os.write(descriptor, data)
        except BlockingIOError:
            await anyio.wait_writable(descriptor)
            continue
        except OSError:
            return False
        data = data[written:]
    return True
