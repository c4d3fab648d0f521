"""Snapshot → rows: what the picker shows, as pure values.

``build_rows`` turns one model snapshot (with its wire catalog, the folded servers and the filter
text) into a tuple of frozen ``Row`` values: a row per server, and under it a row per tool. Each
row has a stable identity ``key`` (``("server", name)`` or ``("tool", server, bare)``) and its
text as ``(text, role)`` segments; the widget maps roles to styles and never looks at the model.

``row_diff`` says which rows of two such tuples changed and where the cursor belongs after an
update; ``row_filter`` parses the filter text; ``row_source`` is the workspace's side of a row.

The columns: every server's tool rows use the same ``Layout``, so the title column starts at
the same place from server to server. On a wide terminal (``WIDE_COLUMNS`` or more) a tool row
shows its title and its description in two columns; otherwise one label column (the title,
else the first line of the description). While the budget trims any tool, a column for the
``✂ trimmed`` mark is kept on every tool row, so that the marks do not push their labels out of
line; the same column holds ``⧗ needs task support`` for a tool that runs only as a task (off
the wire). While any tool has annotations, a column of the server's hint marks (``tool_marks``:
``R D I W``) follows the name. Widths are measured per server and kept while the server's
``(name, revision)`` is (``ToolWidths``): measuring 5,000 tools costs milliseconds, too much
for every toggle.

A ``RowMemo`` passed to ``build_rows`` keeps each server's rows from the previous
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

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

from agentty_tui.catalog import WireCatalog
from agentty_tui.catalog.tool_costs import ServerCost
from agentty_tui.model import PluginModel, ServerState, ToolState, hosts_in_use
from agentty_tui.terminal_text import safe_line
from agentty_tui.ui.pin_text import is_pinned, pin_cell, server_pin
from agentty_tui.ui.row_filter import RowFilter, parse_filter
from agentty_tui.ui.row_source import (
    is_project_untrusted,
    shadowed_by_name,
    shadowed_key,
    source_text,
    source_width,
    untrusted_segments,
)
from agentty_tui.ui.token_text import TOKEN_WIDTH, server_tokens, token_cell
from agentty_tui.ui.tool_marks import TASK_MARK, has_hints, hint_marks

__all__ = [
    "LABEL_LIMIT",
    "TRIMMED_MARK",
    "WIDE_COLUMNS",
    "Layout",
    "Row",
    "RowKey",
    "RowMemo",
    "Segment",
    "ToolWidths",
    "build_rows",
    "cut",
    "first_line",
    "row_server",
    "server_key",
    "tool_cells",
    "tool_key",
]

RowKey = tuple[str, ...]
"""Identity of a row: ``("server", name)``, ``("tool", server, bare)`` or ``("shadowed", name,
path, scope)``."""

Segment = tuple[str, str]
"""A piece of a row's text and its role (a style name the widget maps to a colour)."""

# --- the columns ----------------------------------------------------------------------

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
    token_width: int = 0
    """Tool rows: the token column's width (``token_text``); 0: no column (tokens are not
    counted)."""
    pins: bool = False
    """Tool rows: whether a column is kept for the pin mark (some tool shown is pinned)."""
    hints: bool = False
    """Whether a column is kept for the server's hint marks (``tool_marks``: some tool has
    one)."""
    tasks: bool = False
    """Whether the mark column is kept for ``⧗ needs task support`` (some tool runs only as a
    task)."""

    @property
    def mark_width(self) -> int:
        """The mark column's width (0: no column): room for each mark that may show."""
        return max(len(TRIMMED_MARK) if self.trimmed else 0, len(TASK_MARK) if self.tasks else 0)


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
        self._entries: dict[str, tuple[int, int, int, bool, bool, bool]] = {}

    def of(self, server: ServerState) -> tuple[int, int]:
        """The widest (name, title) among the tools of ``server``."""
        entry = self._entry(server)
        return entry[1], entry[2]

    def pins(self, server: ServerState) -> bool:
        """Whether some tool of ``server`` is pinned (``pin_text``)."""
        return self._entry(server)[3]

    def _entry(self, server: ServerState) -> tuple[int, int, int, bool, bool, bool]:
        """(revision, widest name, widest title, some pin, some hint mark, some task-only
        tool) of ``server``, measured once per revision."""
        entry = self._entries.get(server.name)
        if entry is not None and entry[0] == server.revision:
            return entry
        tools = server.tools
        names = max((len(safe_line(tool.bare)) for tool in tools), default=0)
        titles = max((len(safe_line(cut(tool.title or ""))) for tool in tools), default=0)
        pins = bool(tools) and (server.priority > 0 or any(tool.pinned for tool in tools))
        hints = any(has_hints(tool.hints) for tool in tools)
        tasks = any(tool.needs_tasks for tool in tools)
        entry = self._entries[server.name] = (server.revision, names, titles, pins, hints, tasks)
        return entry

    def layout(
        self,
        model: PluginModel,
        *,
        trimmed: bool,
        wide: bool,
        sources: bool = False,
        tokens: bool = False,
    ) -> Layout:
        """The layout of ``model``'s rows (servers no longer there are forgotten); ``sources``:
        whether the terminal has room for a source column; ``tokens``: whether tool rows have
        a token column."""
        name_width = tool_width = title_width = 0
        pins = any_hints = any_tasks = False
        for server in model.servers:
            name_width = max(name_width, len(safe_line(server.name)))
            _, names, titles, pinned, hints, tasks = self._entry(server)
            tool_width = max(tool_width, names)
            title_width = max(title_width, titles)
            pins = pins or pinned
            any_hints, any_tasks = any_hints or hints, any_tasks or tasks
        if len(self._entries) > len(model.servers):
            shown = {server.name for server in model.servers}
            self._entries = {k: v for k, v in self._entries.items() if k in shown}
        return Layout(
            name_width=name_width,
            tool_width=min(tool_width, NAME_LIMIT),
            trimmed=trimmed,
            title_width=min(title_width, TITLE_LIMIT) if wide else None,
            source_width=source_width(model) if sources else 0,
            token_width=TOKEN_WIDTH if tokens else 0,
            pins=pins,
            hints=any_hints,
            tasks=any_tasks,
        )


