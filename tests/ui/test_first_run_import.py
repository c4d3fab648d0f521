"""The first run on an empty config: other hosts' files are listed, and `i` imports one.

A fake home holds a Claude Code ``~/.claude.json`` and a Codex ``~/.codex/config.toml`` whose
servers are real MCP servers; the import runs through a real bridge, which starts them.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import anyio
import pytest
from textual.widgets import OptionList

from agentty_tui.bridge import Bridge
from agentty_tui.config import ConfigStore
from agentty_tui.config.discover import HostFile, host_config_files
from agentty_tui.config.pins import PINS_FILE_NAME, PinPlace, PinServer, PinStore, PinTool
from agentty_tui.ui.app import PickerApp
from agentty_tui.ui.dialogs import ConfirmScreen
from agentty_tui.ui.import_dialog import ImportScreen
from agentty_tui.ui.text import PlainText
from tests.servers import plain_argv
from tests.ui.test_app_live import TIMEOUT, until

pytestmark = pytest.mark.anyio


def _toml_entry(name: str, argv: list[str]) -> str:
    # JSON strings are TOML basic strings for these paths.
    args = ", ".join(json.dumps(arg) for arg in argv[1:])
    return f"[mcp_servers.{name}]\ncommand = {json.dumps(argv[0])}\nargs = [{args}]\n"


def plan_text(app: PickerApp) -> str:
    """The question on screen: the import's plan."""
    return str(app.screen.query_one(".dialog-text", PlainText).content)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    argv = plain_argv()
    claude = {"numStartups": 1, "mcpServers": {"plain": {"command": argv[0], "args": argv[1:]}}}
    (home / ".claude.json").write_text(json.dumps(claude))
    codex = _toml_entry("alpha", plain_argv("--name", "alpha"))
    codex += "\n" + _toml_entry("beta", plain_argv("--name", "beta"))
    (home / ".codex" / "config.toml").write_text(codex)
    return home


