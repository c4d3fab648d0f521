"""Pilot tests against a real bridge and real subprocess servers (tests/servers/).

Each test checks the config file and the bridge's model afterwards, not only the screen.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Static, TextArea

from agentty_tui.bridge import Bridge
from agentty_tui.config import ConfigStore
from agentty_tui.ui.app import PickerApp
from agentty_tui.ui.call import CallToolScreen
from agentty_tui.ui.dialogs import ToolDetailsScreen
from agentty_tui.ui.server_form import AddServerScreen
from tests.servers import GATED_BASE_TOOLS, PLAIN_TOOLS, gated_argv, plain_argv
from tests.ui.fakes import settle

pytestmark = pytest.mark.anyio

TIMEOUT = 20.0


def entry(argv: list[str]) -> dict[str, Any]:
    return {"command": argv[0], "args": argv[1:]}


@pytest.fixture
def config_path(tmp_path: Path) -> Path:
    path = tmp_path / "mcp.json"
    servers = {
        "gated": entry(gated_argv()),
        "plain": entry(plain_argv()),
        "broken": {"command": str(tmp_path / "no-such-server")},
    }
    path.write_text(json.dumps({"mcpServers": servers}, indent=2))
    return path


@pytest.fixture
async def bridge(config_path: Path, tmp_path: Path) -> AsyncIterator[Bridge]:
    async with Bridge(ConfigStore(config_path), log_dir=tmp_path / "logs") as running:
        with anyio.fail_after(TIMEOUT):
            await running.settled()
        yield running


def read_config(path: Path) -> dict[str, Any]:
    servers: dict[str, Any] = json.loads(path.read_text())["mcpServers"]
    return servers


def excluded(path: Path, server: str) -> list[str]:
    """The config's exclude list of ``server`` (the store drops an empty one)."""
    tools: dict[str, list[str]] = read_config(path)[server].get("tools", {})
    return tools.get("exclude", [])


async def until(pilot: Pilot[None], predicate: Callable[[], bool]) -> None:
    """Let the app run until ``predicate`` holds (or fail after ``TIMEOUT``)."""
    with anyio.fail_after(TIMEOUT):
        while not predicate():
            await pilot.pause()


def key_of(app: PickerApp) -> tuple[str, ...] | None:
    row = app.picker.current_row
    return None if row is None else row.key


async def test_shows_every_server_with_status_and_tools(bridge: Bridge) -> None:
    app = PickerApp(bridge)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: len(app.picker.rows) == 3 + len(GATED_BASE_TOOLS) + 4)
        texts = [row.text for row in app.picker.rows]
        assert texts[0].startswith("▾ ● gated")
        assert "failed — command not found" in texts[-1]
        status = str(app.query_one("#status", Static).render())
        assert status.startswith("2 connected · 1 failed · 9/9 tools on")


async def test_restarting_a_server_whose_command_is_missing_says_it_failed_again(
    bridge: Bridge,
) -> None:
    """R on the failed row: the restart itself succeeds (the server is connecting), then the
    server fails again, and a notification says so and why."""
    app = PickerApp(bridge)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await until(pilot, lambda: app.picker.select_key(("server", "broken")))
        await pilot.press("R")
        await settle(app)
        await until(pilot, lambda: bool(app._notifications))
        (note,) = app._notifications
        assert note.severity == "error"
        assert note.message.startswith("Server 'broken' failed again: command not found")


async def test_space_on_a_disabled_server_turns_it_back_on(tmp_path: Path) -> None:
    """``"disabled": true`` in the file: space on its row clears the flag in the file, the
    server starts and lists its tools, and a notification says so."""
    path = tmp_path / "mcp.json"
    parked = {**entry(plain_argv()), "disabled": True}
    path.write_text(json.dumps({"mcpServers": {"plain": parked}}, indent=2))
    async with Bridge(ConfigStore(path), log_dir=tmp_path / "logs") as bridge:
        app = PickerApp(bridge)
        async with app.run_test(size=(120, 40), notifications=True) as pilot:
            await until(pilot, lambda: app.picker.select_key(("server", "plain")))
            assert "space enables" in app.picker.rows[0].text
            await pilot.press("space")
            await settle(app)
            await until(pilot, lambda: bool(app._notifications))
            assert [n.message for n in app._notifications] == [
                f"Enabled 'plain': {len(PLAIN_TOOLS)} tools."
            ]
            assert len(app.picker.rows) == 1 + len(PLAIN_TOOLS)
        assert not read_config(path)["plain"].get("disabled", False)
        state = bridge.snapshot.server("plain")
        assert state is not None and state.status == "connected"


