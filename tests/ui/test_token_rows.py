"""The rows' token column, the servers' totals and the order by cost (``ui/token_text.py``
with ``rows.build_rows``), as pure values."""

from __future__ import annotations

from agentty_tui.catalog import project_catalog
from agentty_tui.catalog.tool_costs import CostBook, ServerCost
from agentty_tui.model import PluginModel, ServerState
from agentty_tui.ui.rows import Row, RowMemo, build_rows
from agentty_tui.ui.token_text import TOKEN_WIDTH, short_count
from tests.ui.fakes import model, server, tool


def _priced() -> PluginModel:
    return model(
        server("cheap", tool("a", description="short"), tool("b", description="tiny")),
        server(
            "dear",
            tool("small", description="one"),
            tool("big", description="word " * 200),
            tool("off", enabled=False, description="word " * 100),
        ),
    )


def _rows(
    m: PluginModel, book: CostBook | None, *, by_cost: bool = False, memo: RowMemo | None = None
) -> tuple[Row, ...]:
    costs = None if book is None else book.of
    return build_rows(m, project_catalog(m), memo=memo, costs=costs, by_cost=by_cost)


def _cost(book: CostBook, state: ServerState) -> ServerCost:
    cost = book.of(state)
    assert cost is not None
    return cost


def test_each_tool_row_has_its_tokens_right_aligned_after_its_name() -> None:
    """Every tool row has the column (on or off), right-aligned in ``TOKEN_WIDTH`` cells just
    after the name column; a connected server's row adds the tokens of its tools that are on."""
    m = _priced()
    book = CostBook()
    book.count(m)
    rows = _rows(m, book)
    dear = _cost(book, m.servers[1])
    big = rows[5]
    assert big.key == ("tool", "dear", "big")
    figure = short_count(dear.tools["big"])
    assert big.text.startswith(f"    [x] big    {figure.rjust(TOKEN_WIDTH)}  ")
    assert ("  ", "plain") in big.segments and (figure.rjust(TOKEN_WIDTH), "tokens") in big.segments
    off = rows[6]
    assert off.text.startswith(
        f"    [ ] off    {short_count(dear.tools['off']).rjust(TOKEN_WIDTH)}"
    )
    assert rows[3].text.rstrip() == f"▾ ● dear   2/3 tools on · {short_count(dear.enabled)} tokens"
    assert dear.enabled == dear.tools["small"] + dear.tools["big"]


def test_rows_show_no_figure_until_their_server_is_counted() -> None:
    """Before the count the column is kept, blank (the labels do not move when it comes), and
    the server row says nothing of tokens; without counting there is no column at all."""
    m = _priced()
    rows = _rows(m, CostBook())
    assert rows[1].text == f"    [x] a      {' ' * TOKEN_WIDTH}  short"
    assert rows[0].text.rstrip() == "▾ ● cheap  2/2 tools on"
    plain = _rows(m, None)
    assert plain[1].text == "    [x] a      short"


def test_by_cost_puts_the_dearest_server_and_tool_first() -> None:
    """``by_cost``: servers by the tokens of their tools that are on, most first, and each
    server's tools by their own tokens, most first (an off tool too: what it would cost); a
    server not counted yet goes last, in config order."""
    m = _priced()
    book = CostBook()
    book.count(m)
    keys = [row.key for row in _rows(m, book, by_cost=True)]
    assert keys == [
        ("server", "dear"),
        ("tool", "dear", "big"),
        ("tool", "dear", "off"),
        ("tool", "dear", "small"),
        ("server", "cheap"),
        ("tool", "cheap", "a"),
        ("tool", "cheap", "b"),
    ]
    later = model(*m.servers, server("new", tool("z", description="word " * 500)))
    order = [row.key for row in _rows(later, book, by_cost=True) if row.kind == "server"]
    assert order == [("server", "dear"), ("server", "cheap"), ("server", "new")]
    assert [row.key for row in _rows(m, book)][:2] == [("server", "cheap"), ("tool", "cheap", "a")]


def test_the_memo_rebuilds_a_server_when_its_counts_arrive_and_equals_a_fresh_build() -> None:
    m = _priced()
    memo, book = RowMemo(), CostBook()
    first = _rows(m, book, memo=memo)
    book.count(m)
    second = _rows(m, book, memo=memo)
    assert second == _rows(m, book) and second != first
    third = _rows(m, book, memo=memo)
    assert all(x is y for x, y in zip(second, third, strict=True))
    sorted_rows = _rows(m, book, memo=memo, by_cost=True)
    assert sorted_rows == _rows(m, book, by_cost=True)


def test_a_pinned_tool_has_its_mark_and_a_pinned_server_says_so() -> None:
    """While any tool shown is pinned every tool row keeps a pin column (names stay in line):
    ⚑ on a pinned tool, and on every tool of a server whose priority is above 0, which says
    "pinned" on its row."""
    m = _priced()
    cheap, dear = m.servers
    tools = (dear.tools[0].model_copy(update={"pinned": True}), *dear.tools[1:])
    pinned = model(
        cheap.model_copy(update={"priority": 1}), dear.model_copy(update={"tools": tools})
    )
    rows = _rows(pinned, None)
    assert rows[0].text.rstrip() == "▾ ● cheap  2/2 tools on · ⚑ pinned"
    assert [row.text[:16] for row in rows if row.kind == "tool"] == [
        "    [x] ⚑ a     ",
        "    [x] ⚑ b     ",
        "    [x] ⚑ small ",
        "    [x]   big   ",
        "    [ ]   off   ",
    ]
    assert _rows(m, None)[1].text.startswith("    [x] a      ")  # no pins: no column


def test_short_counts() -> None:
    """The status bar's token figure: exact below a thousand, then one decimal."""
    assert [short_count(n) for n in (0, 987, 1000, 41_234, 999_949, 999_950, 1_250_000)] == [
        "0",
        "987",
        "1.0k",
        "41.2k",
        "999.9k",
        "1.0M",
        "1.2M",
    ]