async def test_an_empty_config_lists_other_hosts_files_and_i_imports_one(
    tmp_path: Path, home: Path
) -> None:
    target = tmp_path / "project" / "mcp.json"
    codex_file = home / ".codex" / "config.toml"
    codex_before = codex_file.read_bytes()

    def found(config: Path | None) -> tuple[HostFile, ...]:
        return host_config_files(home, {}, None, exclude=config)

    async with Bridge(ConfigStore(target), log_dir=tmp_path / "logs") as bridge:
        with anyio.fail_after(TIMEOUT):
            await bridge.settled()
        app = PickerApp(bridge, host_files=found)
        async with app.run_test(size=(60, 20)) as pilot:
            await pilot.pause()
            empty = str(app.query_one("#empty", PlainText).content)
            assert "press a to add one, or i to import" in empty
            assert f"Claude Code: {home / '.claude.json'} (1 server)" in empty
            assert f"Codex: {codex_file} (2 servers)" in empty

            await pilot.press("i")
            await until(pilot, lambda: isinstance(app.screen, ImportScreen))
            options = app.screen.query_one(OptionList)
            assert options.option_count == 2
            await pilot.press("down", "enter")
            # The plan first, as ``agentty-tui import`` prints it; enter alone writes nothing.
            await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            assert plan_text(app) == (
                f"From Codex: {codex_file}\n\n"
                f"+ alpha  {shlex.join(plain_argv('--name', 'alpha'))}\n"
                f"+ beta  {shlex.join(plain_argv('--name', 'beta'))}\n\n"
                f"Add 2 server(s) to {target}?"
            )
            await pilot.press("enter")
            await until(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
            assert not target.exists()
            await pilot.press("i")
            await until(pilot, lambda: isinstance(app.screen, ImportScreen))
            await pilot.press("down", "enter")
            await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            await pilot.press("y")
            await until(
                pilot,
                lambda: (
                    {s.name: s.status for s in app.model.servers}
                    == {"alpha": "connected", "beta": "connected"}
                ),
            )
            assert not isinstance(app.screen, ImportScreen)
    written = json.loads(target.read_text())["mcpServers"]
    assert sorted(written) == ["alpha", "beta"]
    assert written["alpha"]["args"][-2:] == ["--name", "alpha"]
    assert codex_file.read_bytes() == codex_before


async def test_i_without_other_hosts_files_says_so(tmp_path: Path) -> None:
    target = tmp_path / "mcp.json"
    async with Bridge(ConfigStore(target), log_dir=tmp_path / "logs") as bridge:
        app = PickerApp(bridge, host_files=lambda _: ())
        async with app.run_test() as pilot:
            await pilot.pause()
            empty = str(app.query_one("#empty", PlainText).content)
            assert empty == "No servers in this config yet: press a to add one."
            await pilot.press("i")
            await pilot.pause()
            assert not isinstance(app.screen, ImportScreen)
            assert any("No other host" in str(n.message) for n in app._notifications)


async def test_a_folders_mcp_json_is_a_projects_and_its_servers_come_disabled(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "folder"  # in no repository: offered, as a project's file
    folder.mkdir()
    argv = plain_argv("--name", "gamma")
    entry = {"command": argv[0], "args": argv[1:]}
    (folder / ".mcp.json").write_text(json.dumps({"mcpServers": {"gamma": entry}}))
    target = tmp_path / "mine" / "mcp.json"

    def found(config: Path | None) -> tuple[HostFile, ...]:
        return host_config_files(tmp_path / "no-home", {}, folder, exclude=config)

    async with Bridge(ConfigStore(target), log_dir=tmp_path / "logs") as bridge:
        with anyio.fail_after(TIMEOUT):
            await bridge.settled()
        app = PickerApp(bridge, host_files=found)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("i")
            await until(pilot, lambda: isinstance(app.screen, ImportScreen))
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            text = plan_text(app)
            assert f"+ gamma  {shlex.join(argv)}" in text
            assert "It is a project's file: what it runs is not trusted" in text
            await pilot.press("y")
            await until(pilot, lambda: [s.status for s in app.model.servers] == ["disabled"])
            assert bridge.server_pid("gamma") is None
    written = json.loads(target.read_text())["mcpServers"]
    assert written["gamma"]["disabled"] is True


async def test_i_carries_the_pins_the_pin_store_keeps_for_a_hosts_servers(
    tmp_path: Path, home: Path
) -> None:
    """Codex's file cannot hold pins; agentty's pin store keeps them by its path. Imported with
    `i`, the plan says what is pinned, our file holds the pins, and the servers it starts are
    pinned as they were (a tool's ⚑, every tool of a server with a priority)."""
    target = tmp_path / "project" / "mcp.json"
    codex_file = home / ".codex" / "config.toml"
    pins = Path(os.environ["XDG_CONFIG_HOME"]) / "agentty" / PINS_FILE_NAME
    place = PinPlace(str(codex_file))
    PinStore(pins).apply([PinTool(place, "alpha", "echo", True), PinServer(place, "beta", 1)])

    def found(config: Path | None) -> tuple[HostFile, ...]:
        return host_config_files(home, {}, None, exclude=config)

    async with Bridge(ConfigStore(target), log_dir=tmp_path / "logs") as bridge:
        with anyio.fail_after(TIMEOUT):
            await bridge.settled()
        app = PickerApp(bridge, host_files=found)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("i")
            await until(pilot, lambda: isinstance(app.screen, ImportScreen))
            await pilot.press("down", "enter")
            await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            text = plan_text(app)
            assert "    pinned  echo (carried over)\n+ beta" in text
            assert "    pinned  every tool (priority 1) (carried over)\n" in text
            await pilot.press("y")
            await until(
                pilot,
                lambda: [s.status for s in app.model.servers] == ["connected", "connected"],
            )
            alpha, beta = app.model.servers
            assert [tool.bare for tool in alpha.tools if tool.pinned] == ["echo"]
            assert beta.priority == 1
    written = json.loads(target.read_text())["mcpServers"]
    assert written["alpha"]["tools"] == {"pin": ["echo"]} and written["beta"]["priority"] == 1