def tool_cells(tool: ToolState, is_trimmed: bool, layout: Layout) -> list[Segment]:
    """What follows a tool row's name: the server's hint marks, the trimmed or task-only mark,
    then the label or title and description columns (trailing padding left out)."""
    cells: list[Segment] = []
    if layout.hints:
        cells += [(_GAP, "plain"), (hint_marks(tool), "hints")]
    if layout.mark_width:
        mark = TASK_MARK if tool.needs_tasks else TRIMMED_MARK if is_trimmed else ""
        cells += [(_GAP, "plain"), (mark.ljust(layout.mark_width), "trimmed")]
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


# --- the rows -------------------------------------------------------------------------

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
CHECK_MIXED = "[~]"
"""A tool on for some hosts holding its server and off for others (``h`` shows each)."""


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
    mixed: bool = False
    """Tool rows: on for some hosts holding the server, off for others (``[~]``)."""

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


def row_server(model: PluginModel, row: Row) -> ServerState | None:
    """The server state ``row`` stands for in ``model`` (``None``: gone meanwhile); a shadowed
    row's is the hidden entry itself, never the one that wins."""
    if row.kind == "shadowed":
        return next((s for s in model.shadowed if shadowed_key(s) == row.key), None)
    return model.server(row.server)


def tool_key(server: str, bare: str) -> RowKey:
    """The key of a tool's row."""
    return ("tool", server, bare)


class RowMemo:
    """Each server's rows from the last ``build_rows`` call, reused while their inputs hold.

    Owned by one caller (the picker app keeps one); not thread-safe, and needs no invalidation:
    an entry is keyed on the server's ``(name, revision)`` (docs/ARCHITECTURE.md §3) and the
    view state its rows depend on, and entries of servers no longer shown are dropped on the
    next call. ``hits`` and ``misses`` count reused and rebuilt servers (for tests and
    benchmarks).
    """

    __slots__ = ("_entries", "_next", "hits", "misses", "widths")

    def __init__(self) -> None:
        self._entries: dict[str, tuple[tuple[Any, ...], tuple[Row, ...]]] = {}
        self._next: dict[str, tuple[tuple[Any, ...], tuple[Row, ...]]] = {}
        self.hits = 0
        self.misses = 0
        self.widths = ToolWidths()
        """Each server's widest tool name and title (the shared columns are their maxima)."""

    def clear(self) -> None:
        """Forget every server's rows."""
        self._entries.clear()
        self._next.clear()

    def rows(
        self,
        state: ServerState,
        view: tuple[object, ...],
        build: Callable[[], tuple[Row, ...]],
    ) -> tuple[Row, ...]:
        """The server's rows under ``view`` (folded, filter, layout, trimmed tools, its token
        counts, the order): the previous call's when the server's revision and the view are the
        same, else ``build()``.
        """
        key = (state.revision, *view)
        entry = self._entries.get(state.name)
        if entry is not None and entry[0] == key:
            self.hits += 1
        else:
            self.misses += 1
            entry = (key, build())
        self._next[state.name] = entry
        return entry[1]

    def end(self) -> None:
        """Finish one ``build_rows`` call: keep only the servers it asked for."""
        self._entries, self._next = self._next, {}


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


