"""The picker list: a line-API ``ScrollView`` of ``Row`` values that repaints only what changed.

Every row is exactly one line, so line n is row n: the list's virtual height is the row count
and ``render_line`` paints only the lines in view. Each painted line is a ``Strip`` kept in a
cache keyed on the row (a frozen, hashable value) with the style it was painted with; an
unchanged row is the very same object from one snapshot to the next (``rows.RowMemo``), so after
an update only the rows that differ are rendered again, and only their lines are refreshed.

``show_rows(rows)`` diffs the new rows against the ones on screen (``row_diff.diff_rows``) and puts
the cursor back on the row of the same identity (``row_diff.follow_cursor``). Everything here is
Textual's public API (``tests/ui/test_textual_public_api.py`` checks), so that a minor Textual
release cannot break the list; ``OptionList`` was not used because keeping it fast at 5,000
rows meant splicing its private state (ARCHITECTURE §9).

The widget (its rows, cursor, pointer, keys and messages) paints through a ``RowPainter``,
which keeps the painted lines. Row roles map to the component classes ``picker--<role>``
(styled in ``picker.tcss``), the cursor's line to ``picker--cursor`` and the line under the
pointer to ``picker--hover``.
"""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.geometry import Size
from textual.message import Message
from textual.reactive import var
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.style import Style
from textual.visual import Visual
from textual.widget import Widget

from agentty_tui.ui.row_diff import diff_rows, follow_cursor
from agentty_tui.ui.rows import Row

__all__ = ["CACHE_LIMIT", "CURSOR", "HOVER", "ROLES", "PickerList", "RowPainter"]


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
    "hints",
    "tokens",
    "pinned",
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


