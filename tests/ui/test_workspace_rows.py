"""A workspace's rows (row_source.py, rows.py, row_filter.py): each server's source column,
shadowed entries, untrusted project servers, ``src:`` filter words (the status bar's counts:
test_status_bar.py)."""

from __future__ import annotations

from agentty_tui.catalog import project_catalog
from agentty_tui.model import HostView, PluginModel, ToolFilter, ToolState
from agentty_tui.ui.row_filter import parse_filter
from agentty_tui.ui.row_source import source_facts
from agentty_tui.ui.rows import Row, build_rows, row_server
from tests.ui.fakes import connected_model
from tests.ui.workspace_fakes import (
    CLAUDE_LOCAL,
    CODEX_USER,
    OUR_USER,
    PROJECT_MCP,
    ROOT,
    SECRET,
    workspace_model,
)


def rows_of(m: PluginModel, text: str = "", *, sources: bool = True) -> tuple[Row, ...]:
    return build_rows(m, project_catalog(m), frozenset(), text, sources=sources)


def by_key(rows: tuple[Row, ...]) -> dict[tuple[str, ...], str]:
    return {row.key: row.text.rstrip() for row in rows}


def test_each_server_row_shows_its_source_in_one_aligned_column() -> None:
    rows = by_key(rows_of(workspace_model()))
    notes, time = rows[("server", "notes")], rows[("server", "time")]
    assert "claude · local" in notes and "agentty · user" in rows[("server", "weather")]
    assert "project .mcp.json" in rows[("server", "repo-tool")]
    # One file more holds the same server: "+1"; the details list it.
    assert "claude · user +1" in time
    starts = {text.index(label) for text, label in ((notes, "claude"), (time, "claude"))}
    assert len(starts) == 1
    # The status text starts at the same column on every server row.
    counts = [rows[("server", n)].index("/") - 1 for n in ("notes", "weather", "time")]
    assert len(set(counts)) == 1


def test_a_narrow_terminal_drops_the_source_column_and_one_file_has_none() -> None:
    narrow = by_key(rows_of(workspace_model(), sources=False))
    assert "claude · local" not in narrow[("server", "notes")]
    assert "·" not in narrow[("server", "weather")].replace("· ", "")
    one_file = connected_model()
    assert rows_of(one_file, sources=True) == rows_of(one_file, sources=False)


def test_a_shadowed_entry_is_one_dim_row_right_after_its_winners_rows() -> None:
    rows = rows_of(workspace_model())
    keys = [row.key for row in rows]
    shadowed = ("shadowed", "notes", OUR_USER.path, "user")
    # notes, its two tools, then the entry it hides.
    assert keys[:4] == [
        ("server", "notes"),
        ("tool", "notes", "add_note"),
        ("tool", "notes", "list_notes"),
        shadowed,
    ]
    row = rows[3]
    assert row.kind == "shadowed" and row.server == "notes" and not row.mark_at(0)
    assert "agentty · user" in row.text and row.text.rstrip().endswith("shadowed by claude · local")
    assert {role for _, role in row.segments} <= {"fold", "plain", "status-shadowed", "shadowed"}


def test_an_untrusted_project_server_says_how_to_trust_it_and_what_it_runs_masked() -> None:
    rows = by_key(rows_of(workspace_model()))
    repo, docs = rows[("server", "repo-tool")], rows[("server", "docs")]
    runs = "  runs: python -m demo.repo_tool 'https://api.example.com/v1"
    assert (
        repo.startswith("not trusted — T to trust  ⚠ ", repo.index("not trusted")) and runs in repo
    )
    # What decides what runs is on the row too: where the command resolves, the entry's env.
    assert f" · resolves: {ROOT}/.bin/python  ⚠ inside the project folder" in repo
    assert " · env: PATH=.bin:/usr/bin  ⚠ decides what runs, API_KEY=••••••••" in repo
    assert "url: https://docs.example.com/mcp?api_key=" in docs
    assert " · header: Authorization: Bearer ${DOCS_TOKEN}" in docs
    assert SECRET not in repo and SECRET not in docs
    assert "config not trusted" not in repo


