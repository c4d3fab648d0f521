"""Snapshot → rows: what the picker shows, as pure values.

``build_rows`` turns one model snapshot (with its wire catalog, the folded servers and the filter
text) into a tuple of frozen ``Row`` values: a row per server, and under it a row per tool. Each
row has a stable identity ``key`` (``("server", name)`` or ``("tool", server, bare)``) and its
text as ``(text, role)`` segments; the widget maps roles to styles and never looks at the model.

``row_diff`` says which rows of two such tuples changed and where the cursor belongs after an
update; ``row_layout`` lays the columns out; ``row_filter`` parses the filter text.

A ``RowMemo`` (``row_memo``) passed to ``build_rows`` keeps each server's rows from the previous
call and hands back the very same ``Row`` objects while nothing they are built from changed (the
server's ``(name, revision)``, whether it is folded, the filter, the shared column layout and
which of its tools are trimmed). A toggle among 5,000 tools then rebuilds one server's rows,
not all of them, and ``row_diff.diff_rows`` skips the reused rows by identity. The result is
always equal to a build without the memo.

Every piece of a row that a server or the config supplied (server name, error, tool name,
title or description) passes through ``safe_line`` here, the one place rows get their text:
its controls are shown as visible escapes, never sent to the terminal.

Pure: no I/O, no Textual (the memo is a cache the caller owns, never a source of truth).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Literal

from agentty_tui.catalog import WireCatalog
from agentty_tui.model import PluginModel, ServerState, ToolState
from agentty_tui.terminal_text import safe_line
from agentty_tui.ui.row_filter import RowFilter, parse_filter
from agentty_tui.ui.row_layout import Layout, ToolWidths, first_line, tool_cells
from agentty_tui.ui.row_memo import RowMemo
from agentty_tui.ui.row_source import (
    is_project_untrusted,
    shadowed_by_name,
    shadowed_key,
    source_text,
    untrusted_segments,
)

__all__ = [
    "Row",
    "RowKey",
    "RowMemo",
    "Segment",
    "build_rows",
    "server_key",
    "tool_key",
]

RowKey = tuple[str, ...]
"""Identity of a row: ``("server", name)``, ``("tool", server, bare)`` or ``("shadowed", name,
path, scope)``."""

Segment = tuple[str, str]
"""A piece of a row's text and its role (a style name the widget maps to a colour)."""

STATUS_MARKS = {
    "connecting": "◌",
    "connected": "●",
    "failed": "✗",
    "needs_login": "⚿",
    "disabled": "○",
    "untrusted": "⊘",
    "shadowed": "◇",
}
"""The status mark in front of a server's name."""

FOLD_OPEN, FOLD_CLOSED = "▾", "▸"
CHECK_ON, CHECK_OFF = "[x]", "[ ]"


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the picker: a server or one of its tools."""

    key: RowKey
    """Stable identity across snapshots."""
    kind: Literal["server", "tool", "shadowed"]
    """What the row stands for (``shadowed``: a workspace entry hidden by one of the same
    name, ``row_source``)."""
    server: str
    """The server's config name (for a tool row, the server it belongs to)."""
    segments: tuple[Segment, ...]
    """The rendered text, in pieces, each with its role."""
    tool: str | None = None
    """Bare tool name (tool rows only)."""
    enabled: bool = False
    """Tool rows: whether the tool is on. Server rows: whether any tool is on."""
    folded: bool = False
    """Server rows: whether its tools are hidden."""

    @property
    def text(self) -> str:
        """The row as plain text."""
        return "".join(text for text, _role in self.segments)

    def mark_at(self, column: int) -> bool:
        """Whether ``column`` falls on the row's mark: a tool's ``[x]``, a server's fold mark
        (a server without tools has none)."""
        mark = 1 if self.kind == "tool" else 0
        start = sum(len(text) for text, _role in self.segments[:mark])  # our own ASCII lead
        text = self.segments[mark][0].rstrip() if len(self.segments) > mark else ""
        return bool(text) and start <= column < start + len(text)


