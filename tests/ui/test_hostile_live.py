"""The picker against a hostile server (a real subprocess): nothing it sends reaches the terminal.

Rows, the tool and server details, the call form and its results are rendered and every cell
of each frame is checked: the server's controls are on screen as visible escapes (``␛``),
never as themselves.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import anyio
import pytest
from textual.pilot import Pilot
from textual.widgets import Static, TextArea

from agentty_tui.bridge import Bridge
from agentty_tui.config import ConfigStore
from agentty_tui.ui.app import PickerApp
from agentty_tui.ui.call import CallToolScreen
from agentty_tui.ui.dialogs import ServerDetailsScreen, ToolDetailsScreen
from tests.helpers import stdio_entry
from tests.hostile_text import unsafe_chars
from tests.servers import hostile_argv
from tests.ui.fakes import settle
from tests.ui.screen_text import screen_text

pytestmark = pytest.mark.anyio

TIMEOUT = 20.0
EVIL_NAME = "evil\x1b]0;owned\x07"


@pytest.fixture
async def bridge(tmp_path: Path) -> AsyncIterator[Bridge]:
    path = tmp_path / "mcp.json"
    servers = {
        "hostile": stdio_entry(hostile_argv()),
        EVIL_NAME: stdio_entry(hostile_argv()),
        "dead": stdio_entry(hostile_argv("--exit-at-start")),
    }
    path.write_text(json.dumps({"mcpServers": servers}))
    async with Bridge(ConfigStore(path), log_dir=tmp_path / "logs") as running:
        with anyio.fail_after(TIMEOUT):
            await running.settled()
        yield running


async def until(pilot: Pilot[None], predicate: Callable[[], bool]) -> None:
    with anyio.fail_after(TIMEOUT):
        while not predicate():
            await pilot.pause()


def shown(app: PickerApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


def assert_frame_is_safe(app: PickerApp) -> list[str]:
    """The frame's lines (trailing blanks cut), once checked for raw controls."""
    text = screen_text(app)
    assert unsafe_chars(text, allowed="\n") == []
    return [line.rstrip() for line in text.split("\n")]


async def test_rows_details_and_calls_show_controls_as_visible_escapes(bridge: Bridge) -> None:
    app = PickerApp(bridge)
    async with app.run_test(size=(160, 50), notifications=True) as pilot:
        await until(pilot, lambda: app.picker.select_key(("tool", "hostile", "clip")))
        await pilot.pause()
        frame = assert_frame_is_safe(app)
        # 160 columns: the title, then the description in a column of its own
        clip = "    [x] clip          ␛]52;c;aGk=␇clip" + " " * 26 + "clears␛[2J␛[H the screen"
        assert clip in frame
        assert "▾ ● evil␛]0;owned␇  8/8 tools on · 1 invalid tool left out" in frame
        assert "    [x] fail          fails⏎    [on ] forged  a tool that is not there" in frame
        assert "  ✗ dead            failed — the server exited with status 4  R restarts" in frame

        await pilot.press("enter")
        assert isinstance(app.screen, ToolDetailsScreen)
        await pilot.pause()
        assert_frame_is_safe(app)
        description = shown(app, "#details-description")
        assert description == (
            "clears␛[2J␛[H the screen\n<U+202E>evil<U+202C><U+200B> second line\\x9b2J␡"
        )
        await pilot.press("escape")

        assert app.picker.select_key(("server", "hostile"))
        await pilot.press("enter")
        assert isinstance(app.screen, ServerDetailsScreen)
        await pilot.pause()
        assert_frame_is_safe(app)
        assert "server     hostile␛]0;pwned␇ 1.0<U+202E>evil" in shown(app, "#server-facts")
        assert shown(app, "#server-dropped").startswith("␛[31mred: ")
        await pilot.press("escape")

        assert app.picker.select_key(("server", "dead"))
        await pilot.press("enter")
        await pilot.pause()
        assert_frame_is_safe(app)
        error = shown(app, "#server-error")
        assert error == "the server exited with status 4\ndying ␛]0;pwned␇␛[2J␛[H\\x9b31m"
        await pilot.press("escape")

        assert app.picker.select_key(("tool", "hostile", "forge"))
        await pilot.press("c")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CallToolScreen)
        area = screen.query_one("#call-args", TextArea)
        assert json.loads(area.text) == {"k\x1b[2J": "v\x1b]0;x\x07"}  # escaped, still exact
        assert_frame_is_safe(app)
        await pilot.press("ctrl+s")
        await settle(app, "call")
        await pilot.pause()
        assert_frame_is_safe(app)
        result = shown(app, "#call-result")
        assert result.startswith("result ␛]8;;http://evil.example/␛\\click␛]8;;␛\\␍forged line\n")
        await pilot.press("escape")

        for tool, expected in (
            ("fail", "The tool reported an error:\nfailure ␛[2J␛[H␛]0;pwned␇"),
            ("rpc_error", "protocol error: refused ␛]0;pwned␇␛[2J␛[H"),
        ):
            assert app.picker.select_key(("tool", "hostile", tool))
            await pilot.press("c")
            await pilot.pause()
            await pilot.press("ctrl+s")
            await settle(app, "call")
            await pilot.pause()
            assert_frame_is_safe(app)
            assert expected in shown(app, "#call-result")
            await pilot.press("escape")

        for tool in ("odd_schema", "odd_required"):  # schemas that once crashed the form
            assert app.picker.select_key(("tool", "hostile", tool))
            await pilot.press("c")
            await pilot.pause()
            assert isinstance(app.screen, CallToolScreen)
            text = app.screen.query_one("#call-args", TextArea).text
            assert json.loads(text) == ({} if tool == "odd_schema" else {"a": None})
            await pilot.press("escape")
        assert app.is_running
