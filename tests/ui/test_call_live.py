"""The call dialog against a real bridge and real servers: a server's progress drawn as it
comes, escape cancelling the server's request (the server writes that it heard
``notifications/cancelled``), and a result that breaks its output schema shown with the
mismatch stated."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from textual.pilot import Pilot
from textual.widgets import Static, TextArea

from agentty_tui.bridge import Bridge
from agentty_tui.call_result import MISMATCH_HEADING
from agentty_tui.config import ConfigStore
from agentty_tui.ui.app import PickerApp
from agentty_tui.ui.call import CANCELLED, CallToolScreen
from tests.helpers import stdio_entry
from tests.servers import asking_argv, python_server_argv
from tests.ui.fakes import settle

pytestmark = pytest.mark.anyio

TIMEOUT = 30.0


@pytest.fixture(params=["2026", "2025"])
async def bridge(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Bridge]:
    legacy = ("--legacy",) if request.param == "2025" else ()
    path = tmp_path / "mcp.json"
    heard = str(tmp_path / "cancelled.log")
    servers = {
        "ask": stdio_entry(asking_argv(*legacy, "--cancel-log", heard)),
        "light": stdio_entry(python_server_argv("light_server.py", "--tools", "1", "--hinted")),
    }
    path.write_text(json.dumps({"mcpServers": servers}))
    async with Bridge(ConfigStore(path), log_dir=tmp_path / "logs") as running:
        with anyio.fail_after(TIMEOUT):
            model = await running.settled()
        assert all(server.status == "connected" for server in model.servers), model
        yield running


def shown(app: PickerApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def call(pilot: Pilot[None], app: PickerApp, server: str, tool: str, text: str) -> None:
    """Open the call dialog of ``server``'s ``tool`` (as ``c`` does), type ``text``, call."""
    state = app.source.snapshot.require_server(server)
    found = state.tool(tool)
    assert found is not None
    screen = CallToolScreen(app.source, server, found)
    app.last_call = screen.record
    await app.push_screen(screen)
    await pilot.pause()
    screen.query_one("#call-args", TextArea).text = text
    await pilot.press("ctrl+s")


async def test_escape_cancels_the_servers_request_after_its_progress_showed(
    bridge: Bridge, tmp_path: Path
) -> None:
    marker = tmp_path / "marker"
    app = PickerApp(bridge, follow=False)
    async with app.run_test(size=(110, 32)) as pilot:
        await call(pilot, app, "ask", "crawl", json.dumps({"marker": str(marker)}))
        with anyio.fail_after(TIMEOUT):
            while "2/5 · crawling page 2" not in shown(app, "#call-progress"):
                await pilot.pause(0.05)
        assert "escape cancels the call" in shown(app, "#call-hint")
        await pilot.press("escape")
        await settle(app, "call")
        with anyio.fail_after(TIMEOUT):
            while not marker.exists():  # the server heard notifications/cancelled
                await pilot.pause(0.05)
            while shown(app, "#call-result") != CANCELLED:
                await pilot.pause(0.05)
        assert marker.read_text() == "cancelled"
        assert len((tmp_path / "cancelled.log").read_text().splitlines()) == 1
        assert isinstance(app.screen, CallToolScreen)
        assert app.source.snapshot.require_server("ask").status == "connected"


async def test_a_result_that_breaks_its_output_schema_is_shown_with_the_mismatch(
    bridge: Bridge,
) -> None:
    app = PickerApp(bridge, follow=False)
    async with app.run_test(size=(110, 32)) as pilot:
        await call(pilot, app, "light", "measure", "{}")
        await settle(app, "call")
        with anyio.fail_after(TIMEOUT):
            while not shown(app, "#call-result"):
                await pilot.pause(0.05)
        assert shown(app, "#call-result").split("\n") == [
            "it is big",
            "structured content:",
            "{",
            '  "size": "big"',
            "}",
            MISMATCH_HEADING,
            "at size: 'big' is not of type 'integer'",
        ]