class PickerList(ScrollView, can_focus=True):
    """The list of server and tool rows; the cursor follows row identity across updates."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor_up", "Up", show=False),
        Binding("down,j", "cursor_down", "Down", show=False),
        Binding("home", "first", "First", show=False),
        Binding("end", "last", "Last", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("enter", "select", "details", key_display="enter"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {CURSOR, HOVER} | {f"picker--{role}" for role in ROLES}

    # The look OptionList gave the list (and the SVG snapshots keep): the surface, tinted when
    # focused, the block cursor, muted when the list is not focused, and the hover highlight.
    DEFAULT_CSS = """
    PickerList {
        color: $foreground;
        background: $surface;
        overflow-x: hidden;
        /* A tool of a server that is not connected: its setting shows, but nothing ships. */
        & > .picker--unavailable {
            color: $text-disabled;
        }
        & > .picker--description {
            color: $text-muted;
        }
        & > .picker--hover {
            background: $block-hover-background;
        }
        & > .picker--cursor {
            color: $foreground;
            background: $block-cursor-blurred-background;
            text-style: $block-cursor-blurred-text-style;
        }
        &:focus {
            background-tint: $foreground 5%;
            & > .picker--cursor {
                color: $block-cursor-foreground;
                background: $block-cursor-background;
                text-style: $block-cursor-text-style;
            }
        }
    }
    """

    highlighted: var[int | None] = var[int | None](None)
    """The index of the row under the cursor, or ``None`` when the list is empty."""

    hovered: var[int | None] = var[int | None](None)
    """The index of the row under the mouse pointer, if any."""

    class RowChosen(Message):
        """Enter was pressed (or a row clicked) on ``row``."""

        def __init__(self, picker: PickerList, row: Row, index: int) -> None:
            super().__init__()
            self.picker = picker
            """The list the row is in."""
            self.row = row
            """The row under the cursor."""
            self.index = index
            """Its index in ``picker.rows``."""

        @property
        def control(self) -> PickerList:
            """The list (so that ``@on(PickerList.RowChosen, "#id")`` can match it)."""
            return self.picker

    class MarkClicked(Message):
        """A click on a row's mark (a tool's ``[x]``, a server's fold mark); the cursor is
        already on that row."""

        def __init__(self, picker: PickerList, row: Row) -> None:
            super().__init__()
            self.picker = picker
            """The list the row is in."""
            self.row = row
            """The row whose mark was clicked."""

        @property
        def control(self) -> PickerList:
            """The list (so that ``@on(PickerList.MarkClicked, "#id")`` can match it)."""
            return self.picker

    class Resized(Message):
        """The list got a new size (the app may lay its rows out for the new width)."""

        def __init__(self, picker: PickerList, width: int) -> None:
            super().__init__()
            self.picker = picker
            """The list."""
            self.width = width
            """Its new width, in cells."""

        @property
        def control(self) -> PickerList:
            """The list (so that ``@on(PickerList.Resized, "#id")`` can match it)."""
            return self.picker

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 (Textual's name)
        super().__init__(id=id)
        self._rows: tuple[Row, ...] = ()
        self._painter = RowPainter(self)

    @property
    def rows(self) -> tuple[Row, ...]:
        """The rows on screen, in order."""
        return self._rows

    @property
    def option_count(self) -> int:
        """How many rows the list holds (the name ``OptionList`` gave it)."""
        return len(self._rows)

    @property
    def current_row(self) -> Row | None:
        """The row under the cursor, if any."""
        index = self.highlighted
        if index is None or not 0 <= index < len(self._rows):
            return None
        return self._rows[index]

    def show_rows(self, rows: tuple[Row, ...]) -> None:
        """Make ``rows`` the rows on screen, repainting only the lines that changed."""
        old = self._rows
        diff = diff_rows(old, rows)
        if diff.empty:
            self._rows = rows
            return
        target = follow_cursor(old, rows, self.highlighted)
        self._rows = rows
        if len(rows) != len(old):
            self.virtual_size = Size(0, len(rows))
        top, height = self.scroll_offset.y, self.scrollable_content_region.height
        # Rows before the first splice keep their places (in both tuples, it starts at the
        # same index); from there on, every line may show another row now.
        if diff.splices and diff.splices[0].new_start < top + height:
            self.refresh()
        else:
            for index in diff.changed:
                if top <= index < top + height:
                    self.refresh_line(index)
        if self.highlighted != target:
            self.highlighted = target
        else:
            self.scroll_to_cursor()

    def select_key(self, key: tuple[str, ...]) -> bool:
        """Move the cursor to the row with this key; False if there is none."""
        for index, row in enumerate(self._rows):
            if row.key == key:
                self.highlighted = index
                return True
        return False

    # --- the cursor ---------------------------------------------------------------------

    def validate_highlighted(self, highlighted: int | None) -> int | None:
        """Keep the cursor on a row: ``None`` only when there is none."""
        if highlighted is None or not self._rows:
            return None
        return min(max(highlighted, 0), len(self._rows) - 1)

    def watch_highlighted(self, old: int | None, new: int | None) -> None:
        """Repaint the lines the cursor left and reached, and keep it in view."""
        for index in (old, new):
            if index is not None:
                self.refresh_line(index)
        self.scroll_to_cursor()

    def scroll_to_cursor(self) -> None:
        """Scroll just enough to bring the cursor's line into view."""
        index = self.highlighted
        height = self.scrollable_content_region.height
        if index is None or not self.is_mounted or height <= 0:
            return
        top = self.scroll_offset.y
        if index < top:
            self.scroll_to(y=index, animate=False, force=True)
        elif index >= top + height:
            self.scroll_to(y=index - height + 1, animate=False, force=True)

    def on_show(self) -> None:
        """A list shown again may have been resized meanwhile."""
        self.scroll_to_cursor()

    def on_resize(self, event: events.Resize) -> None:
        """Lines painted for another width are no use; the app hears of the new width."""
        self._painter.forget()
        self.scroll_to_cursor()
        self.post_message(self.Resized(self, event.size.width))

    def _step(self, delta: int) -> None:
        if not self._rows:
            return
        if self.highlighted is None:
            self.highlighted = 0 if delta > 0 else len(self._rows) - 1
        else:
            self.highlighted = (self.highlighted + delta) % len(self._rows)

    def action_cursor_up(self) -> None:
        """Up one row (from the first, to the last)."""
        self._step(-1)

    def action_cursor_down(self) -> None:
        """Down one row (from the last, to the first)."""
        self._step(1)

    def action_first(self) -> None:
        """To the first row."""
        self.highlighted = 0

    def action_last(self) -> None:
        """To the last row."""
        self.highlighted = len(self._rows) - 1

    def action_page_up(self) -> None:
        """Up by the height of the view, stopping at the first row."""
        self.highlighted = (self.highlighted or 0) - self.scrollable_content_region.height

    def action_page_down(self) -> None:
        """Down by the height of the view, stopping at the last row."""
        self.highlighted = (self.highlighted or 0) + self.scrollable_content_region.height

    def action_select(self) -> None:
        """Enter: tell the app which row was chosen."""
        row, index = self.current_row, self.highlighted
        if row is not None and index is not None:
            self.post_message(self.RowChosen(self, row, index))

    def on_click(self, event: events.Click) -> None:
        """A click puts the cursor on the row under the pointer and chooses it; on the row's
        mark it clicks the mark instead (``MarkClicked``)."""
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = self.scroll_offset.y + offset.y
        if 0 <= index < len(self._rows):
            self.highlighted = index
            row = self._rows[index]
            if row.mark_at(self.scroll_offset.x + offset.x):
                self.post_message(self.MarkClicked(self, row))
            else:
                self.action_select()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        """Follow the pointer for the hover highlight."""
        offset = event.get_content_offset(self)
        index = None if offset is None else self.scroll_offset.y + offset.y
        self.hovered = index if index is not None and 0 <= index < len(self._rows) else None

    def on_leave(self) -> None:
        """The pointer left the list."""
        self.hovered = None

    def watch_hovered(self, old: int | None, new: int | None) -> None:
        """Repaint the lines the pointer left and reached."""
        for index in (old, new):
            if index is not None:
                self.refresh_line(index)

    # --- painting ---------------------------------------------------------------------

    @property
    def rows_rendered(self) -> int:
        """How many row lines were rendered (not taken from the cache): for tests and benches."""
        return self._painter.rendered

    def render_line(self, y: int) -> Strip:
        """Line ``y`` of the view: the row there, from the cache unless it changed."""
        width = self.scrollable_content_region.width
        index = self.scroll_offset.y + y
        if not 0 <= index < len(self._rows):
            return Strip.blank(width, self.get_visual_style().rich_style)
        row = self._rows[index]
        if index == self.highlighted:
            style = self.get_visual_style(CURSOR)
        elif index == self.hovered:
            style = self.get_visual_style(HOVER)
        else:
            style = self.get_visual_style()
        return self._painter.line(row, style, width)

    def notify_style_update(self) -> None:
        """Repaint every line when the theme or the CSS changes a role's style."""
        super().notify_style_update()
        if self._painter.restyle():
            self.refresh()
