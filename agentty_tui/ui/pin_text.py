"""What the picker's rows say about pins: a mark on a pinned tool, and a pinned server's note.

A tool pinned in the config (``tools.pin``), or any tool of a server whose ``priority`` is
above 0, is trimmed only after every unpinned tool (``catalog.projection``). While any tool
shown is pinned, tool rows keep a column of ``PIN_WIDTH`` cells after the check box, holding
``PIN_MARK`` on the pinned ones, so that the names stay in line.

Pure: no I/O, no Textual (``rows`` builds its rows with these).
"""

from __future__ import annotations

from agentty_tui.model import ServerState, ToolState

__all__ = ["PIN_MARK", "PIN_WIDTH", "is_pinned", "pin_cell", "server_pin"]

PIN_MARK = "⚑"
"""The mark of a pinned tool."""
PIN_WIDTH = 2
"""Cells of the pin column: the mark and a space."""


def is_pinned(server: ServerState, tool: ToolState) -> bool:
    """Whether ``tool`` of ``server`` is pinned (by itself, or by its server's priority)."""
    return tool.pinned or server.priority > 0


def pin_cell(pinned: bool, shown: bool) -> list[tuple[str, str]]:
    """A tool row's pin column (``shown``: whether rows have one)."""
    if not shown:
        return []
    return [((PIN_MARK if pinned else "").ljust(PIN_WIDTH), "pinned")]


def server_pin(server: ServerState) -> list[tuple[str, str]]:
    """What a server row adds for a priority: ``pinned`` above 0, the figure below."""
    if server.priority > 0:
        return [(f" · {PIN_MARK} pinned", "pinned")]
    if server.priority < 0:
        return [(f" · priority {server.priority}", "count")]
    return []
