"""How the rows on screen change: the fewest row updates between two row tuples, and where the
cursor belongs afterwards.

``diff_rows`` says which rows of two tuples (from ``rows.build_rows``) changed, so the widget
touches only those: rows reused from a ``RowMemo`` are the same objects and are skipped by
identity. ``follow_cursor`` finds where the cursor belongs after an update (same identity; if
that row went away, the nearest row of the same server).

Pure: no I/O, no Textual.
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher
from itertools import compress
from operator import is_not

from agentty_tui.ui.rows import Row

__all__ = ["RowDiff", "Splice", "diff_rows", "follow_cursor"]


@dataclass(frozen=True, slots=True)
class Splice:
    """Replace ``old[old_start:old_end]`` with ``new[new_start:new_end]``."""

    old_start: int
    old_end: int
    new_start: int
    new_end: int


@dataclass(frozen=True, slots=True)
class RowDiff:
    """How to turn one row tuple into another with the fewest row updates.

    Apply the splices last to first (each in old coordinates, so earlier ones stay valid), then
    re-render the rows at ``changed`` (new coordinates): same identity, different content.
    """

    splices: tuple[Splice, ...] = ()
    """Runs of rows removed, inserted or replaced, in increasing order."""
    changed: tuple[int, ...] = ()
    """Indices (into the new rows) of rows that kept their place but changed."""

    @property
    def empty(self) -> bool:
        """True when nothing changed."""
        return not self.splices and not self.changed


def diff_rows(old: tuple[Row, ...], new: tuple[Row, ...]) -> RowDiff:
    """The changes from ``old`` to ``new`` (keys are unique within each tuple)."""
    if len(old) == len(new):
        # The common case, toggles and status changes: the same keys in the same places, and
        # most rows the very same objects (reused from a ``RowMemo``). Find the others with
        # built-ins only, then look at those alone.
        differing = list(compress(range(len(new)), map(is_not, old, new)))
        if all(old[i].key == new[i].key for i in differing):
            return RowDiff(changed=tuple(i for i in differing if old[i] != new[i]))
    old_keys = [row.key for row in old]
    new_keys = [row.key for row in new]
    splices: list[Splice] = []
    changed: list[int] = []
    matcher = SequenceMatcher(None, old_keys, new_keys, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            changed += [
                j1 + k
                for k in range(i2 - i1)
                if old[i1 + k] is not new[j1 + k] and old[i1 + k] != new[j1 + k]
            ]
        else:
            splices.append(Splice(i1, i2, j1, j2))
    return RowDiff(splices=tuple(splices), changed=tuple(changed))


def follow_cursor(old: tuple[Row, ...], new: tuple[Row, ...], index: int | None) -> int | None:
    """Where the cursor at ``old[index]`` belongs in ``new``.

    The row with the same key if it is still there; else the nearest surviving row of the same
    server, its own row included (looking both ways in the old order, the following row first
    on a tie); else the nearest surviving row of any server; else the same index, clamped.
    """
    if not new:
        return None
    if index is None or not 0 <= index < len(old):
        return 0
    current = old[index]
    if index < len(new) and new[index].key == current.key:  # the common case: in place
        return index
    where = {row.key: i for i, row in enumerate(new)}
    if current.key in where:
        return where[current.key]
    anywhere: int | None = None
    for distance in range(1, len(old)):
        for probe in (index + distance, index - distance):
            if 0 <= probe < len(old) and old[probe].key in where:
                if old[probe].server == current.server:
                    return where[old[probe].key]
                if anywhere is None:
                    anywhere = where[old[probe].key]
    if anywhere is not None:
        return anywhere
    return min(index, len(new) - 1)
