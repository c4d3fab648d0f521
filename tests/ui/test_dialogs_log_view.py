"""The log viewer (``l``) against a real bridge and real servers writing stderr."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest
from textual.pilot import Pilot

from agentty_tui.bridge import Bridge
from agentty_tui.bridge.logs import ServerLog
from agentty_tui.config import ConfigStore
from agentty_tui.ui.app import PickerApp
from agentty_tui.ui.dialogs import LogTail, LogViewScreen, ServerDetailsScreen
from agentty_tui.ui.text import PlainText
from tests.processes import faulty
from tests.servers import hostile_argv
from tests.ui.screen_text import screen_text

pytestmark = pytest.mark.anyio

TIMEOUT = 20.0


async def until(pilot: Pilot[None], predicate: Callable[[], bool]) -> None:
    """Let the app run until ``predicate`` holds (or fail after ``TIMEOUT``)."""
    with anyio.fail_after(TIMEOUT):
        while not predicate():
            await pilot.pause()


def _entry(argv: list[str]) -> dict[str, object]:
    return {"command": argv[0], "args": argv[1:]}


@pytest.fixture
def config_path(tmp_path: Path) -> Path:
    path = tmp_path / "mcp.json"
    servers = {
        "talker": _entry(faulty("hang-call")),
        "dead": _entry(hostile_argv("--exit-at-start")),
    }
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


def _viewer(app: PickerApp) -> LogViewScreen:
    screen = app.screen
    assert isinstance(screen, LogViewScreen)
    return screen


async def test_l_shows_a_servers_log_with_times_and_follows_it_live(
    config_path: Path, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    log = ServerLog(logs, "talker", config_path).path
    async with Bridge(ConfigStore(config_path), log_dir=logs) as bridge:
        with anyio.fail_after(TIMEOUT):
            await bridge.settled()
        app = PickerApp(bridge)
        async with app.run_test(size=(120, 40)) as pilot, anyio.create_task_group() as group:
            await until(pilot, lambda: app.picker.select_key(("server", "talker")))
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, ServerDetailsScreen))
            facts = str(app.screen.query_one("#server-facts", PlainText).content)
            assert f"log        {log} (l shows it)" in facts.splitlines()
            await pilot.press("escape")
            await pilot.press("l")
            await until(pilot, lambda: isinstance(app.screen, LogViewScreen))
            viewer = _viewer(app)
            await until(pilot, lambda: any("connected" in line for line in viewer.shown_lines))
            assert str(viewer.query_one("#log-path", PlainText).content) == str(log)
            # A line the server writes while the viewer is open shows, with its time.
            group.start_soon(bridge.call_tool, "talker", "hang", {})
            stamped = re.compile(r"^\d\d:\d\d:\d\d hang: call received$")
            await until(pilot, lambda: any(stamped.match(line) for line in viewer.shown_lines))
            await until(pilot, lambda: "hang: call received" in screen_text(app))
            assert re.search(r"\[agentty\] \d\d:\d\d:\d\d started pid \d+", screen_text(app))
            group.cancel_scope.cancel()
            await pilot.press("escape")
            await until(pilot, lambda: not isinstance(app.screen, LogViewScreen))


async def test_a_servers_stderr_controls_are_shown_not_sent(
    config_path: Path, tmp_path: Path
) -> None:
    async with Bridge(ConfigStore(config_path), log_dir=tmp_path / "logs") as bridge:
        with anyio.fail_after(TIMEOUT):
            await bridge.settled()
        app = PickerApp(bridge)
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: app.picker.select_key(("server", "dead")))
            await pilot.press("l")
            await until(pilot, lambda: "dying" in screen_text(app))
            text = screen_text(app)
            assert "dying ␛]0;pwned␇␛[2J␛[H" in text
            assert "\x1b" not in text and "\x9b" not in text


def test_the_tail_follows_appends_and_a_rotation(tmp_path: Path) -> None:
    path = tmp_path / "s.log"
    path.write_bytes(b"one\ntwo\npart")
    tail = LogTail(path)
    assert tail.read_new() == ["one", "two"]
    with path.open("ab") as handle:
        handle.write(b"ial\nthree\n")
    assert tail.read_new() == ["partial", "three"]
    assert tail.read_new() == []
    path.rename(tmp_path / "s.log.1")
    path.write_bytes(b"fresh\n")
    assert tail.read_new() == ["── the log was rotated (its earlier part: .log.1) ──", "fresh"]