async def test_enabling_a_server_with_some_tools_off_says_how_many_are_on(tmp_path: Path) -> None:
    """The notification counts the tools that are on, not every tool the server lists."""
    path = tmp_path / "mcp.json"
    off = PLAIN_TOOLS[0]
    parked = {**entry(plain_argv()), "disabled": True, "tools": {"exclude": [off]}}
    path.write_text(json.dumps({"mcpServers": {"plain": parked}}, indent=2))
    async with Bridge(ConfigStore(path), log_dir=tmp_path / "logs") as bridge:
        app = PickerApp(bridge)
        async with app.run_test(size=(120, 40), notifications=True) as pilot:
            await until(pilot, lambda: app.picker.select_key(("server", "plain")))
            await pilot.press("space")
            await settle(app)
            await until(pilot, lambda: bool(app._notifications))
            assert [n.message for n in app._notifications] == [
                f"Enabled 'plain': {len(PLAIN_TOOLS) - 1} of {len(PLAIN_TOOLS)} tools on."
            ]


async def test_space_toggles_with_a_config_write_and_no_respawn(
    bridge: Bridge, config_path: Path
) -> None:
    pid = bridge.server_pid("plain")
    app = PickerApp(bridge)
    async with app.run_test() as pilot:
        await until(pilot, lambda: app.picker.select_key(("tool", "plain", "echo")))
        await pilot.press("space")
        await settle(app)
        await until(
            pilot, lambda: app.picker.current_row is not None and not app.picker.current_row.enabled
        )
        assert excluded(config_path, "plain") == ["echo"]
        plain = bridge.snapshot.server("plain")
        assert plain is not None and plain.tool("echo") is not None
        assert not plain.tool("echo").enabled  # type: ignore[union-attr]
        await pilot.press("space")
        await settle(app)
        await until(
            pilot, lambda: app.picker.current_row is not None and app.picker.current_row.enabled
        )
        assert excluded(config_path, "plain") == []
        assert key_of(app) == ("tool", "plain", "echo")
    assert bridge.server_pid("plain") == pid
    assert bridge.snapshot.require_server("plain").pid == pid


async def test_space_on_a_server_folds_without_touching_the_config(
    bridge: Bridge, config_path: Path
) -> None:
    before = await anyio.Path(config_path).read_bytes()
    app = PickerApp(bridge)
    async with app.run_test() as pilot:
        await until(pilot, lambda: app.picker.select_key(("server", "plain")))
        await pilot.press("space")
        assert ("tool", "plain", "echo") not in [row.key for row in app.picker.rows]
        await pilot.press("space")
        assert ("tool", "plain", "echo") in [row.key for row in app.picker.rows]
    assert await anyio.Path(config_path).read_bytes() == before


async def test_x_and_e_switch_every_tool_of_the_server(bridge: Bridge, config_path: Path) -> None:
    app = PickerApp(bridge)
    async with app.run_test() as pilot:
        await until(pilot, lambda: app.picker.select_key(("tool", "plain", "add")))
        await pilot.press("x")
        await settle(app)
        assert sorted(excluded(config_path, "plain")) == sorted(PLAIN_TOOLS)
        plain = bridge.snapshot.server("plain")
        assert plain is not None and plain.enabled_count == 0
        await until(pilot, lambda: "0/4 tools on" in app.picker.rows[-6].text)
        await pilot.press("e")
        await settle(app)
        assert excluded(config_path, "plain") == []
        assert bridge.snapshot.require_server("plain").enabled_count == 4
        assert key_of(app) == ("tool", "plain", "add")


