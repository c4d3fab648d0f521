"""rows.py: snapshot → rows (their filter and layout too), as pure functions."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agentty_tui.catalog import project_catalog
from agentty_tui.model import DroppedTool, PluginModel, ServerState
from agentty_tui.ui.row_diff import RowDiff, diff_rows
from agentty_tui.ui.rows import Row, RowMemo, ToolWidths, build_rows
from tests.ui.fakes import (
    connected_model,
    connecting_model,
    crashed_model,
    failed_model,
    hinted_model,
    model,
    over_budget_model,
    server,
    tool,
)


def rows_of(
    m: PluginModel, folded: frozenset[str] = frozenset(), text: str = ""
) -> tuple[Row, ...]:
    return build_rows(m, project_catalog(m), folded, text)


def texts(rows: tuple[Row, ...]) -> list[str]:
    return [row.text.rstrip() for row in rows]


def test_connected_servers_and_their_tools_in_order() -> None:
    rows = rows_of(connected_model())
    assert [row.key for row in rows] == [
        ("server", "notes"),
        ("tool", "notes", "add_note"),
        ("tool", "notes", "list_notes"),
        ("tool", "notes", "delete_note"),
        ("server", "editor"),
        ("tool", "editor", "enable_toolset"),
        ("tool", "editor", "disable_toolset"),
        ("tool", "editor", "scene_open"),
    ]
    # The label column is shared by every server: editor's disable_toolset is the widest.
    assert texts(rows)[:6] == [
        "▾ ● notes   2/3 tools on",
        "    [x] add_note         Add a note to the notebook.",
        "    [x] list_notes       List every note.",
        "    [ ] delete_note      Delete a note by its id.",
        "▾ ● editor  2/3 tools on",
        "    [x] enable_toolset   Reveal a toolset's tools.",
    ]
    delete = rows[3]
    assert (delete.kind, delete.server, delete.tool, delete.enabled) == (
        "tool",
        "notes",
        "delete_note",
        False,
    )
    assert dict((role, text) for text, role in delete.segments)["off"] == "[ ]"


def test_status_of_each_server() -> None:
    assert texts(rows_of(connecting_model()))[0] == "  ◌ notes    connecting…"
    failed = texts(rows_of(failed_model()))
    assert failed[2] == (
        "  ✗ broken  failed — command not found: 'no-such-server' (is it installed and on PATH?)"
        "  R restarts"
    )
    assert failed[3] == "  ○ parked  disabled in config  space enables"


def test_a_failed_servers_tools_show_their_setting_but_not_as_on_the_wire() -> None:
    """A server that failed after listing its tools ships none: its row says so, and its
    tools keep [x] / [ ] in the dimmed "unavailable" role, never "on"."""
    rows = rows_of(crashed_model())
    assert texts(rows)[2:] == [
        "▾ ✗ editor  failed · 0 on the wire — exited with status 1  R restarts",
        "    [x] scene_open   Open a scene file.",
        "    [ ] scene_close  Close the scene.",
    ]
    for row in rows[3:]:
        roles = {role for _text, role in row.segments}
        assert "unavailable" in roles and not roles & {"on", "off", "tool-name"}
    assert rows[3].enabled and not rows[4].enabled  # space still flips the setting


def test_is_words_filter_servers_and_tools_by_state() -> None:
    """Server states keep whole servers, tool states keep tools under their server, name text
    narrows both; an unknown state keeps nothing."""
    m = model(*crashed_model().servers, *failed_model().servers[1:])
    assert [r.key[-1] for r in rows_of(m, text="is:failed")] == [
        "editor",
        "scene_open",
        "scene_close",
        "broken",
    ]
    assert [r.key[-1] for r in rows_of(m, text="is:off")] == ["editor", "scene_close"]
    assert [r.key[-1] for r in rows_of(m, text="is:failed OPEN")] == ["editor", "scene_open"]
    assert [r.key[-1] for r in rows_of(m, text="is:disabled is:connected")] == [
        "notes",
        "add_note",
        "parked",
    ]
    assert rows_of(m, text="is:broken") == ()


def test_wide_rows_show_title_and_description_in_aligned_columns() -> None:
    """Wide: the title column, then the description's first line, both lined up across
    servers; a description equal to the title is not repeated. A trimmed tool's mark has a
    column of its own, so labels stay in line."""
    titled = tool("scan", description="Scan the disk.\nSlowly.").model_copy(
        update={"title": "Disk scan"}
    )
    same = tool("ping", description="Ping").model_copy(update={"title": "Ping"})
    m = model(server("a", titled, same), server("bb", tool("a_long_name")), budget=4)
    catalog = project_catalog(m)
    assert texts(build_rows(m, catalog, wide=True)) == [
        "▾ ● a   2/2 tools on",
        "    [x] scan                    Disk scan  Scan the disk.",
        "    [x] ping                    Ping",
        "▾ ● bb  1/1 tools on",
        "    [x] a_long_name  ✂ trimmed             The a_long_name tool.",
    ]
    assert texts(build_rows(m, catalog)) == [
        "▾ ● a   2/2 tools on",
        "    [x] scan                    Disk scan",
        "    [x] ping                    Ping",
        "▾ ● bb  1/1 tools on",
        "    [x] a_long_name  ✂ trimmed  The a_long_name tool.",
    ]
    description = build_rows(m, catalog, wide=True)[1].segments[-1]
    assert description == ("Scan the disk.", "description")


def test_invalid_tools_left_out_are_counted() -> None:
    state = server("s", tool("ok")).model_copy(
        update={"dropped_tools": (DroppedTool(name="bad name", reason="has a space"),)}
    )
    assert texts(rows_of(model(state)))[0] == "▾ ● s  1/1 tools on · 1 invalid tool left out"


def test_error_text_is_one_line() -> None:
    m = model(server("x", status="failed", error="\n  exited with status 1\nTraceback ..."))
    assert texts(rows_of(m)) == ["  ✗ x  failed — exited with status 1  R restarts"]


def test_an_invalid_entry_has_no_restart_hint() -> None:
    """A config entry that cannot start needs an edit, not a restart."""
    invalid = ServerState(name="bad", status="failed", error="server 'bad': no command")
    assert texts(rows_of(model(invalid))) == ["  ✗ bad  failed — server 'bad': no command"]


def test_trimmed_tools_are_marked_and_off_tools_are_not() -> None:
    rows = rows_of(over_budget_model())
    trimmed = [row.tool for row in rows if "✂ trimmed" in row.text]
    assert trimmed == ["cloud_2", "cloud_3", "cloud_4"]
    assert any(role == "trimmed" for _, role in rows[-1].segments)


def test_title_wins_over_description() -> None:
    t = tool("t", description="first line\nsecond line").model_copy(update={"title": "Nice T"})
    plain = tool("u", description="\n\nfirst real line\nmore")
    rows = rows_of(model(server("s", t, plain)))
    assert texts(rows)[1:] == ["    [x] t  Nice T", "    [x] u  first real line"]


def test_folded_server_hides_its_tools() -> None:
    rows = rows_of(connected_model(), folded=frozenset({"notes"}))
    assert [row.key for row in rows][:2] == [("server", "notes"), ("server", "editor")]
    assert rows[0].folded and rows[0].text.startswith("▸")
    assert not rows[1].folded


def test_filter_by_server_name_keeps_all_its_tools() -> None:
    rows = rows_of(connected_model(), text="EDIT")
    assert [row.key[-1] for row in rows] == [
        "editor",
        "enable_toolset",
        "disable_toolset",
        "scene_open",
    ]


def test_filter_by_tool_name_or_label_keeps_the_server_row() -> None:
    assert [row.key[-1] for row in rows_of(connected_model(), text="note")] == [
        "notes",
        "add_note",
        "list_notes",
        "delete_note",
    ]
    by_label = rows_of(connected_model(), text="scene file")
    assert [row.key[-1] for row in by_label] == ["editor", "scene_open"]
    assert rows_of(connected_model(), text="nothing matches") == ()


def test_rows_are_equal_when_nothing_changed() -> None:
    assert rows_of(connected_model()) == rows_of(connected_model())


# --- memo ------------------------------------------------------------------------------


def toggled(m: PluginModel, server_name: str, bare: str) -> PluginModel:
    """``m`` with one tool switched over (other servers keep their very objects)."""
    servers = tuple(
        s
        if s.name != server_name
        else s.model_copy(
            update={
                "tools": tuple(
                    t.model_copy(update={"enabled": not t.enabled}) if t.bare == bare else t
                    for t in s.tools
                )
            }
        )
        for s in m.servers
    )
    return m.model_copy(update={"servers": servers})


def memo_rows(
    m: PluginModel, memo: RowMemo, folded: frozenset[str] = frozenset(), text: str = ""
) -> tuple[Row, ...]:
    return build_rows(m, project_catalog(m), folded, text, memo)


def block(rows: tuple[Row, ...], server_name: str) -> list[Row]:
    return [row for row in rows if row.server == server_name]


def three_servers() -> PluginModel:
    return model(*(server(name, *(tool(f"{name}_{i}") for i in range(4))) for name in "abc"))


def test_memo_reuses_unchanged_servers_and_rebuilds_the_changed_one() -> None:
    memo = RowMemo()
    before = three_servers()
    first = memo_rows(before, memo)
    assert (memo.hits, memo.misses) == (0, 3)
    after = toggled(before, "b", "b_2")
    second = memo_rows(after, memo)
    assert (memo.hits, memo.misses) == (2, 4)
    assert second == rows_of(after)  # equal to a fresh build
    for name in "ac":  # the very same row objects
        assert all(x is y for x, y in zip(block(first, name), block(second, name), strict=True))
    rebuilt = block(second, "b")
    assert not any(x is y for x, y in zip(block(first, "b"), rebuilt, strict=True))
    assert [row.key for row in rebuilt] == [row.key for row in block(first, "b")]
    assert diff_rows(first, second) == RowDiff(changed=(5, 8))  # b's row and b_2


def test_memo_keys_on_the_tools_not_the_tuple() -> None:
    """The bridge builds a new ServerState (and tuple) per snapshot around the same tools."""
    memo = RowMemo()
    before = three_servers()
    first = memo_rows(before, memo)
    rebuilt = tuple(ServerState.model_validate(dict(s)) for s in before.servers)
    assert rebuilt[0].tools is not before.servers[0].tools
    second = memo_rows(before.model_copy(update={"servers": rebuilt}), memo)
    assert all(x is y for x, y in zip(first, second, strict=True))


def test_memo_rebuilds_a_server_whose_trimmed_tools_changed() -> None:
    """Switching a tool off in one server lets a trimmed tool of the next one onto the wire."""
    memo = RowMemo()
    before = over_budget_model()
    first = memo_rows(before, memo)
    after = toggled(before, "notes", "note_0")
    second = memo_rows(after, memo)
    assert second == rows_of(after)
    assert "✂ trimmed" in block(first, "cloud")[3].text
    assert "✂ trimmed" not in block(second, "cloud")[3].text
    assert memo.misses == 4  # notes and cloud, twice


def test_memo_follows_view_state_and_status() -> None:
    memo = RowMemo()
    m = three_servers()
    steps: list[tuple[PluginModel, frozenset[str], str]] = [
        (m, frozenset(), ""),
        (m, frozenset({"a"}), ""),
        (m, frozenset({"a"}), "b_"),
        (m, frozenset(), "B_1"),
        (m, frozenset(), ""),
        (toggled(m, "c", "c_0"), frozenset(), ""),
        (model(server("a", status="failed", error="boom"), *m.servers[1:]), frozenset(), ""),
        (model(server("a", status="connecting"), *m.servers[1:]), frozenset(), ""),
        (model(*m.servers[1:]), frozenset(), ""),  # a gone: the name width changes
        (model(server("long_name"), *m.servers[1:]), frozenset(), ""),
        (model(), frozenset(), ""),
        (m, frozenset(), ""),
    ]
    for step, folded, text in steps:
        assert memo_rows(step, memo, folded, text) == rows_of(step, folded, text)


edits = st.lists(
    st.tuples(
        st.sampled_from("abc"),
        st.integers(0, 3),
        st.sampled_from(["", "a_", "2", "is:off", "is:trimmed", "is:on b_"]),
    ),
    max_size=12,
)


@given(edits, st.integers(2, 12))
def test_memo_always_equals_a_fresh_build(steps: list[tuple[str, int, str]], budget: int) -> None:
    memo = RowMemo()
    m = three_servers().model_copy(update={"tool_budget": budget})
    for name, index, text in steps:
        m = toggled(m, name, f"{name}_{index}")
        folded = frozenset({name}) if index == 3 else frozenset()
        assert memo_rows(m, memo, folded, text) == rows_of(m, folded, text)


def test_a_server_that_needs_a_login_says_l_logs_in() -> None:
    m = model(
        server("remote", status="needs_login", error="needs login: run agentty-tui login remote"),
        server("other", status="needs_login"),
    )
    assert texts(rows_of(m))[0] == "  ⚿ remote  needs login — L logs in"


def test_hint_marks_and_the_task_mark_have_columns_of_their_own() -> None:
    """The server's true hints as letters in fixed places (none for a false or absent one);
    a task-only tool marked in the mark column; the labels still line up."""
    rows = build_rows(hinted_model(), project_catalog(hinted_model()))
    texts = {row.tool: row.text for row in rows if row.kind == "tool"}
    assert texts["read_page"].startswith("    [x] read_page  R  W  ")
    assert texts["wipe_disk"].startswith("    [x] wipe_disk   DI   ")
    assert texts["plain"].startswith("    [x] plain            ")
    assert "⧗ needs task support" in texts["research"]
    assert "\x1b" not in "".join(texts.values())
    starts = {
        text.index(label)
        for text, label in zip(
            (texts["plain"], texts["research"]), ("No hints at all.", "A long study."), strict=True
        )
    }
    assert len(starts) == 1


def test_without_hints_or_task_only_tools_no_column_is_kept() -> None:
    rows = build_rows(connected_model(), project_catalog(connected_model()))
    assert all("⧗" not in row.text for row in rows)
    layout = ToolWidths().layout(connected_model(), trimmed=False, wide=False)
    assert not layout.hints and not layout.tasks and layout.mark_width == 0
