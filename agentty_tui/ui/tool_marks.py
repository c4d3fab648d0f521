"""The marks a tool row carries for what its server says of it, and their spelled-out words.

Annotations (``readOnlyHint``, ``destructiveHint``, ``idempotentHint``, ``openWorldHint``) are
hints from the server, which is not trusted to tell the truth about its own tools: the row shows
one letter per hint the server gave as true, each in a fixed place, so that the column lines up
and is read at a glance (``HINT_LEGEND``); the details say each in words, and say whose words
they are. A hint the server did not give, or gave as false, has no mark (the spec's defaults
are not filled in: the mark says what the server said).

A tool the server runs only as a task is kept off the wire (nobody could call it); its row says
so in the column where trimmed tools are marked (``TASK_MARK``), and the details give the reason
(``TASK_REASON``).

Pure: no Textual; ``rows.py`` and ``dialogs.py`` call these.
"""

from __future__ import annotations

from agentty_tui.model import ToolHints, ToolState
from agentty_tui.terminal_text import safe_line

__all__ = [
    "HINT_LEGEND",
    "HINT_WIDTH",
    "TASK_MARK",
    "TASK_REASON",
    "has_hints",
    "hint_lines",
    "hint_marks",
]

_LETTERS = (
    ("R", "read_only"),
    ("D", "destructive"),
    ("I", "idempotent"),
    ("W", "open_world"),
)

HINT_WIDTH = len(_LETTERS)
"""Cells of the hint marks (one place per hint)."""

HINT_LEGEND = "R read-only · D destructive · I idempotent · W open world"
"""What each letter of the marks stands for."""

TASK_MARK = "⧗ needs task support"
"""The mark of a tool that runs only as a task (off the wire)."""

TASK_REASON = (
    "the server runs it only as a task (execution.taskSupport: required), "
    "and agentty-tui does not run tasks: every call would fail"
)
"""Why such a tool is off the wire, in the details."""

_WORDS = {
    "read_only": ("read-only", "changes something"),
    "destructive": ("destructive: what it changes may be lost", "not destructive"),
    "idempotent": ("idempotent: calling it again changes nothing more", "not idempotent"),
    "open_world": ("open world: it reaches outside systems", "closed world"),
}


def hint_marks(tool: ToolState) -> str:
    """``HINT_WIDTH`` cells: a letter where the server gave that hint as true, else a space."""
    hints = tool.hints
    if hints is None:
        return " " * HINT_WIDTH
    return "".join(letter if getattr(hints, field) is True else " " for letter, field in _LETTERS)


def has_hints(hints: ToolHints | None) -> bool:
    """Whether any mark shows for ``hints``."""
    return hints is not None and any(getattr(hints, field) is True for _l, field in _LETTERS)


def hint_lines(tool: ToolState) -> list[str]:
    """The server's hints spelled out, one a line, said to be the server's (empty: none)."""
    hints = tool.hints
    if hints is None or not hints.given:
        return []
    lines = ["hints      from the server, not verified:"]
    if hints.title:
        lines.append(f"           title: {safe_line(hints.title)}")
    for field, (yes, no) in _WORDS.items():
        value = getattr(hints, field)
        if value is not None:
            lines.append(f"           {yes if value else no}")
    lines.append(f"           (row marks: {HINT_LEGEND})")
    return lines
