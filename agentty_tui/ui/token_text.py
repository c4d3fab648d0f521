"""What the picker's rows say about tokens: the per-tool column and the per-server total.

A tool row has a right-aligned column of ``TOKEN_WIDTH`` cells after the tool's name, blank
until the tool's server is counted (``catalog.tool_costs``, off the UI thread); a connected
server's row ends its tool count with the tokens of its tools that are on. Figures are
``short_count``: exact below a thousand, then one decimal (``41.2k``).

Pure: no I/O, no Textual (``rows`` builds its rows with these).
"""

from __future__ import annotations

from agentty_tui.catalog.tool_costs import ServerCost

__all__ = ["TOKEN_WIDTH", "server_tokens", "short_count", "token_cell"]

TOKEN_WIDTH = 6
"""Cells of the token column: ``999.9k`` fits."""


def short_count(count: int) -> str:
    """``987``, ``41.2k``, ``1.3M``: a token count as the picker shows it."""
    if count < 1000:
        return str(count)
    if count < 999_950:
        return f"{count / 1000:.1f}k"
    return f"{count / 1_000_000:.1f}M"


def token_cell(count: int | None, width: int) -> list[tuple[str, str]]:
    """A tool row's token column (``width`` 0: none): the count right-aligned, blank while
    it is not known."""
    if not width:
        return []
    text = "" if count is None else short_count(count)
    return [("  ", "plain"), (text.rjust(width), "tokens")]


def server_tokens(cost: ServerCost | None) -> list[tuple[str, str]]:
    """What a connected server's row adds after its tool count: the tokens of its tools that
    are on (nothing while they are not counted)."""
    if cost is None:
        return []
    return [(f" · {short_count(cost.enabled)} tokens", "count")]
