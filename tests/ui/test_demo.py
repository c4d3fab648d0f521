"""The demo config (``mcp.example.json``) starts in the picker and shows all its servers."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import anyio
import pytest
from textual.widgets import Static

from agentty_tui.bridge import Bridge
from agentty_tui.config import ConfigStore
from agentty_tui.ui.app import PickerApp

pytestmark = pytest.mark.anyio

EXAMPLE = Path(__file__).resolve().parents[2] / "mcp.example.json"
TIMEOUT = 30.0


async def test_demo_config_shows_its_servers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The demo servers are console scripts next to this interpreter; work on a copy of the file.
    scripts = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", scripts + os.pathsep + os.environ.get("PATH", ""))
    if shutil.which("agentty-demo-notes") is None:
        pytest.skip("the demo console scripts are not installed (pip install -e .)")
    config = tmp_path / "mcp.json"
    shutil.copyfile(EXAMPLE, config)
    async with Bridge(ConfigStore(config), log_dir=tmp_path / "logs") as bridge:
        app = PickerApp(bridge)
        async with app.run_test(size=(120, 40)) as pilot:
            with anyio.fail_after(TIMEOUT):
                await bridge.settled()
                while not app.model.settled:
                    await pilot.pause()
            statuses = {s.name: s.status for s in app.model.servers}
            assert statuses == {
                "notes": "connected",
                "toolsets": "connected",
                "big": "connected",
                "broken": "failed",
            }
            server_rows = [row.text for row in app.picker.rows if row.kind == "server"]
            assert [row.server for row in app.picker.rows if row.kind == "server"] == list(statuses)
            assert "failed — command not found" in server_rows[-1]
            warning = app.query_one("#warning", Static)
            assert warning.display
            assert "over the budget of 128" in str(warning.render())
            assert any("✂ trimmed" in row.text for row in app.picker.rows)
    assert await anyio.Path(config).read_bytes() == await anyio.Path(EXAMPLE).read_bytes()