def server_key(name: str) -> RowKey:
    """The key of a server's row."""
    return ("server", name)


def tool_key(server: str, bare: str) -> RowKey:
    """The key of a tool's row."""
    return ("tool", server, bare)


def _lead(state: ServerState, fold: str, layout: Layout, name_role: str) -> list[Segment]:
    """A server row's fold mark, status mark, name and (in a workspace) source column."""
    segments: list[Segment] = [
        (f"{fold} ", "fold"),
        (STATUS_MARKS[state.status], f"status-{state.status}"),
        (" ", "plain"),
        (safe_line(state.name).ljust(layout.name_width), name_role),
        ("  ", "plain"),
    ]
    if layout.source_width:
        label = source_text(state)
        if len(label) > layout.source_width:
            label = label[: layout.source_width - 1] + "…"
        # A shadowed entry's row is dim from end to end.
        role = "shadowed" if name_role == "shadowed" else "source"
        segments += [(label.ljust(layout.source_width), role), ("  ", "plain")]
    return segments


def _server_row(state: ServerState, folded: bool, layout: Layout) -> Row:
    fold = (FOLD_CLOSED if folded else FOLD_OPEN) if state.tools else " "
    segments = _lead(state, fold, layout, "server-name")
    if state.status == "connected":
        segments.append((f"{state.enabled_count}/{len(state.tools)} tools on", "count"))
        if state.dropped_tools:
            count = len(state.dropped_tools)
            segments.append((f" · {count} invalid tool{'s' * (count > 1)} left out", "error"))
    elif state.status == "connecting":
        segments.append(("connecting…", "status-connecting"))
        segments += _off_the_wire(state)
    elif state.status == "failed":
        segments.append(("failed", "status-failed"))
        segments += _off_the_wire(state)
        if state.error:
            segments.append((f" — {_one_line(state.error)}", "error"))
        if state.spec is not None:  # an invalid entry needs an edit, not a restart
            segments.append(("  R restarts", "hint"))
    elif is_project_untrusted(state):
        segments += untrusted_segments(state)
    elif state.status == "untrusted":
        segments.append(("not started: config not trusted", "status-untrusted"))
        segments.append(("  T trusts it", "hint"))
    elif state.status == "needs_login":
        segments.append(("needs login — L logs in", "status-needs_login"))
        segments += _off_the_wire(state)
    else:
        segments.append(("disabled in config", "status-disabled"))
        segments.append(("  space enables", "hint"))
    if state.warnings and state.status != "disabled":
        more = f" (+{len(state.warnings) - 1} more)" if len(state.warnings) > 1 else ""
        segments.append((f" · ⚠ {_one_line(state.warnings[0])}{more}", "warning"))
    return Row(
        key=server_key(state.name),
        kind="server",
        server=state.name,
        segments=tuple(segments),
        enabled=state.enabled_count > 0,
        folded=folded,
    )


def _off_the_wire(state: ServerState) -> list[Segment]:
    """A server that is not connected ships none of the tools it still lists: say so."""
    return [(" · 0 on the wire", "count")] if state.tools else []


def _tool_row(
    server: str, tool: ToolState, trimmed: bool, layout: Layout, available: bool = True
) -> Row:
    if not available:  # its server is not connected: the setting shows, dimmed
        check_role = name_role = "unavailable"
    elif tool.enabled:
        check_role, name_role = "on", "tool-name"
    else:
        check_role, name_role = "off", "tool-name-off"
    segments: list[Segment] = [
        ("    ", "plain"),
        (CHECK_ON if tool.enabled else CHECK_OFF, check_role),
        (" ", "plain"),
        (safe_line(tool.bare).ljust(layout.tool_width), name_role),
        *tool_cells(tool, trimmed, layout),
    ]
    return Row(
        key=tool_key(server, tool.bare),
        kind="tool",
        server=server,
        segments=tuple(segments),
        tool=tool.bare,
        enabled=tool.enabled,
    )