async def test_add_form_validates_then_adds_and_connects(bridge: Bridge, config_path: Path) -> None:
    app = PickerApp(bridge)
    async with app.run_test() as pilot:
        await pilot.press("a")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, AddServerScreen)
        await pilot.press(*"plain", "enter")  # taken
        assert "already exists" in str(form.query_one("#add-error", Static).render())
        assert "extra" not in read_config(config_path)
        form.query_one("#add-name", Input).value = "extra"
        form.query_one("#add-command", Input).value = shlex.join(plain_argv())
        await pilot.press("enter")
        await settle(app)
        assert read_config(config_path)["extra"] == entry(plain_argv())
        await until(pilot, lambda: app.picker.select_key(("tool", "extra", "sleep")))
        extra = bridge.snapshot.server("extra")
        assert extra is not None and extra.status == "connected"


async def test_d_removes_the_server_after_confirmation(bridge: Bridge, config_path: Path) -> None:
    pid = bridge.server_pid("gated")
    assert pid is not None
    app = PickerApp(bridge)
    async with app.run_test() as pilot:
        await until(pilot, lambda: app.picker.select_key(("tool", "gated", "pid")))
        await pilot.press("d")
        await pilot.pause()
        await pilot.press("y")
        await settle(app)
        assert "gated" not in read_config(config_path)
        assert bridge.snapshot.server("gated") is None
        await until(pilot, lambda: app.picker.rows[0].key == ("server", "plain"))
        assert key_of(app) == ("server", "plain")
        with anyio.fail_after(TIMEOUT):
            while pid in bridge.live_pids:
                await pilot.pause()


async def test_r_reloads_an_edited_config(bridge: Bridge, config_path: Path) -> None:
    plain_pid = bridge.server_pid("plain")
    app = PickerApp(bridge)
    async with app.run_test() as pilot:
        await until(pilot, lambda: len(app.picker.rows) > 3)
        data = json.loads(await anyio.Path(config_path).read_text())
        del data["mcpServers"]["gated"]
        data["mcpServers"]["plain"]["tools"] = {"exclude": ["sleep"]}
        await anyio.Path(config_path).write_text(json.dumps(data))
        await pilot.press("r")
        await settle(app)
        assert [s.name for s in bridge.snapshot.servers] == ["plain", "broken"]
        await until(pilot, lambda: app.picker.rows[0].key == ("server", "plain"))
        assert "3/4 tools on" in app.picker.rows[0].text
    assert bridge.server_pid("plain") == plain_pid


async def test_shift_r_retries_a_failed_server_without_restarting_the_app(
    bridge: Bridge, config_path: Path, tmp_path: Path
) -> None:
    """The missing command gets installed meanwhile; R starts it, nothing else is re-spawned."""
    pids = {name: bridge.server_pid(name) for name in ("gated", "plain")}
    app = PickerApp(bridge)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.picker.select_key(("server", "broken")))
        assert "failed — command not found" in app.picker.rows[app.picker.highlighted or 0].text
        command = tmp_path / "no-such-server"
        plain_script = plain_argv()[1]
        command.write_text(
            f"#!{sys.executable}\n"
            "import runpy, sys\n"
            f"sys.argv = [{plain_script!r}, '--name', 'installed']\n"
            f"runpy.run_path({plain_script!r}, run_name='__main__')\n"
        )
        command.chmod(0o755)
        await pilot.press("R")
        await settle(app)
        await until(pilot, lambda: bridge.snapshot.require_server("broken").status == "connected")
        await until(pilot, lambda: len(app.picker.rows) == 3 + len(GATED_BASE_TOOLS) + 8)
        assert key_of(app) == ("server", "broken")
        assert "● broken" in app.picker.rows[app.picker.highlighted or 0].text
        assert set(read_config(config_path)) == {"gated", "plain", "broken"}
    assert {name: bridge.server_pid(name) for name in pids} == pids


