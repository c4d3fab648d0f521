"""Pilot tests of the picker's token figures: counted off the UI thread (the first frame never
waits), then shown per tool, per server, in the status bar and the details; ``s`` sorts by cost;
a host's lens counts in its family and says its limits."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

import anyio
import anyio.lowlevel
import pytest
from textual.widgets import Static

import agentty_tui.ui.lens_view as lens_view_module
from agentty_tui.catalog import DEFAULT_FAMILY, FamilyName, TokenCounter
from agentty_tui.model import HostView, PluginModel, SourceRef
from agentty_tui.ui.app import PickerApp
from agentty_tui.ui.dialogs import ServerDetailsScreen, ToolDetailsScreen
from agentty_tui.ui.token_text import TOKEN_WIDTH
from tests.ui.fakes import StaticSource, model, server, settle, tool

pytestmark = pytest.mark.anyio

CODEX = SourceRef(path="/h/.codex/config.toml", scope="user", host="codex")


class GatedCounter(TokenCounter):
    """A counter that counts only once the test opens the gate (a slow encoding's load)."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()

    def count(
        self,
        name: str,
        description: str,
        input_schema: Mapping[str, Any],
        family: FamilyName = DEFAULT_FAMILY,
        *,
        may_load: bool = True,
    ) -> int:
        """Wait for the gate (at most 30 s), then count; a count that may not load the
        encoding (the status bar's, on the UI thread) never waits."""
        if may_load:
            self.gate.wait(30)
        return super().count(name, description, input_schema, family, may_load=may_load)


def _priced() -> PluginModel:
    return model(
        server("cheap", tool("a", description="short"), tool("b", description="tiny")),
        server("dear", tool("small", description="one"), tool("big", description="word " * 200)),
    )


def _status(app: PickerApp) -> str:
    return str(app.query_one("#status", Static).render())


async def _counted(app: PickerApp) -> None:
    with anyio.fail_after(30):
        while app._counting:
            await settle(app, "costs")
            await anyio.lowlevel.checkpoint()


@pytest.fixture
def counter(monkeypatch: pytest.MonkeyPatch) -> GatedCounter:
    gated = GatedCounter()
    monkeypatch.setattr(lens_view_module, "TOKEN_COUNTER", gated)
    return gated


async def test_the_first_frame_shows_no_figure_then_the_counts_come(counter: GatedCounter) -> None:
    app = PickerApp(StaticSource(_priced()), count_tokens=True)
    async with app.run_test(size=(100, 24)) as pilot:
        # Counting starts once the first frame is painted, and waits at the gate: the rows
        # are on screen all the same, without a figure.
        with anyio.fail_after(30):
            while not app._counting:
                await pilot.pause()
        rows = app.picker.rows
        assert rows[1].text.startswith(f"    [x] a      {' ' * TOKEN_WIDTH}  short")
        assert "tokens" not in rows[0].text and "tokens" not in _status(app)
        counter.gate.set()
        await _counted(app)
        await pilot.pause()
        rows = app.picker.rows
        assert rows[0].text.rstrip().endswith(" tokens") and "2/2 tools on · " in rows[0].text
        assert rows[1].text[15 : 15 + TOKEN_WIDTH].strip().isdigit()
        assert _status(app).endswith(" tokens")
        assert "by cost" not in _status(app)
        await pilot.press("s")
        await pilot.pause()
        assert [row.key for row in app.picker.rows][:2] == [
            ("server", "dear"),
            ("tool", "dear", "big"),
        ]
        assert _status(app).endswith(" · by cost")
        await pilot.press("s")
        await pilot.pause()
        assert app.picker.rows[0].key == ("server", "cheap")


async def test_details_say_what_a_tool_and_a_server_cost(counter: GatedCounter) -> None:
    counter.gate.set()
    app = PickerApp(StaticSource(_priced()), count_tokens=True)
    async with app.run_test(size=(100, 24)) as pilot:
        await _counted(app)
        await pilot.press("down", "enter")
        await pilot.pause()
        assert isinstance(app.screen, ToolDetailsScreen)
        facts = str(app.screen.query_one("#details-facts", Static).render())
        assert "tokens     " in facts and "(Claude, an o200k estimate)" in facts
        assert "once a request" not in facts  # the request's overhead is never a tool's
        await pilot.press("escape", "up", "enter")
        await pilot.pause()
        assert isinstance(app.screen, ServerDetailsScreen)
        facts = str(app.screen.query_one("#server-facts", Static).render())
        assert (
            "for its tools that are on (Claude, an o200k estimate)\n"
            "           + 346 once a request, for tool use (not per tool)\n"
        ) in facts


async def test_a_tool_trimmed_by_the_token_budget_says_that_budget(
    counter: GatedCounter,
) -> None:
    """With a token budget that only the first tools fit, a trimmed tool's details name the
    token budget (not the tool budget, which everything fits)."""
    counter.gate.set()
    priced = _priced().model_copy(update={"tool_token_budget": 200})
    app = PickerApp(StaticSource(priced), count_tokens=True)
    async with app.run_test(size=(100, 24)) as pilot:
        await _counted(app)
        with anyio.fail_after(30):
            while not app.catalog.is_trimmed("dear", "big"):
                await pilot.pause()
        assert app.picker.select_key(("tool", "dear", "big"))
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ToolDetailsScreen)
        facts = str(app.screen.query_one("#details-facts", Static).render())
        assert "wire       not on the wire: trimmed by the token budget of 200\n" in facts


async def test_a_hosts_lens_counts_in_its_family_and_says_its_limits(
    counter: GatedCounter,
) -> None:
    """Through Codex's lens the figures are OpenAI's (exact), and the status bar says that
    Codex defers MCP tools from its 100th."""
    counter.gate.set()
    m = _priced()
    held = tuple(s.model_copy(update={"hosts": (HostView(source=CODEX),)}) for s in m.servers)
    app = PickerApp(StaticSource(m.model_copy(update={"servers": held})), count_tokens=True)
    async with app.run_test(size=(160, 24)) as pilot:
        await _counted(app)
        every = app.picker.rows[0].text
        await pilot.press("h")
        await pilot.pause()
        await _counted(app)
        await pilot.pause()
        assert app.lens == "codex" and app.family == "openai"
        status = _status(app)
        assert status.startswith("Codex's view · ")
        assert " tokens (OpenAI) · defers MCP tools from the 100th" in status
        assert app.picker.rows[0].text != every  # OpenAI's entry counts differently


async def test_a_hosts_lens_cuts_the_token_budget_as_its_model_counts(
    counter: GatedCounter,
) -> None:
    """Through Codex's lens the token budget is counted in OpenAI's family, as the gateway
    serves Codex: these tools cost more there, so fewer fit than in the view of every host."""
    counter.gate.set()
    tools = [tool(f"t{i:02d}", description="does a thing") for i in range(30)]
    held = server("many", *tools).model_copy(update={"hosts": (HostView(source=CODEX),)})
    m = model(held).model_copy(update={"tool_token_budget": 800})
    app = PickerApp(StaticSource(m), follow=False)
    async with app.run_test(size=(120, 24)) as pilot:
        await pilot.pause()
        every = len(app.catalog.tools)
        await pilot.press("h")
        await pilot.pause()
        assert app.lens == "codex"
        codex = app.catalog.tools
        mcp = [t for t in codex if t.server is not None]
        assert 0 < len(codex) < every
        total = sum(counter.count_tool(t, "openai") for t in codex)
        assert total <= 800 < total + counter.count_tool(mcp[-1], "openai")
