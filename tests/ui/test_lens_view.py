"""lens_view.py: the lens the rows are seen through, with its catalog and counts, without the
app."""

from __future__ import annotations

import pytest

import agentty_tui.ui.lens_view as lens_view_module
from agentty_tui.catalog.tokens import TokenCounter
from agentty_tui.model import HostView, PluginModel, SourceRef
from agentty_tui.ui.lens_view import LensView
from tests.ui.fakes import model, server, tool

CODEX = SourceRef(path="/h/.codex/config.toml", scope="user", host="codex")
CLAUDE = SourceRef(path="/h/.claude.json", scope="user", host="claude")


def _held(*sources: SourceRef) -> PluginModel:
    views = tuple(HostView(source=source) for source in sources)
    notes = server("notes", tool("a"), tool("b")).model_copy(update={"hosts": views})
    return model(notes)


def test_h_cycles_every_host_then_each_and_a_host_gone_gives_way_to_every_host() -> None:
    view = LensView()
    both = _held(CLAUDE, CODEX)
    seen = []
    for _ in range(3):
        assert view.next_host(both)
        seen.append(view.host)
    assert seen == ["claude", "codex", None]
    assert not view.next_host(model(server("notes"))) and view.host is None
    assert view.next_host(both) and view.next_host(both) and view.host == "codex"
    view.look(_held(CODEX))
    assert view.host == "codex"
    view.look(_held(CLAUDE))
    assert view.host is None


def test_the_status_line_names_the_lens_and_the_hosts_limits() -> None:
    view = LensView()
    m = _held(CODEX)
    assert view.status(m, view.project(m, None), by_cost=False) == (
        "1 connected · 2/2 tools on · 4/128 on the wire"
    )
    assert view.next_host(m) and view.family == "openai"
    seen = view.look(m)
    status = view.status(seen, view.project(seen, None), by_cost=True)
    assert status.startswith("Codex's view · 1 connected · ")
    assert "defers MCP tools from the 100th" in status and status.endswith(" · by cost")


def test_without_counting_there_are_no_figures() -> None:
    view = LensView()
    m = _held(CODEX)
    assert view.costs is None and not view.to_count(m)
    assert view.row_costs(m) is None
    assert view.tokens_text(m.servers[0], None) is None


def test_the_encoding_a_token_budget_needs_is_asked_for_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Not loaded and a definition not counted before: the count budget alone applies, and the
    app is asked once to load the encoding (never while it cannot start a worker)."""
    monkeypatch.setattr(lens_view_module, "TOKEN_COUNTER", TokenCounter())  # not loaded
    view = LensView()
    fresh = model(server("fresh", tool("never-counted-before-7f3a", description="q " * 33)))
    m = fresh.model_copy(update={"tool_token_budget": 10})
    asked: list[None] = []
    catalog = view.project(m, None)
    assert catalog.token_budget is None and asked == []
    view.project(m, lambda: asked.append(None))
    view.project(m, lambda: asked.append(None))
    assert asked == [None]