async def test_filter_narrows_live_rows(bridge: Bridge) -> None:
    app = PickerApp(bridge)
    async with app.run_test() as pilot:
        await until(pilot, lambda: len(app.picker.rows) > 3)
        await pilot.press("slash", *"pid")
        keys = [row.key for row in app.picker.rows]
        assert keys == [
            ("server", "gated"),
            ("tool", "gated", "pid"),
            ("server", "plain"),
            ("tool", "plain", "pid"),
        ]
        await pilot.press("escape")
        assert len(app.picker.rows) > 4


async def test_enter_shows_the_wire_name(bridge: Bridge) -> None:
    app = PickerApp(bridge)
    async with app.run_test() as pilot:
        await until(pilot, lambda: app.picker.select_key(("tool", "plain", "echo")))
        await pilot.press("enter")
        assert isinstance(app.screen, ToolDetailsScreen)
        facts = str(app.screen.query_one("#details-facts", Static).render())
        assert "mcp__plain__echo" in facts and "on the wire" in facts


async def test_c_calls_the_tool_through_the_bridge(bridge: Bridge) -> None:
    app = PickerApp(bridge)
    async with app.run_test() as pilot:
        await until(pilot, lambda: app.picker.select_key(("tool", "plain", "echo")))
        await pilot.press("c")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CallToolScreen)
        area = screen.query_one("#call-args", TextArea)
        assert json.loads(area.text) == {"text": ""}
        area.text = '{"text": "hello from the picker"}'
        await pilot.press("ctrl+s")
        await settle(app, "call")
        await pilot.pause()
        assert str(screen.query_one("#call-result", Static).render()) == "hello from the picker"


async def test_list_changed_rows_appear_and_go_and_the_cursor_keeps_its_tool(
    bridge: Bridge,
) -> None:
    app = PickerApp(bridge)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.picker.select_key(("tool", "plain", "add")))
        index_before = app.picker.highlighted
        await bridge.call_tool("gated", "enable_toolset", {"name": "scene"})
        await until(
            pilot, lambda: ("tool", "gated", "scene_save") in [r.key for r in app.picker.rows]
        )
        assert key_of(app) == ("tool", "plain", "add")
        assert app.picker.highlighted == (index_before or 0) + 2  # two rows appeared above

        assert app.picker.select_key(("tool", "gated", "scene_open"))
        await bridge.call_tool("gated", "disable_toolset", {"name": "scene"})
        await until(
            pilot, lambda: ("tool", "gated", "scene_open") not in [r.key for r in app.picker.rows]
        )
        assert ("tool", "gated", "scene_save") not in [r.key for r in app.picker.rows]
        # its tool went away: the cursor is on the nearest row of the same server
        assert key_of(app) == ("tool", "gated", "burst")


async def test_stays_responsive_through_a_burst_of_list_changed(bridge: Bridge) -> None:
    """1,000 notices from a real server while keys are pressed: every key is handled, the
    rows end up matching the server, and the re-lists stay a handful."""
    app = PickerApp(bridge)
    async with app.run_test(size=(100, 40)) as pilot:
        await until(pilot, lambda: app.picker.option_count > 0)
        await pilot.press("home")
        start = app.picker.highlighted
        assert start is not None
        relists_before = bridge.session_relists("gated")
        async with anyio.create_task_group() as group:
            group.start_soon(bridge.call_tool, "gated", "burst", {"count": 1000})
            for _ in range(5):
                await pilot.press("down")
        await bridge.call_tool("gated", "enable_toolset", {"name": "script"})
        await until(
            pilot, lambda: ("tool", "gated", "script_run") in {r.key for r in app.picker.rows}
        )
        assert app.picker.highlighted == start + 5
        assert bridge.session_relists("gated") - relists_before <= 6


async def test_opens_on_a_config_that_does_not_parse_and_says_where(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    text = '{\n  "mcpServers": {\n    "a": {"command": "x",}\n  }\n}\n'
    path.write_text(text)
    async with Bridge(ConfigStore(path), log_dir=tmp_path / "logs") as running:
        app = PickerApp(running)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            assert running.snapshot.config_error is not None
            screen = app.export_screenshot()
            assert "mcp.json:3:" in screen
            await pilot.press("r")  # reloading the same broken file keeps saying so
            await pilot.pause()
            assert running.snapshot.config_error is not None
    assert path.read_text() == text
