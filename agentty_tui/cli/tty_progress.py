"""``call``'s progress on a terminal: one line on stderr, drawn again at each report.

A server's ``notifications/progress`` for the call are drawn as ``call_progress.progress_line``
says them, over the previous line (carriage return, then erase to the line's end), cut to the
terminal's width so that it never wraps; ``tick`` draws the latest report again every second,
so the time the call has run keeps counting between reports. Only on a terminal: ``cmd_call``
passes none when stderr is a file or a pipe, where a script reads it. ``clear`` erases the line
before anything else is written (the result, an error, a question of the server's).
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Awaitable, Callable
from typing import TextIO

import anyio

from agentty_tui.call_progress import CallProgress, progress_line

__all__ = ["TerminalProgress"]

_ERASE = "\r\x1b[K"
"""Back to the line's start and erase it (our own control sequence, never the server's)."""


class TerminalProgress:
    """A call's progress callback that draws one updating line on a terminal."""

    def __init__(
        self,
        label: str,
        out: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
        columns: Callable[[], int] = lambda: shutil.get_terminal_size().columns,
    ) -> None:
        """``label``: what is called (``server / tool``, safe already); ``out``: the
        terminal (stderr by default); ``columns``: its width now."""
        self._label = label
        self._out = out
        self._clock = clock
        self._columns = columns
        self._started = clock()
        self._drawn = False
        self._latest: CallProgress | None = None

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        """Draw the report (the SDK's progress callback)."""
        self._latest = CallProgress(progress, total, message)
        self._draw()

    async def tick(
        self, interval: float = 1.0, sleep: Callable[[float], Awaitable[None]] = anyio.sleep
    ) -> None:
        """Until cancelled: every ``interval`` seconds (``sleep``: how to wait them), draw the
        drawn report again (its time run counts on); nothing while none is drawn (none came,
        or the line was cleared)."""
        while True:
            await sleep(interval)
            if self._drawn:
                self._draw()

    def _draw(self) -> None:
        if self._latest is None:
            return
        line = f"{self._label}: " + progress_line(self._latest, self._clock() - self._started)
        width = max(10, self._columns() - 1)  # the last column would wrap on some terminals
        if len(line) > width:
            line = line[: width - 1] + "…"
        self._write(_ERASE + line)
        self._drawn = True

    def clear(self) -> None:
        """Erase the line, if one is drawn."""
        if self._drawn:
            self._write(_ERASE)
            self._drawn = False

    def _write(self, text: str) -> None:
        out = self._out or sys.stderr
        out.write(text)
        out.flush()
