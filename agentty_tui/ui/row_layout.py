"""The columns of the picker's rows: widths shared by every server, and a tool row's cells.

Every server's tool rows use the same ``Layout``, so the title column starts at the same place
from server to server. On a wide terminal (``WIDE_COLUMNS`` or more) a tool row shows its title
and its description in two columns; otherwise one label column (the title, else the first line
of the description). While the budget trims any tool, a column for the ``✂ trimmed`` mark is
kept on every tool row, so that the marks do not push their labels out of line.

Widths are measured per server and kept while the server's tool tuple is the same object
(``ToolWidths``): measuring 5,000 tools costs milliseconds, too much for every toggle.

Pure: no I/O, no Textual.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentty_tui.model import PluginModel, ServerState, ToolState
from agentty_tui.terminal_text import safe_line
from agentty_tui.ui.row_source import source_width

__all__ = [
    "LABEL_LIMIT",
    "TRIMMED_MARK",
    "WIDE_COLUMNS",
    "Layout",
    "ToolWidths",
    "cut",
    "first_line",
    "tool_cells",
]

Segment = tuple[str, str]
"""A piece of a row's text and its role (as in ``rows.py``)."""

WIDE_COLUMNS = 120
"""From this many columns on, a tool row shows its description in a column of its own."""

NAME_LIMIT = 40
"""Widest tool-name column: a longer name pushes its own row's label, not everyone's."""
TITLE_LIMIT = 40
"""Widest title column (wide terminals)."""
LABEL_LIMIT = 500
"""Characters of a label or an error a row looks at: a row shows one line, not megabytes."""

TRIMMED_MARK = "✂ trimmed"
_GAP = "  "


@dataclass(frozen=True, slots=True)
class Layout:
    """Column widths shared by every row of one build."""

    name_width: int = 0
    """Server names."""
    tool_width: int = 0
    """Tool names (at most ``NAME_LIMIT``)."""
    trimmed: bool = False
    """Whether a column is kept for the ``✂ trimmed`` mark (the budget trims some tool)."""
    title_width: int | None = None
    """Wide terminals: the title column's width (0 when no tool has a title); ``None``: one
    label column."""
    source_width: int = 0
    """A workspace's server rows: the source column's width (``row_source``); 0: no column
    (one config file, or a terminal too narrow for it)."""


def cut(text: str) -> str:
    """``text`` cut to ``LABEL_LIMIT`` characters."""
    return text if len(text) <= LABEL_LIMIT else text[:LABEL_LIMIT] + "…"


def first_line(text: str) -> str:
    """The first non-empty line of ``text`` (of its first ``LABEL_LIMIT`` characters), stripped."""
    for line in cut(text).split("\n"):
        if line.strip():
            return line.strip()
    return ""


class ToolWidths:
    """Each server's widest tool name and title, kept while its ``(name, revision)`` is."""

    __slots__ = ("_entries",)

    def __init__(self) -> None:
        self._entries: dict[str, tuple[int, int, int]] = {}

    def of(self, server: ServerState) -> tuple[int, int]:
        """The widest (name, title) among the tools of ``server``."""
        entry = self._entries.get(server.name)
        if entry is not None and entry[0] == server.revision:
            return entry[1], entry[2]
        tools = server.tools
        names = max((len(safe_line(tool.bare)) for tool in tools), default=0)
        titles = max((len(safe_line(cut(tool.title or ""))) for tool in tools), default=0)
        self._entries[server.name] = (server.revision, names, titles)
        return names, titles

    def layout(
        self, model: PluginModel, *, trimmed: bool, wide: bool, sources: bool = False
    ) -> Layout:
        """The layout of ``model``'s rows (servers no longer there are forgotten); ``sources``:
        whether the terminal has room for a source column."""
        name_width = tool_width = title_width = 0
        for server in model.servers:
            name_width = max(name_width, len(safe_line(server.name)))
            names, titles = self.of(server)
            tool_width = max(tool_width, names)
            title_width = max(title_width, titles)
        if len(self._entries) > len(model.servers):
            shown = {server.name for server in model.servers}
            self._entries = {k: v for k, v in self._entries.items() if k in shown}
        return Layout(
            name_width=name_width,
            tool_width=min(tool_width, NAME_LIMIT),
            trimmed=trimmed,
            title_width=min(title_width, TITLE_LIMIT) if wide else None,
            source_width=source_width(model) if sources else 0,
        )


def tool_cells(tool: ToolState, is_trimmed: bool, layout: Layout) -> list[Segment]:
    """What follows a tool row's name: the trimmed mark, then the label or title and
    description columns (trailing padding left out)."""
    cells: list[Segment] = []
    if layout.trimmed:
        mark = TRIMMED_MARK if is_trimmed else ""
        cells += [(_GAP, "plain"), (mark.ljust(len(TRIMMED_MARK)), "trimmed")]
    if layout.title_width is None:
        # A title is one line as sent (a newline in it shows as ⏎); a description's first line.
        columns = [(safe_line(cut(tool.label.strip())), "label")]
    else:
        title = safe_line(cut((tool.title or "").strip()))
        description = safe_line(first_line(tool.description or ""))
        if description == title:
            description = ""
        columns = []
        if layout.title_width:
            columns.append((title.ljust(layout.title_width), "label"))
        columns.append((description, "description"))
    for text, role in columns:
        cells += [(_GAP, "plain"), (text, role)]
    while cells and not cells[-1][0].strip():  # no trailing padding
        cells.pop()
    return cells
