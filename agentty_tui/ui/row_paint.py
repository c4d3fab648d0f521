"""Painting picker rows into ``Strip`` lines, with a cache so that an unchanged row is not
painted again.

Each painted line is kept keyed on the row (a frozen, hashable value) with the style and width
it was painted with; an unchanged row is the very same object from one snapshot to the next
(``rows.RowMemo``), so after an update only the rows that differ are rendered again. The
widget (``picker.PickerList``) decides which row goes on which line and in which style.
"""

from __future__ import annotations

from textual.content import Content
from textual.strip import Strip
from textual.style import Style
from textual.visual import Visual
from textual.widget import Widget

from agentty_tui.ui.rows import Row

__all__ = ["CACHE_LIMIT", "CURSOR", "HOVER", "ROLES", "RowPainter"]

ROLES = (
    "fold",
    "plain",
    "status-connecting",
    "status-connected",
    "status-failed",
    "status-needs_login",
    "status-disabled",
    "status-untrusted",
    "status-shadowed",
    "server-name",
    "count",
    "error",
    "on",
    "off",
    "tool-name",
    "tool-name-off",
    "trimmed",
    "label",
    "hint",
    "warning",
    "unavailable",
    "description",
    "source",
    "shadowed",
    "command",
)
"""Every role a row segment may have (see ``rows.py``)."""

CURSOR = "picker--cursor"
"""The component class of the line under the cursor."""
HOVER = "picker--hover"
"""The component class of the line under the mouse pointer (unless the cursor is on it)."""

CACHE_LIMIT = 2048
"""Painted lines kept; far more than a screen holds, so scrolling back and forth stays cheap."""


class RowPainter:
    """Paints rows for one widget, in the styles of its component classes, and keeps the lines.

    The role styles are looked up once per role and kept until the widget's styles change
    (``restyle``): a line is assembled from many segments, and the lookup is not free.
    """

    def __init__(self, widget: Widget) -> None:
        self._widget = widget
        self._styles: dict[str, Style] = {}
        # row -> (the style it was painted with, width, strip). Keyed on the row's value: a row
        # rebuilt equal to the one before (a toggle rebuilds its server's rows) is not painted
        # again; an unchanged row is the same object, found by identity before any comparison.
        self._strips: dict[Row, tuple[Style, int, Strip]] = {}
        self.rendered = 0
        """How many row lines were rendered (not taken from the cache)."""

    def line(self, row: Row, style: Style, width: int) -> Strip:
        """``row`` painted ``width`` cells wide on ``style``, from the cache if painted so."""
        cached = self._strips.get(row)
        if cached is not None and cached[0] is style and cached[1] == width:
            return cached[2]
        strip = self._render(row, style, width)
        if len(self._strips) >= CACHE_LIMIT:
            self._strips.clear()
        self._strips[row] = (style, width, strip)
        return strip

    def forget(self) -> None:
        """Drop every painted line (lines painted for another width are no use)."""
        self._strips.clear()

    def restyle(self) -> bool:
        """Re-read the role styles; True (and the cache dropped) if any of them changed."""
        if not self._styles:
            return False
        fresh = {
            role: self._widget.get_visual_style(f"picker--{role}", partial=True)
            for role in self._styles
        }
        if fresh == self._styles:
            return False
        self._styles = fresh
        self._strips.clear()
        return True

    def _render(self, row: Row, style: Style, width: int) -> Strip:
        self.rendered += 1
        content = Content.assemble(*((text, self._role_style(role)) for text, role in row.segments))
        strips = Visual.to_strips(self._widget, content, width, 1, style)
        strip = strips[0] if strips else Strip.blank(0)
        return strip.extend_cell_length(width, style.rich_style)

    def _role_style(self, role: str) -> Style:
        style = self._styles.get(role)
        if style is None:
            style = self._styles[role] = self._widget.get_visual_style(
                f"picker--{role}", partial=True
            )
        return style
