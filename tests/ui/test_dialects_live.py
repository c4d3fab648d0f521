"""The picker on each host's own config file: detected, shown live, toggled in that spelling.

One real ``plain_server.py`` per file; space turns ``echo`` off through the bridge, and the file
must then say so the way its host reads it, with its comments and other keys kept.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from agentty_tui.bridge import Bridge
from agentty_tui.config import ConfigStore, dialect_name
from agentty_tui.ui.app import PickerApp
from tests.helpers import dialect_files
from tests.servers import PLAIN_TOOLS
from tests.ui.fakes import settle

pytestmark = pytest.mark.anyio

TIMEOUT = 20.0


@pytest.mark.parametrize(
    ("dialect", "name", "text", "toggled"),
    dialect_files(),
    ids=["claude", "gemini", "vscode", "codex"],
)
async def test_the_picker_toggles_in_each_hosts_own_file(
    tmp_path: Path, dialect: str, name: str, text: str, toggled: str
) -> None:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    store = ConfigStore(path)
    assert dialect_name(store.dialect) == dialect
    async with Bridge(store, log_dir=tmp_path / "logs") as bridge:
        with anyio.fail_after(TIMEOUT):
            model = await bridge.settled()
        plain = model.server("plain")
        assert plain is not None and plain.status == "connected", plain
        assert [tool.bare for tool in plain.tools] == list(PLAIN_TOOLS)
        app = PickerApp(bridge)
        async with app.run_test() as pilot:
            with anyio.fail_after(TIMEOUT):
                while not app.picker.select_key(("tool", "plain", "echo")):
                    await pilot.pause()
            await pilot.press("space")
            await settle(app)
            with anyio.fail_after(TIMEOUT):
                while app.picker.current_row is None or app.picker.current_row.enabled:
                    await pilot.pause()
    after = path.read_text()
    assert toggled in after
    # Everything else of the file is as it was: only the toggle's own text was added.
    kept = [line for line in text.splitlines() if line.strip()]
    assert all(line in after or line.rstrip(",") in after for line in kept if "plain" not in line)