def _one_line(text: str) -> str:
    """The first non-empty line of ``text`` (an error), its controls made visible."""
    return safe_line(first_line(text))


_NOTHING_TRIMMED: frozenset[str] = frozenset()


def build_rows(
    model: PluginModel,
    catalog: WireCatalog,
    folded: frozenset[str] = frozenset(),
    filter_text: str = "",
    memo: RowMemo | None = None,
    *,
    wide: bool = False,
    sources: bool = False,
) -> tuple[Row, ...]:
    """The picker's rows for one snapshot.

    Servers in config order, each followed by its tools in advertised order unless folded.
    A non-empty ``filter_text`` (``row_filter.parse_filter``: name text and ``is:`` state words)
    keeps the servers in the states it names, and of those the tools in the tool states it
    names; its name text (case-insensitive) keeps a server whose name matches with all those
    tools, and otherwise only the tools whose bare name or label matches, under their
    server's row. Servers with nothing left are left out.

    With a ``memo`` (see ``RowMemo``) the rows of servers whose inputs did not change since the
    previous call are the same objects as then; the result equals a build without it.
    ``wide``: a terminal of ``WIDE_COLUMNS`` or more, where tool rows show their description
    in a column of its own (``row_layout``); ``sources``: a terminal of ``SOURCE_COLUMNS`` or
    more, where a workspace's server rows show their source (``row_source``). A workspace's
    shadowed entries follow the rows of the server that wins over them, one dim row each.
    """
    needle = parse_filter(filter_text)
    trimmed_sets = catalog.trimmed_by_server()
    widths = ToolWidths() if memo is None else memo.widths
    layout = widths.layout(model, trimmed=bool(trimmed_sets), wide=wide, sources=sources)
    hidden = shadowed_by_name(model)  # empty for one config file
    rows: list[Row] = []
    for state in model.servers:
        is_folded = state.name in folded
        trimmed = trimmed_sets.get(state.name, _NOTHING_TRIMMED)
        build = partial(_server_rows, state, is_folded, needle, layout, trimmed)
        if memo is None:
            rows += build()
        else:
            rows += memo.rows(state, (is_folded, needle, layout, trimmed), build)
        # A hidden entry goes right under the rows of the one that wins over it.
        for shadowed in hidden.pop(state.name, ()):
            rows += _shadowed_rows(shadowed, needle, layout)
    for left in hidden.values():  # a winner that is not listed: at the end
        for shadowed in left:
            rows += _shadowed_rows(shadowed, needle, layout)
    if memo is not None:
        memo.end()
    return tuple(rows)


def _shadowed_rows(state: ServerState, needle: RowFilter, layout: Layout) -> tuple[Row, ...]:
    """A shadowed entry's one dim row (none if the filter leaves it out): no tools, never
    started, saying which file wins."""
    if needle.active and needle.tools_of(state, _NOTHING_TRIMMED) is None:
        return ()
    by = state.shadowed_by
    segments = _lead(state, " ", layout, "shadowed")
    segments.append((f"shadowed by {safe_line(by.label) if by else 'another file'}", "shadowed"))
    return (
        Row(key=shadowed_key(state), kind="shadowed", server=state.name, segments=tuple(segments)),
    )


def _server_rows(
    state: ServerState,
    is_folded: bool,
    needle: RowFilter,
    layout: Layout,
    trimmed: frozenset[str],
) -> tuple[Row, ...]:
    """A server's row and its tools' rows (none if the filter leaves the server out)."""
    tools = needle.tools_of(state, trimmed) if needle.active else state.tools
    if tools is None:
        return ()
    rows = [_server_row(state, is_folded, layout)]
    if is_folded:
        return tuple(rows)
    name = state.name
    available = state.status == "connected"
    for tool in tools:
        trims = tool.enabled and tool.bare in trimmed
        rows.append(_tool_row(name, tool, trims, layout, available))
    return tuple(rows)
