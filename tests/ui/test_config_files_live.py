"""The picker on config files the user protects or others can change (real servers, pilot)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import anyio
import pytest
from textual.widgets import Static

from agentty_tui.bridge import Bridge
from agentty_tui.config import ConfigStore
from agentty_tui.ui.app import PickerApp
from agentty_tui.ui.dialogs import ConfirmScreen
from tests.servers import plain_argv
from tests.ui.test_app_live import TIMEOUT, until

pytestmark = pytest.mark.anyio


def _write(path: Path, mode: int) -> Path:
    argv = plain_argv()
    servers = {"plain": {"command": argv[0], "args": argv[1:]}}
    path.write_text(json.dumps({"mcpServers": servers}, indent=2) + "\n")
    path.chmod(mode)
    return path


async def test_a_toggle_on_a_read_only_config_is_an_error_notification(tmp_path: Path) -> None:
    path = _write(tmp_path / "mcp.json", 0o444)
    before = path.read_bytes()
    async with Bridge(ConfigStore(path), log_dir=tmp_path / "logs") as bridge:
        with anyio.fail_after(TIMEOUT):
            await bridge.settled()
        app = PickerApp(bridge)
        async with app.run_test() as pilot:
            await until(pilot, lambda: app.picker.select_key(("tool", "plain", "echo")))
            await pilot.press("space")
            await until(pilot, lambda: bool(app._notifications))
            notes = [(n.title, n.message, n.severity) for n in app._notifications]
            assert notes == [
                ("Toggle failed", f"{path} is read-only (mode 0444): not written", "error")
            ]
        state = bridge.snapshot.server("plain")
        assert state is not None and state.tool("echo") is not None
        assert state.tool("echo").enabled  # type: ignore[union-attr]
    assert path.read_bytes() == before


async def test_an_untrusted_config_warns_and_t_trusts_it_after_a_confirmation(
    tmp_path: Path,
) -> None:
    path = _write(tmp_path / "mcp.json", 0o666)
    warning = (
        f"{path} is writable by other users (mode 0666): its commands are not run until you "
        f"trust it (chmod o-w {path}, or T in the picker / --trust)"
    )
    async with Bridge(ConfigStore(path), log_dir=tmp_path / "logs") as bridge:
        with anyio.fail_after(TIMEOUT):
            await bridge.settled()
        app = PickerApp(bridge)
        async with app.run_test(size=(200, 30)) as pilot:
            await until(pilot, lambda: bool(app.picker.rows))
            bar = app.query_one("#config-error", Static)
            assert bar.display and str(bar.render()) == warning
            row = app.picker.rows[0].text
            assert row.startswith("  ⊘ plain") and "not started: config not trusted" in row
            assert "1 untrusted" in str(app.query_one("#status", Static).render())
            await pilot.press("T")
            await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            question = str(app.screen.query_one(".dialog-text", Static).render())
            assert question == f"{warning}\n\nTrust it for this run and start its servers as you?"
            await pilot.press("n")  # cancelled: nothing starts
            await pilot.pause()
            assert bridge.snapshot.config_untrusted is not None
            assert bridge.server_pid("plain") is None
            await pilot.press("T")
            await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            await pilot.press("y")
            await until(pilot, lambda: app.picker.rows[0].text.startswith("▾ ● plain"))
            assert not app.query_one("#config-error", Static).display
        assert bridge.server_pid("plain") is not None


async def test_duplicate_keys_show_in_the_warning_bar_and_the_server_runs(tmp_path: Path) -> None:
    argv = plain_argv()
    entry = json.dumps({"command": argv[0], "args": argv[1:]})
    path = tmp_path / "mcp.json"
    path.write_text(f'{{\n  "mcpServers": {{\n    "plain": {{}},\n    "plain": {entry}\n  }}\n}}\n')
    async with Bridge(ConfigStore(path), log_dir=tmp_path / "logs") as bridge:
        with anyio.fail_after(TIMEOUT):
            await bridge.settled()
        assert bridge.snapshot.config_warnings == (
            f"{path}:4: duplicate key 'plain' (the last one is used)",
        )
        app = PickerApp(bridge)
        async with app.run_test(size=(160, 30)) as pilot:
            await until(pilot, lambda: bool(app.picker.rows))
            bar = app.query_one("#config-error", Static)
            assert bar.display
            assert str(bar.render()) == f"{path}:4: duplicate key 'plain' (the last one is used)"
            assert app.picker.rows[0].text.startswith("▾ ● plain")


async def test_the_picker_opens_on_a_fifo_config_says_so_and_quits(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    os.mkfifo(path)
    with anyio.fail_after(TIMEOUT):  # before the fix, the open() below never returned
        async with Bridge(ConfigStore(path), log_dir=tmp_path / "logs") as bridge:
            app = PickerApp(bridge)
            async with app.run_test(size=(120, 20)) as pilot:
                await pilot.pause()
                bar = str(app.query_one("#config-error", Static).render())
                assert bar == (
                    "config not (re)loaded, showing the last good one: "
                    f"{path}: not a regular file (a FIFO)"
                )
                await pilot.press("q")
            assert app.return_code == 0
