"""status_bar.py: the texts of the picker's bars (counts, title, an empty list), as pure
functions."""

from __future__ import annotations

from pathlib import Path

from agentty_tui.catalog import project_catalog
from agentty_tui.config.discover import HostFile
from agentty_tui.gateway.picker.view import DaemonView
from agentty_tui.ui.status_bar import empty_text, summarize, title_text
from tests.ui.fakes import crashed_model, failed_model, model, over_budget_model, server
from tests.ui.workspace_fakes import workspace_model


def test_summary_counts_and_warning() -> None:
    m = failed_model()
    summary = summarize(m, project_catalog(m))
    assert summary.text == "1 connected · 1 failed · 1 disabled · 1/1 tools on · 3/128 on the wire"
    assert summary.warning is None
    over = over_budget_model()
    summary = summarize(over, project_catalog(over))
    assert summary.text == "2 connected · 7/8 tools on · 6/6 on the wire"
    assert summary.warning == (
        "3 tools over the budget of 6 — 3 MCP tools were dropped from this session; "
        "disable some to make room"
    )


def test_summary_does_not_count_a_failed_servers_tools_as_on() -> None:
    """The failed editor still lists two tools, one set on: neither is on, both are counted
    as not available."""
    m = crashed_model()
    summary = summarize(m, project_catalog(m))
    assert summary.text == (
        "1 connected · 1 failed · 1/1 tools on · 2 not available · 3/128 on the wire"
    )


def test_servers_that_need_a_login_are_counted() -> None:
    m = model(server("remote", status="needs_login"), server("other", status="needs_login"))
    summary = summarize(m, project_catalog(m))
    assert summary.text == "0 connected · 2 need login · 0/0 tools on · 2/128 on the wire"


def test_the_status_bar_counts_shadowed_and_untrusted() -> None:
    m = workspace_model()
    text = summarize(m, project_catalog(m)).text
    assert text.startswith("3 connected · 2 untrusted · 1 shadowed · ")


def test_the_title_names_the_config_and_the_daemon() -> None:
    m = model(server("notes"))
    assert title_text(m, None) == "agentty-tui · mcp.json"
    assert title_text(m, DaemonView(pid=4242)) == "agentty-tui · mcp.json · gateway daemon 4242"
    gone = DaemonView(pid=4242, attached=False)
    assert title_text(m, gone) == "agentty-tui · mcp.json · daemon gone"


def test_an_empty_list_says_why_and_looks_for_host_files_only_on_an_empty_config() -> None:
    asked: list[None] = []
    cursor = HostFile("Cursor", Path("/h/.cursor/mcp.json"), "claude", 2)

    def found() -> tuple[HostFile, ...]:
        asked.append(None)
        return (cursor,)

    some = model(server("notes"))
    assert empty_text(some, "zzz", found) == "Nothing matches the filter (escape clears it)."
    assert empty_text(some, "is:nope", found).startswith("No such state: is:nope (there are ")
    assert asked == []
    reading = model().model_copy(update={"reading": ("reading .mcp.json",)})
    assert empty_text(reading, "", found).startswith("Reading the workspace's files")
    assert asked == []
    assert empty_text(model(), "", found) == (
        "No servers in this config yet: press a to add one, or i to import another host's "
        "servers from:\n  Cursor: /h/.cursor/mcp.json (2 servers)"
    )
    assert asked == [None]
    assert empty_text(model(), "", lambda: ()) == (
        "No servers in this config yet: press a to add one."
    )
