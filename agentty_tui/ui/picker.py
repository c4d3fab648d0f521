"""The picker list: an ``OptionList`` that shows ``Row`` values and updates only what changed.

``show_rows(rows)`` diffs the new rows against the ones on screen (``rows.diff_rows``), splices in
the runs that were inserted or removed, re-renders the rows whose content changed (repainting
only their own lines), and puts the cursor back on the row of the same identity
(``rows.follow_cursor``). ``OptionList`` is used because it scales to thousands of rows
(ARCHITECTURE §9); ``ListView`` does not.

Row roles map to the component classes ``picker--<role>``, styled in ``picker.tcss``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.content import Content
from textual.geometry import Region, Size
from textual.style import Style
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from agentty_tui.ui.rows import Row, diff_rows, follow_cursor

__all__ = ["ROLES", "PickerList"]

ROLES = (
    "fold",
    "plain",
    "status-connecting",
    "status-connected",
    "status-failed",
    "status-disabled",
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
)
"""Every role a row segment may have (see ``rows.py``)."""


class PickerList(OptionList):
    """The list of server and tool rows; the cursor follows row identity across updates."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("enter", "select", "details", show=False),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {f"picker--{role}" for role in ROLES}

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 (Textual's name)
        super().__init__(id=id, markup=False)
        self._rows: tuple[Row, ...] = ()
        self._styles: dict[str, Style] = {}

    @property
    def rows(self) -> tuple[Row, ...]:
        """The rows on screen, in order."""
        return self._rows

    @property
    def current_row(self) -> Row | None:
        """The row under the cursor, if any."""
        index = self.highlighted
        if index is None or not 0 <= index < len(self._rows):
            return None
        return self._rows[index]

    def show_rows(self, rows: tuple[Row, ...]) -> None:
        """Make ``rows`` the rows on screen, touching only those that changed."""
        old = self._rows
        diff = diff_rows(old, rows)
        if diff.empty:
            self._rows = rows
            return
        target = follow_cursor(old, rows, self.highlighted)
        if not old:
            self.set_options(Option(self._prompt(row)) for row in rows)
        else:
            for splice in reversed(diff.splices):
                prompts = [self._prompt(row) for row in rows[splice.new_start : splice.new_end]]
                self._splice(splice.old_start, splice.old_end, prompts)
            if diff.splices:
                self._after_splices()
            for index in diff.changed:
                self._replace_row(index, self._prompt(rows[index]))
        self._rows = rows
        if self.highlighted != target:
            self.highlighted = target
        else:
            self.scroll_to_highlight()

    def select_key(self, key: tuple[str, ...]) -> bool:
        """Move the cursor to the row with this key; False if there is none."""
        for index, row in enumerate(self._rows):
            if row.key == key:
                self.highlighted = index
                return True
        return False

    # --- rendering ------------------------------------------------------------------

    def _prompt(self, row: Row) -> Content:
        return Content.assemble(*((text, self._role_style(role)) for text, role in row.segments))

    def _role_style(self, role: str) -> Style:
        style = self._styles.get(role)
        if style is None:
            style = self._styles[role] = self.get_visual_style(f"picker--{role}", partial=True)
        return style

    def notify_style_update(self) -> None:
        """Re-render every row when the theme or the CSS changes a role's style."""
        super().notify_style_update()
        if not self._styles:
            return
        fresh = {
            role: self.get_visual_style(f"picker--{role}", partial=True) for role in self._styles
        }
        if fresh == self._styles:
            return
        self._styles = fresh
        for index, row in enumerate(self._rows):
            self.get_option_at_index(index)._set_prompt(self._prompt(row))
        self._clear_caches()

    def _update_lines(self) -> None:
        """Every row is exactly one line (``text-wrap: nowrap``), so line n is option n.

        OptionList measures each option's height after any change, which costs tens of
        milliseconds at 5,000 rows; here the line map is rebuilt without measuring.
        """
        if not self.scrollable_content_region:
            return
        cache = self._line_cache
        count = len(self._options)
        if len(cache.lines) != count:
            cache.lines[:] = [(index, 0) for index in range(count)]
            cache.heights.clear()
            cache.heights.update(dict.fromkeys(range(count), 1))
            cache.index_to_line.clear()
            cache.index_to_line.update(zip(range(count), range(count), strict=True))
        width = self.scrollable_content_region.width - self._get_left_gutter_width()
        virtual_size = Size(width, count)
        if virtual_size != self.virtual_size:
            self.virtual_size = virtual_size
            self._scroll_update(virtual_size)

    def _replace_row(self, index: int, prompt: Content) -> None:
        """Re-render one row in place, repainting only its line.

        ``replace_option_prompt_at_index`` drops every cached render and repaints the whole
        list, so each of the visible rows is rendered again (most of the cost of a toggle at
        5,000 rows). Here the row gets a fresh ``Option`` (its cached renders are keyed on the
        option, so none is reused) and only its own line, if on screen, is marked dirty.
        """
        old = self._options[index]
        option = Option(prompt)
        self._options[index] = option
        del self._option_to_index[old]
        self._option_to_index[option] = index
        if not self.is_mounted:
            return
        line = index - self.scroll_offset.y  # every row is one line
        if 0 <= line < self.scrollable_content_region.height:
            self.refresh(Region(0, line, self.size.width, 1))

    # --- structural edits (OptionList has no insert; these keep its indexes consistent) ---

    def _splice(self, start: int, end: int, prompts: Sequence[Content]) -> None:
        """Replace the options ``[start:end]`` with new options for ``prompts``."""
        self._options[start:end] = [Option(prompt) for prompt in prompts]

    def _after_splices(self) -> None:
        self._option_to_index.clear()
        self._option_to_index.update((option, i) for i, option in enumerate(self._options))
        self._mouse_hovering_over = None
        self._clear_caches()
        if self.is_mounted:
            self.refresh(layout=self.styles.auto_dimensions)
            self._update_lines()
