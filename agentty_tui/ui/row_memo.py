"""The picker's row cache: each server's rows from the last ``build_rows``, kept while valid.

Pure: no I/O, no Textual; a cache its caller owns, never a source of truth (``rows.py`` says
what it keys on and why the result equals a build without it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agentty_tui.model import ServerState
from agentty_tui.ui.row_filter import RowFilter
from agentty_tui.ui.row_layout import Layout, ToolWidths

if TYPE_CHECKING:  # rows.py imports this module: the row type is needed for annotations only
    from agentty_tui.ui.rows import Row

__all__ = ["RowMemo"]


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
        view: tuple[bool, RowFilter, Layout, frozenset[str]],
        build: Callable[[], tuple[Row, ...]],
    ) -> tuple[Row, ...]:
        """The server's rows under ``view`` (folded, filter, layout, trimmed tools): the
        previous call's when the server's revision and the view are the same, else ``build()``.
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