def _server_row(
    state: ServerState, folded: bool, layout: Layout, cost: ServerCost | None = None
) -> Row:
    fold = (FOLD_CLOSED if folded else FOLD_OPEN) if state.tools else " "
    segments = _lead(state, fold, layout, "server-name")
    if state.status == "connected":
        segments.append((f"{state.enabled_count}/{len(state.tools)} tools on", "count"))
        segments += server_tokens(cost)
        segments += server_pin(state)
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
    server: str,
    tool: ToolState,
    trimmed: bool,
    layout: Layout,
    available: bool = True,
    mixed: bool = False,
    tokens: int | None = None,
    pinned: bool = False,
) -> Row:
    if not available:  # its server is not connected: the setting shows, dimmed
        check_role = name_role = "unavailable"
    elif tool.enabled:
        check_role, name_role = "on", "tool-name"
    else:
        check_role, name_role = "off", "tool-name-off"
    segments: list[Segment] = [
        ("    ", "plain"),
        (
            CHECK_MIXED if mixed and tool.enabled else CHECK_ON if tool.enabled else CHECK_OFF,
            check_role,
        ),
        (" ", "plain"),
        *pin_cell(pinned, layout.pins),
        (safe_line(tool.bare).ljust(layout.tool_width), name_role),
        *token_cell(tokens, layout.token_width),
        *tool_cells(tool, trimmed, layout),
    ]
    return Row(
        key=tool_key(server, tool.bare),
        kind="tool",
        server=server,
        segments=tuple(segments),
        tool=tool.bare,
        enabled=tool.enabled,
        mixed=mixed and tool.enabled,
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
    costs: Callable[[ServerState], ServerCost | None] | None = None,
    by_cost: bool = False,
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
    in a column of its own (``Layout``); ``sources``: a terminal of ``SOURCE_COLUMNS`` or
    more, where a workspace's server rows show their source (``row_source``). A workspace's
    shadowed entries follow the rows of the server that wins over them, one dim row each.

    ``costs`` (``catalog.tool_costs``): each server's token counts, ``None`` while not counted;
    given, tool rows have a token column and connected servers' rows their total. ``by_cost``:
    servers by the tokens of their tools that are on, most first (those not counted yet after,
    in config order), and each server's tools by their tokens, most first; ties keep config
    and advertised order.
    """
    needle = parse_filter(filter_text)
    trimmed_sets = catalog.trimmed_by_server()
    widths = ToolWidths() if memo is None else memo.widths
    layout = widths.layout(
        model, trimmed=bool(trimmed_sets), wide=wide, sources=sources, tokens=costs is not None
    )
    hidden = shadowed_by_name(model)  # empty for one config file
    rows: list[Row] = []
    priced = [(state, None if costs is None else costs(state)) for state in model.servers]
    if by_cost:
        priced.sort(key=_most_expensive_first)
    for state, cost in priced:
        is_folded = state.name in folded
        trimmed = trimmed_sets.get(state.name, _NOTHING_TRIMMED)
        build = partial(_server_rows, state, is_folded, needle, layout, trimmed, cost, by_cost)
        if memo is None:
            rows += build()
        else:
            view = (is_folded, needle, layout, trimmed, cost, by_cost)
            rows += memo.rows(state, view, build)
        # A hidden entry goes right under the rows of the one that wins over it.
        for shadowed in hidden.pop(state.name, ()):
            rows += _shadowed_rows(shadowed, needle, layout)
    for left in hidden.values():  # a winner that is not listed: at the end
        for shadowed in left:
            rows += _shadowed_rows(shadowed, needle, layout)
    if memo is not None:
        memo.end()
    return tuple(rows)


def _most_expensive_first(priced: tuple[ServerState, ServerCost | None]) -> int:
    """The sort key of ``by_cost``: a server's tokens on, negated; not counted yet: last."""
    cost = priced[1]
    return 1 if cost is None else -cost.enabled


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
    cost: ServerCost | None = None,
    by_cost: bool = False,
) -> tuple[Row, ...]:
    """A server's row and its tools' rows (none if the filter leaves the server out)."""
    tools = needle.tools_of(state, trimmed) if needle.active else state.tools
    if tools is None:
        return ()
    rows = [_server_row(state, is_folded, layout, cost)]
    if is_folded:
        return tuple(rows)
    counts = cost.tools if cost is not None else {}
    if by_cost and counts:
        tools = tuple(sorted(tools, key=lambda tool: -counts.get(tool.bare, 0)))
    name = state.name
    available = state.status == "connected"
    views = hosts_in_use(state.hosts)  # do the hosts differ about a tool?
    for tool in tools:
        trims = tool.enabled and tool.bare in trimmed
        mixed = len({view.sends(tool.bare) for view in views}) > 1
        tokens = counts.get(tool.bare)
        pinned = is_pinned(state, tool)
        rows.append(_tool_row(name, tool, trims, layout, available, mixed, tokens, pinned))
    return tuple(rows)
