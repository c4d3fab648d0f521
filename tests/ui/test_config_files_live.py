"""The picker on config files the user protects or others can change (real servers, pilot)."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from agentty_tui.bridge import Bridge
from agentty_tui.config import ConfigStore
from agentty_tui.ui.app import PickerApp
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