def test_the_flagged_facts_come_first_in_a_few_words_and_the_warning_colour() -> None:
    rows = {row.key: row for row in rows_of(workspace_model())}
    repo, docs = rows[("server", "repo-tool")], rows[("server", "docs")]
    # Before the facts: a row is cut at the terminal's edge, and this is what must show.
    assert "not trusted — T to trust  ⚠ runs a file of the project, sets PATH  runs: " in repo.text
    assert ("  ⚠ runs a file of the project, sets PATH", "warning") in repo.segments
    assert "⚠" not in docs.text  # nothing flagged


def test_src_words_keep_or_hide_one_hosts_or_scopes_rows() -> None:
    m = workspace_model()

    def servers(text: str) -> list[str]:
        return [row.key[1] for row in rows_of(m, text) if row.kind != "tool"]

    assert servers("src:project") == ["repo-tool", "docs"]
    assert servers("src:claude.local") == ["notes"]
    # ``time`` is in Claude Code's and Codex's files: either keeps it.
    assert servers("src:codex") == ["time"]
    assert servers("src:agentty") == ["notes", "weather"]  # the shadowed entry is ours
    # Hiding Claude Code hides what only it holds; ``time`` stays, Codex holds it too.
    assert servers("-src:claude") == ["notes", "weather", "time"]
    assert servers("-src:claude -src:codex") == ["notes", "weather"]
    assert servers("is:shadowed") == ["notes"]
    assert servers("src:local src:project") == ["notes", "repo-tool", "docs"]
    assert servers("src:nowhere") == []
    assert parse_filter("src:nowhere").unknown == ("src:nowhere",)
    assert parse_filter("-src:user").hidden_sources == frozenset({"user"})


def test_the_details_name_the_file_the_others_and_who_wins() -> None:
    m = workspace_model()
    time = m.server("time")
    assert time is not None
    assert source_facts(time) == [
        f"file       {time.source.path if time.source else ''} (claude · user)",
        f"also in    {CODEX_USER.path} (codex · user)",
    ]
    (hidden,) = m.shadowed
    assert source_facts(hidden)[-1] == (
        f"wins       {CLAUDE_LOCAL.path} (claude · local) (this entry is not started)"
    )
    repo = m.server("repo-tool")
    assert repo is not None and repo.source == PROJECT_MCP
    assert source_facts(repo)[-1].startswith("trust      not trusted yet")
    assert source_facts(connected_model().servers[0]) == []


def test_the_details_say_what_each_host_sends_and_where_its_switch_is() -> None:
    m = workspace_model()
    time = m.server("time")
    assert time is not None and time.source is not None
    first = time.tools[0].bare
    time = time.model_copy(update={"tools": (*time.tools, ToolState(bare="later", enabled=True))})
    claude = HostView(
        source=time.source, tools=ToolFilter(exclude=(first,)), tool_switch="deny in s.json"
    )
    cursor = HostView(source=CODEX_USER.model_copy(update={"host": "cursor"}))
    both = time.model_copy(update={"hosts": (claude, cursor)})
    assert source_facts(both)[-2:] == [
        "claude     1/2 tools sent; deny in s.json",
        "cursor     2/2 tools sent; no switch in its files: every tool is sent",
    ]
    off = claude.model_copy(update={"off": True, "off_by": "disabledMcpServers in ~/.claude.json"})
    assert source_facts(time.model_copy(update={"hosts": (off, cursor)}))[-2] == (
        "claude     not started (disabledMcpServers in ~/.claude.json); deny in s.json"
    )
    # One host that can be switched says nothing the row does not.
    assert source_facts(time.model_copy(update={"hosts": (claude,)})) == source_facts(time)


def test_a_shadowed_row_stands_for_the_hidden_entry_not_the_one_that_wins() -> None:
    m = workspace_model()
    by_kind = {row.kind: row for row in rows_of(m) if row.server == "notes"}
    hidden = row_server(m, by_kind["shadowed"])
    assert hidden is not None and hidden.status == "shadowed" and hidden.source == OUR_USER
    winner = row_server(m, by_kind["server"])
    assert winner is not None and winner.source == CLAUDE_LOCAL
    gone = m.model_copy(update={"servers": (), "shadowed": ()})
    assert row_server(gone, by_kind["shadowed"]) is None
    assert row_server(gone, by_kind["server"]) is None
