"""The picker's one widget for text it did not write itself: plain, never markup, never a control.

Names, titles, descriptions, errors, stderr tails, call results and config paths come from a
server, a file or the user. ``PlainText`` shows such text with ``markup=False`` (a ``[/]`` in a
server name is text, not a closing tag that crashes the app) and through ``safe_block`` or
``safe_line`` (an ``ESC`` is shown as ``␛``, never sent to the terminal), both when it is made
and on every ``update``.
"""

from __future__ import annotations

from textual.visual import VisualType
from textual.widgets import Static

from agentty_tui.terminal_text import clip, safe_block, safe_line

__all__ = ["BLOCK_LIMIT", "LINE_LIMIT", "PlainText"]

BLOCK_LIMIT = 100_000
"""Characters of one text a screen lays out; the rest is left out with a note (a 50 MB
description would take half a minute to lay out)."""

LINE_LIMIT = 1_000
"""The same for a one-line field."""


class PlainText(Static):
    """A ``Static`` for untrusted text: no markup, and every control made visible.

    ``one_line`` shows a newline as ``⏎`` (a title, a name); otherwise newlines and tabs are
    kept (a description, an error with its stderr lines).
    """

    def __init__(
        self,
        text: str = "",
        *,
        one_line: bool = False,
        id: str | None = None,  # noqa: A002 (Textual's name)
        classes: str | None = None,
    ) -> None:
        self._one_line = one_line
        super().__init__(self._safe(text), markup=False, id=id, classes=classes)

    def _safe(self, text: str) -> str:
        if self._one_line:
            return safe_line(clip(text, LINE_LIMIT))
        return safe_block(clip(text, BLOCK_LIMIT))

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        """Show new text (made safe); other visuals are the app's own and shown as they are."""
        super().update(self._safe(content) if isinstance(content, str) else content, layout=layout)
