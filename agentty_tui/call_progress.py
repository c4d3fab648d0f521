"""A long call's progress as a person reads it: the one rendering of the picker and ``call``.

A server reports ``notifications/progress`` for a call: a progress value, maybe a total and
maybe a message (its text: untrusted). ``CallProgress`` keeps the latest report, and
``progress_line`` says it on one line: a bar when the total is known (a count without one),
the message and the seconds the call has run, e.g. ``[████░░░░░░] 2/5 · step 2 · 3 s``.

The message is the server's: it is made one safe line here (``terminal_text.safe_line``: its
controls shown, never sent) and cut to ``MESSAGE_LIMIT`` characters, so a caller can put the
line on a terminal (the picker shows it as plain text too).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from agentty_tui.terminal_text import safe_line

__all__ = ["BAR_WIDTH", "MESSAGE_LIMIT", "CallProgress", "elapsed_text", "progress_line"]

BAR_WIDTH = 20
"""Cells of the bar."""

MESSAGE_LIMIT = 120
"""Characters of the server's message shown (a line, not a page)."""

_FULL, _EMPTY = "█", "░"


@dataclass(frozen=True, slots=True)
class CallProgress:
    """The latest ``notifications/progress`` of one call."""

    progress: float
    """How far it is (the server's units; it only ever grows, the spec says)."""
    total: float | None = None
    """What ``progress`` counts up to, when the server knows."""
    message: str | None = None
    """The server's words about this step (untrusted)."""

    @property
    def fraction(self) -> float | None:
        """``progress / total`` in 0..1; ``None`` without a usable total."""
        total = self.total
        if total is None or not math.isfinite(total) or total <= 0:
            return None
        if not math.isfinite(self.progress):
            return None
        return min(max(self.progress / total, 0.0), 1.0)


def _number(value: float) -> str:
    """``3`` for 3.0, ``2.5`` for 2.5: a count as a person writes it."""
    if not math.isfinite(value):
        return "?"
    return f"{value:.0f}" if value == int(value) else f"{value:g}"


def elapsed_text(seconds: float) -> str:
    """``3 s``, ``2 min 05 s``: how long a call has run."""
    whole = max(0, int(seconds))
    if whole < 60:
        return f"{whole} s"
    return f"{whole // 60} min {whole % 60:02d} s"


def progress_line(progress: CallProgress | None, seconds: float, width: int = BAR_WIDTH) -> str:
    """The call's state on one line: bar and count (or the count alone), message, time run.

    Without any report yet: ``calling… 3 s``.
    """
    parts: list[str] = []
    if progress is None:
        parts.append("calling…")
    else:
        fraction = progress.fraction
        count = _number(progress.progress)
        if fraction is not None:
            filled = round(fraction * width)
            bar = _FULL * filled + _EMPTY * (width - filled)
            parts.append(f"[{bar}] {count}/{_number(progress.total or 0)}")
        else:
            parts.append(f"{count} done")
        if progress.message:
            message = safe_line(progress.message.strip())
            if len(message) > MESSAGE_LIMIT:
                message = message[:MESSAGE_LIMIT] + "…"
            if message:
                parts.append(message)
    parts.append(elapsed_text(seconds))
    return " · ".join(parts)
