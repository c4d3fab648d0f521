"""What the picker says about pins: a mark on a pinned tool, a pinned server's note, and the
details' lines saying what is pinned and where the pins are kept.

A tool pinned in the config (``tools.pin``), or any tool of a server whose ``priority`` is
above 0, is trimmed only after every unpinned tool (``catalog.projection``). While any tool
shown is pinned, tool rows keep a column of ``PIN_WIDTH`` cells after the check box, holding
``PIN_MARK`` on the pinned ones, so that the names stay in line.

The details (``pin_lines``) say where ``p`` writes: the server's own config file
(``tools.pin`` and ``"priority"``, agentty's files), or agentty's pin store for a server of a
host's file, which cannot hold pins (``config.pins``).

Pure: no I/O, no Textual (``rows`` builds its rows with these).
"""

from __future__ import annotations

from agentty_tui.config.hosts.switches import HOST_NAMES
from agentty_tui.model import ServerState, ToolState
from agentty_tui.terminal_text import safe_line

__all__ = ["PIN_MARK", "PIN_WIDTH", "is_pinned", "pin_cell", "pin_lines", "server_pin"]

SHOWN_PINS = 5
"""Pinned tools a server's details name; the rest are counted."""

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


def _kept_where(server: ServerState) -> tuple[str, ...]:
    """Where ``server``'s pins are kept (and ``p`` writes them), in words; the pin store's path
    and why on lines of their own (a long path wraps by itself, not the words)."""
    if server.pins_kept_in is None:
        return ('pins kept  in its config file: tools.pin and "priority"',)
    source = server.source
    owner = "its file" if source is None else f"{HOST_NAMES.get(source.host, source.host)}'s file"
    return (
        "pins kept  in agentty's pin store:",
        f"           {safe_line(server.pins_kept_in)}",
        f"           ({safe_line(owner)} cannot hold pins)",
    )


def pin_lines(server: ServerState, tool: ToolState | None = None) -> tuple[str, ...]:
    """The details' lines about pins: what is pinned (of ``tool``, or of the server when
    ``None``) and where the pins are kept, as plain text."""
    if tool is not None:
        if tool.pinned:
            state = "pinned (p unpins it)"
        elif server.priority > 0:
            state = f"pinned, as every tool of its server (priority {server.priority})"
        else:
            state = "not pinned (p pins it)"
        return (f"pin        {state}", *_kept_where(server))
    pinned = [safe_line(t.bare) for t in server.tools if t.pinned]
    parts = []
    if server.priority > 0:
        parts.append(f"every tool (priority {server.priority})")
    elif server.priority < 0:
        parts.append(f"priority {server.priority}: its tools come last")
    if pinned:
        more = len(pinned) - SHOWN_PINS
        names = ", ".join(pinned[:SHOWN_PINS]) + (f" and {more} more" if more > 0 else "")
        parts.append(names)
    state = "; ".join(parts) or "nothing (p pins every tool)"
    return (f"pinned     {state}", *_kept_where(server))
