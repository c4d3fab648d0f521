"""When a server's change notices count as noise: a sustained rate, not a burst.

A server that changes its tools sends ``tools/list_changed``; one that sends it without pause
is broken, and its row says so. A burst (a thousand notices within a second, after a big
change) is not noise: the re-lists are coalesced anyway. What is noise is a rate kept up, so
notices are counted per second and a server is noisy once ``NOISY_RATE`` or more came in each
of ``NOISY_SECONDS`` seconds in a row. Counting notices (rather than the re-lists they cause)
shows the mark within those few seconds, however slowly the server answers its re-lists. The
stdio transport counts the repeats it holds back too (``StdioTransport``), so a flood of
identical notices, read slower under its budget, still counts at the rate it was sent.
"""

from __future__ import annotations

import math

__all__ = ["NOISY_RATE", "NOISY_SECONDS", "NoticeRate"]

NOISY_RATE = 5
"""Notices within one second that make the second a busy one."""

NOISY_SECONDS = 3
"""Busy seconds in a row that make a server noisy."""


class NoticeRate:
    """Counts one server's change notices in one-second windows."""

    def __init__(self, rate: int = NOISY_RATE, seconds: int = NOISY_SECONDS) -> None:
        self.rate = rate
        """Notices in a window that make it busy."""
        self.seconds = seconds
        """Busy windows in a row that make the server noisy."""
        self._start = -math.inf  # when the current window began (its first notice)
        self._count = 0
        self._busy = 0  # busy windows in a row, the current one included once it is busy

    @property
    def noisy(self) -> bool:
        """True once the notices counted so far are noise (until a quiet second)."""
        return self._busy >= self.seconds

    def notice(self, now: float) -> bool:
        """Count a notice that came at ``now`` (seconds); True while the rate makes it noise."""
        if now - self._start >= 1.0:
            # A window that ended quiet, or a whole second without any notice, ends the run.
            if self._count < self.rate or now - self._start >= 2.0:
                self._busy = 0
            self._start, self._count = now, 0
        self._count += 1
        if self._count == self.rate:
            self._busy += 1
        return self.noisy
