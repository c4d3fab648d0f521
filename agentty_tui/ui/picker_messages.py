"""The messages the picker list posts: a row chosen, a row's mark clicked, a new size.

Declared with the list's namespace: a handler named ``on_picker_list_row_chosen`` (or
``@on(PickerList.RowChosen, "#id")``, which ``control`` serves) hears them as if they were
defined inside ``PickerList``, where they are re-exported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

from agentty_tui.ui.rows import Row

if TYPE_CHECKING:
    from agentty_tui.ui.picker import PickerList

__all__ = ["MarkClicked", "Resized", "RowChosen"]


class RowChosen(Message, namespace="picker_list"):
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


class MarkClicked(Message, namespace="picker_list"):
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


class Resized(Message, namespace="picker_list"):
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
