"""When the gateway daemon leaves: ``idle`` seconds after its last attachment ended, or at
once when nobody can reach it any more.

**Idle.** Every connection is counted while it is open (a host is not left alone while its
bridge opens, nor a probe cut off mid-answer), but only an attachment (a host or a picker the
daemon said ``ok`` to) restarts the idle time when it ends. A connection that only looks (a
starting ``serve`` probing for a daemon, ``agentty-tui status``, an attachment refused) leaves
the time as it was: else something that looks every few seconds (``watch agentty-tui status``)
would keep the daemon, and its servers, forever. Before its first attachment the daemon waits
at least ``START_GRACE`` seconds, whatever ``idle`` says: the ``serve`` that started it attaches
next, and on a loaded machine that may take longer than a short idle time (a daemon that left
first made that ``serve`` start a second one).

**Unreachable.** The daemon is reached only through its socket's path. When that path is gone
(the runtime folder cleaned, the file deleted) or is another socket (another daemon listens
there now), no host, picker or ``status`` can reach this daemon again, and a host that comes
starts another one: this one leaves at once, attached or not, stopping its servers; each of
its hosts' ``serve`` finds the daemon at the path (or starts one) as it does when a daemon dies.
No event says that a path changed (the stdlib has no inotify): it is looked at every
``CHECK_EVERY`` seconds, one ``stat``.

**A host that hung up.** An attachment ends when its peer shuts its side (``until_hung_up``),
also while the daemon is not reading it: a host's first request waits for its servers
(``--wait``) before a byte of it is read, and a host that leaves meanwhile would otherwise
hold the daemon until they connected or timed out. The kernel says it without a byte being
read (``POLLRDHUP``), looked at every ``CHECK_EVERY`` seconds.
"""

from __future__ import annotations

import contextlib
import os
import select
import socket
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import anyio

__all__ = ["CHECK_EVERY", "START_GRACE", "Lifetime", "Visit", "until_either", "until_hung_up"]

CHECK_EVERY = 1.0
"""Seconds between two looks at the socket's path."""

START_GRACE = 10.0
"""Seconds a new daemon waits for its first attachment at least (see the module docstring)."""

IDLE = "idle"
"""Why the daemon leaves: no attachment for ``idle`` seconds."""

UNREACHABLE = "unreachable"
"""Why the daemon leaves: its socket's path is gone or another socket's."""


class Visit:
    """One connection while it is open; ``attach`` once it is an attachment."""

    def __init__(self) -> None:
        self.attached = False
        """Whether the daemon accepted it as a host or a picker (its end restarts the idle
        time)."""

    def attach(self) -> None:
        """Say that the connection is an attachment from now on."""
        self.attached = True


def _identity(path: Path) -> tuple[int, int] | None:
    """Which file ``path`` is (its device and inode), ``None`` when there is none."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino


class Lifetime:
    """The daemon's open connections, its last attachment's end, and its socket's path."""

    def __init__(
        self, idle: float, socket: Path, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        """``socket``: the path the daemon listens at, bound already (the file it is now is
        the daemon's own)."""
        self._idle = idle
        self._socket = socket
        self._own = _identity(socket)
        self._clock = clock
        self._open = 0
        # The daemon's start stands for a last attachment's end, moved so that the first
        # attachment has START_GRACE seconds at least.
        self._left = clock() + max(0.0, START_GRACE - idle)
        self._moved = anyio.Event()

    @property
    def idle(self) -> float:
        """Seconds without an attachment before the daemon leaves (a bridge without one is
        closed after as long)."""
        return self._idle

    @property
    def open(self) -> int:
        """How many connections are open now (attached, attaching or looking)."""
        return self._open

    def _changed(self) -> None:
        self._moved.set()
        self._moved = anyio.Event()

    @contextlib.contextmanager
    def visit(self) -> Iterator[Visit]:
        """Count one connection while the block runs; the daemon does not leave for idleness
        meanwhile. When the block ends, the idle time restarts if it was an attachment."""
        visit = Visit()
        self._open += 1
        self._changed()
        try:
            yield visit
        finally:
            self._open -= 1
            if visit.attached:
                self._left = self._clock()
            self._changed()

    def reachable(self) -> bool:
        """Whether the socket's path is still the socket the daemon listens on."""
        return self._own is not None and _identity(self._socket) == self._own

    async def until_leaving(self) -> str:
        """Return when the daemon is to leave: ``IDLE`` or ``UNREACHABLE``."""
        while True:
            if not self.reachable():
                return UNREACHABLE
            wait = CHECK_EVERY
            if not self._open:
                remaining = self._left + self._idle - self._clock()
                if remaining <= 0:
                    return IDLE
                wait = min(wait, remaining)
            with anyio.move_on_after(wait):
                await self._moved.wait()


_HUNG_UP = getattr(select, "POLLRDHUP", 0) | select.POLLHUP | select.POLLERR
"""What ``poll`` says of a connection whose peer shut its side or closed it."""


async def until_either(*waits: Awaitable[None]) -> None:
    """Await ``waits`` together until the first of them returns; the others are cancelled
    (an attachment served until it ends or its host hangs up, or until the daemon ends it)."""
    async with anyio.create_task_group() as group:

        async def run(wait: Awaitable[None]) -> None:
            await wait
            group.cancel_scope.cancel()

        for wait in waits:
            group.start_soon(run, wait)


async def until_hung_up(connection: socket.socket) -> None:
    """Return once the peer of ``connection`` has shut its side (or closed it), whatever it
    sent before that is still unread; never where the system cannot say (no ``POLLRDHUP``)."""
    if not hasattr(select, "POLLRDHUP"):
        await anyio.sleep_forever()
    poller = select.poll()
    poller.register(connection.fileno(), _HUNG_UP)
    # asyncio waits for readable, not for a hang-up behind unread bytes: looked at, then.
    while not any(events & _HUNG_UP for _fd, events in poller.poll(0)):  # noqa: ASYNC110
        await anyio.sleep(CHECK_EVERY)
