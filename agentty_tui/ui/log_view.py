"""The log viewer: the end of one server's log, followed as it grows (``l`` on a server row).

The log holds the server's stderr and our notes about it, each line with its time
(``bridge/logs.py``). The viewer reads the file's end when it opens, then polls it for what was
appended: a log is a plain file, and no event says it grew. A rotated log (renamed to
``.log.1`` at its cap) is noticed by its inode or its size, and read afresh from its start.

Everything in a log came from a server, so it is shown as ``PlainText``: no markup, every
control visible. Only so much is kept on screen: the last ``SHOWN_LINES`` lines, each cut at
``LINE_CHARS`` characters (a server may write a megabyte without a newline).
"""

from __future__ import annotations

import os
from collections import deque
from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static

from agentty_tui.ui.dialogs import Dialog
from agentty_tui.ui.text import PlainText

__all__ = ["LINE_CHARS", "POLL_SECONDS", "SHOWN_LINES", "TAIL_BYTES", "LogTail", "LogViewScreen"]

TAIL_BYTES = 256 * 1024
"""How much of the log's end is read at most at once (when it opens, or after a flood)."""

SHOWN_LINES = 400
"""Lines the viewer keeps on screen; older ones scroll away for good."""

LINE_CHARS = 240
"""Characters of one line shown; the rest of a longer line is left out with a mark."""

POLL_SECONDS = 0.25
"""How often the file is looked at for new lines."""


class LogTail:
    """The lines appended to one log file since the last read (no Textual: tested alone)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._inode: int | None = None
        self._offset = 0
        self._partial = b""

    def read_new(self) -> list[str]:
        """The complete lines written since the last call (the first call: the log's end).

        A line the server has not ended yet waits for its newline. A gap (more than
        ``TAIL_BYTES`` at once) and a rotation are said in a line of their own.
        """
        try:
            stat = os.stat(self.path)
        except OSError:
            return []
        lines: list[str] = []
        if self._inode is not None and (stat.st_ino != self._inode or stat.st_size < self._offset):
            lines.append("── the log was rotated (its earlier part: .log.1) ──")
            self._offset, self._partial = 0, b""
        self._inode = stat.st_ino
        if stat.st_size <= self._offset:
            return lines
        start = max(self._offset, stat.st_size - TAIL_BYTES)
        skipped = start > self._offset
        try:
            with open(self.path, "rb") as handle:
                handle.seek(start)
                data = handle.read(stat.st_size - start)
        except OSError:
            return lines
        self._offset = start + len(data)
        if skipped:
            self._partial = b""
            data = data.partition(b"\n")[2]  # the first line lost its beginning
            lines.append("── … earlier lines left out ──")
        data = self._partial + data
        *complete, self._partial = data.split(b"\n")
        lines += [_shown(line) for line in complete]
        return lines


def _shown(line: bytes) -> str:
    text = line.decode(errors="replace").rstrip("\r")
    if len(text) <= LINE_CHARS:
        return text
    return f"{text[:LINE_CHARS]}… ({len(text) - LINE_CHARS:,} more characters)"


class LogViewScreen(Dialog[None]):
    """One server's log: its path, then its last lines, following new ones live.

    Like every dialog it is one scrolled ``.dialog``: at 60×20 it fills the screen, and the
    arrow keys, page keys and ``home``/``end`` move through the lines.
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,l", "close", "Close")]

    def __init__(self, server: str, path: Path) -> None:
        super().__init__()
        self._server = server
        self._tail = LogTail(path)
        self._lines: deque[str] = deque(maxlen=SHOWN_LINES)
        self._painted = False

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog", id="log-view"):
            yield PlainText(f"Log of {self._server}", one_line=True, classes="dialog-title")
            yield PlainText(str(self._tail.path), one_line=True, id="log-path")
            yield PlainText("", id="log-lines")
            yield Static("escape closes; new lines show as they are written", classes="dialog-hint")

    def on_mount(self) -> None:
        """Show the log's end, then look for new lines every ``POLL_SECONDS``."""
        self.refresh_lines()
        self.set_interval(POLL_SECONDS, self.refresh_lines)

    @property
    def shown_lines(self) -> tuple[str, ...]:
        """The lines on screen, oldest first (before they are made safe)."""
        return tuple(self._lines)

    def refresh_lines(self) -> None:
        """Add what was written since the last look, and stay at the end if the view was."""
        new = self._tail.read_new()
        if not new and self._painted:
            return
        self._painted = True
        self._lines.extend(new)
        body = self.query_one("#log-view", VerticalScroll)
        at_end = body.scroll_y >= body.max_scroll_y
        text = "\n".join(self._lines) if self._lines else "(nothing written yet)"
        self.query_one("#log-lines", PlainText).update(text)
        if at_end:
            body.scroll_end(animate=False)

    def action_close(self) -> None:
        """Close the viewer."""
        self.dismiss(None)
