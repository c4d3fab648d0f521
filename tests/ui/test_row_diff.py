"""row_diff.py: the row diff and the cursor rule, as pure functions."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agentty_tui.catalog import project_catalog
from agentty_tui.model import PluginModel
from agentty_tui.ui.row_diff import RowDiff, diff_rows, follow_cursor
from agentty_tui.ui.rows import Row, build_rows
from tests.ui.fakes import connected_model, model, server, tool


def rows_of(m: PluginModel) -> tuple[Row, ...]:
    return build_rows(m, project_catalog(m))


# --- diff ------------------------------------------------------------------------------


def test_diff_of_a_toggle_is_one_changed_tool_and_its_server() -> None:
    before = connected_model()
    notes = before.servers[0]
    toggled = notes.model_copy(
        update={"tools": (notes.tools[0].model_copy(update={"enabled": False}), *notes.tools[1:])}
    )
    after = before.model_copy(update={"servers": (toggled, before.servers[1])})
    diff = diff_rows(rows_of(before), rows_of(after))
    assert diff == RowDiff(changed=(0, 1))


def test_diff_of_revealed_tools_is_one_insertion() -> None:
    before = model(server("g", tool("a"), tool("b")), server("h", tool("z")))
    after = model(server("g", tool("a"), tool("b"), tool("c"), tool("d")), server("h", tool("z")))
    diff = diff_rows(rows_of(before), rows_of(after))
    assert [(s.old_start, s.old_end, s.new_start, s.new_end) for s in diff.splices] == [
        (3, 3, 3, 5)
    ]
    assert diff.changed == (0,)  # "2/2 tools on" became "4/4 tools on"


def apply(old: tuple[Row, ...], new: tuple[Row, ...], diff: RowDiff) -> list[Row]:
    """What the widget does with a diff."""
    result = list(old)
    for s in reversed(diff.splices):
        result[s.old_start : s.old_end] = new[s.new_start : s.new_end]
    for index in diff.changed:
        result[index] = new[index]
    return result


def row(key: str, version: int) -> Row:
    return Row(key=("tool", "s", key), kind="tool", server="s", segments=((str(version), "plain"),))


rows_strategy = st.lists(
    st.tuples(st.sampled_from("abcdefghij"), st.integers(0, 1)), unique_by=lambda kv: kv[0]
).map(lambda kvs: tuple(row(k, v) for k, v in kvs))


@given(rows_strategy, rows_strategy)
def test_applying_a_diff_gives_the_new_rows(old: tuple[Row, ...], new: tuple[Row, ...]) -> None:
    diff = diff_rows(old, new)
    assert apply(old, new, diff) == list(new)
    assert diff.empty == (old == new)


# --- cursor ----------------------------------------------------------------------------


def test_cursor_stays_on_its_tool_when_rows_appear_above() -> None:
    before = rows_of(model(server("g", tool("a"), tool("b"))))
    after = rows_of(model(server("new", tool("x")), server("g", tool("z"), tool("a"), tool("b"))))
    assert follow_cursor(before, after, 2) == [r.key for r in after].index(("tool", "g", "b"))


def test_cursor_moves_to_the_nearest_tool_of_the_same_server_when_its_tool_goes() -> None:
    before = rows_of(model(server("g", tool("a"), tool("b"), tool("c")), server("h", tool("z"))))
    middle_gone = rows_of(model(server("g", tool("a"), tool("c")), server("h", tool("z"))))
    assert middle_gone[follow_cursor(before, middle_gone, 2) or 0].key == ("tool", "g", "c")
    last_gone = rows_of(model(server("g", tool("a"), tool("b")), server("h", tool("z"))))
    # the next row belongs to another server: the previous tool of the same server wins
    assert last_gone[follow_cursor(before, last_gone, 3) or 0].key == ("tool", "g", "b")
    all_gone = rows_of(model(server("g"), server("h", tool("z"))))
    assert all_gone[follow_cursor(before, all_gone, 2) or 0].key == ("server", "g")


def test_cursor_goes_to_a_neighbour_when_its_server_goes() -> None:
    before = rows_of(model(server("g", tool("a")), server("h", tool("z"))))
    after = rows_of(model(server("h", tool("z"))))
    assert after[follow_cursor(before, after, 1) or 0].key == ("server", "h")
    assert follow_cursor(before, (), 1) is None
    assert follow_cursor((), after, None) == 0
