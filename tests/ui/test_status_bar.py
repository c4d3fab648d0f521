"""status_bar.py: the status bar's counts and the config notes, as pure functions."""

from __future__ import annotations

from agentty_tui.catalog import project_catalog
from agentty_tui.ui.status_bar import summarize
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
