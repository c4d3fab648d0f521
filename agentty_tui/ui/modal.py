"""The base of every dialog: a modal screen that knows how small the terminal is.

Each dialog composes one ``VerticalScroll`` of class ``dialog``: as tall as its content, at
most the screen, and scrolled when the content is taller, so nothing is out of reach at 60×20.
The screen carries ``-narrow`` / ``-short`` classes below a width of 72 or a height of 30
columns and rows, and ``picker.tcss`` trims borders, padding and input heights under them.
"""

from __future__ import annotations

from typing import TypeVar

from textual.screen import ModalScreen

__all__ = ["Dialog"]

ResultT = TypeVar("ResultT")


class Dialog(ModalScreen[ResultT]):
    """A modal screen with size classes for ``picker.tcss``: ``-narrow``/``-wide``,
    ``-short``/``-tall``."""

    AUTO_FOCUS = ".dialog"
    """The dialog itself, so the arrow keys scroll it; a form names its first field."""
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (72, "-wide")]  # noqa: RUF012 (Textual's own type)
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]  # noqa: RUF012
