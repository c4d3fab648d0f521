"""The server's hints as row marks and spelled-out details, said to be the server's; a server's
warnings (that it asked for sampling) in its details; ``list --json`` carrying the hints."""

from __future__ import annotations

import json

import pytest
from textual.widgets import Static

from agentty_tui.bridge.session import SAMPLING_WARNING
from agentty_tui.model import ToolHints, ToolState
from agentty_tui.ui.app import PickerApp
from agentty_tui.ui.dialogs import ServerDetailsScreen
from agentty_tui.ui.tool_marks import HINT_LEGEND, HINT_WIDTH, hint_lines, hint_marks
from tests.conftest import WriteConfig
from tests.helpers import run_cli, stdio_entry
from tests.servers import python_server_argv
from tests.ui.fakes import StaticSource, model, server, tool


def hinted(**hints: object) -> ToolState:
    return tool("t").model_copy(update={"hints": ToolHints.model_validate(hints)})


def test_a_mark_only_for_what_the_server_said_was_true() -> None:
    assert hint_marks(tool("t")) == " " * HINT_WIDTH
    assert hint_marks(hinted(read_only=True, open_world=False)) == "R   "
    assert hint_marks(hinted(destructive=True, idempotent=True, open_world=True)) == " DIW"
    assert hint_marks(hinted(title="only a title")) == "    "


def test_the_details_say_each_hint_and_whose_words_they_are() -> None:
    lines = hint_lines(hinted(title="Wipe\x1b[2J", read_only=False, destructive=True))
    assert lines[0] == "hints      from the server, not verified:"
    assert lines[1] == "           title: Wipe␛[2J"
    assert lines[2:4] == [
        "           changes something",
        "           destructive: what it changes may be lost",
    ]
    assert HINT_LEGEND in lines[-1]
    assert hint_lines(tool("t")) == []


@pytest.mark.anyio
async def test_a_servers_details_list_every_warning() -> None:
    state = server("asker", tool("t")).model_copy(
        update={"warnings": ("its log cannot be written", SAMPLING_WARNING)}
    )
    app = PickerApp(StaticSource(model(state)), follow=False)
    async with app.run_test() as pilot:
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ServerDetailsScreen)
        text = str(app.screen.query_one("#server-facts", Static).render())
        assert f"warning    {SAMPLING_WARNING}" in text
        assert "warning    its log cannot be written" in text


def test_list_json_carries_the_hints(write_config: WriteConfig) -> None:
    argv = python_server_argv("light_server.py", "--tools", "1", "--hinted")
    path = write_config({"light": stdio_entry(argv)})
    result = run_cli("list", "--json", "--config", str(path))
    assert result.returncode == 0, result.stderr
    tools = {t["name"]: t for t in json.loads(result.stdout)["servers"][0]["tools"]}
    assert tools["wipe"]["hints"] == {
        "title": None,
        "read_only": False,
        "destructive": True,
        "idempotent": None,
        "open_world": True,
    }
    assert tools["tool_0000"]["hints"] is None
