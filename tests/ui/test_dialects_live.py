"""The picker on each host's own config file and on each URL transport.

One real ``light_plain_server.py`` per file; space turns ``echo`` off through the bridge, and
the file must then say so the way its host reads it, with its comments and other keys kept. A
gated server over Streamable HTTP and SSE: toggled, and its revealed tools appear live.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from textual.pilot import Pilot

from agentty_tui.bridge import Bridge
from agentty_tui.config import ConfigStore, dialect_name
from agentty_tui.ui.app import PickerApp
from tests.conftest import WriteConfig
from tests.helpers import each_dialect_file, url_entry, write_file
from tests.servers import PLAIN_TOOLS
from tests.ui.fakes import settle

pytestmark = pytest.mark.anyio

TIMEOUT = 20.0


async def switch_off(app: PickerApp, pilot: Pilot[None], key: tuple[str, ...]) -> None:
    """Once the row is there, put the cursor on it, press space and wait until it shows off."""
    with anyio.fail_after(TIMEOUT):
        while not app.picker.select_key(key):
            await pilot.pause()
    await pilot.press("space")
    await settle(app)
    with anyio.fail_after(TIMEOUT):
        while app.picker.current_row is None or app.picker.current_row.enabled:
            await pilot.pause()


@each_dialect_file
async def test_the_picker_toggles_in_each_hosts_own_file(
    tmp_path: Path, dialect: str, name: str, text: str, toggled: str
) -> None:
    path = write_file(tmp_path / name, text)
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
            await switch_off(app, pilot, ("tool", "plain", "echo"))
    after = path.read_text()
    assert toggled in after
    # Everything else of the file is as it was: only the toggle's own text was added.
    kept = [line for line in text.splitlines() if line.strip()]
    assert all(line in after or line.rstrip(",") in after for line in kept if "plain" not in line)


async def test_the_picker_over_a_url_server_toggles_and_shows_list_changed(
    gated_http_server: tuple[str, str], write_config: WriteConfig, tmp_path: Path
) -> None:
    """Streamable HTTP and SSE alike: rows live, a toggle written, revealed tools appear."""
    transport, url = gated_http_server
    path = write_config({"godot": url_entry(transport, url)})
    async with Bridge(ConfigStore(path), log_dir=tmp_path / "logs") as bridge:
        app = PickerApp(bridge)
        async with app.run_test() as pilot:
            await switch_off(app, pilot, ("tool", "godot", "burst"))
            godot = ConfigStore(path).load().server("godot")
            assert godot is not None and godot.tools.exclude == ("burst",)
            await bridge.call_tool("godot", "enable_toolset", {"name": "scene"})
            with anyio.fail_after(TIMEOUT):
                while ("tool", "godot", "scene_open") not in {r.key for r in app.picker.rows}:
                    await pilot.pause()
            assert key_of_cursor(app) == ("tool", "godot", "burst")


def key_of_cursor(app: PickerApp) -> tuple[str, ...] | None:
    """The key of the row under the cursor."""
    row = app.picker.current_row
    return None if row is None else row.key


@each_dialect_file
async def test_p_pins_in_each_hosts_own_file_through_the_pin_store(
    tmp_path: Path, dialect: str, name: str, text: str, toggled: str
) -> None:
    """``p`` on a tool of every dialect's file: agentty's own spelling holds the pin in the
    file; Gemini CLI's, VS Code's and Codex's files stay byte for byte as they were (the pin
    is kept in agentty's pin store), and the row shows the pin in each."""
    path = write_file(tmp_path / name, text)
    before = path.read_bytes()
    async with Bridge(ConfigStore(path), log_dir=tmp_path / "logs") as bridge:
        with anyio.fail_after(TIMEOUT):
            await bridge.settled()
        app = PickerApp(bridge)
        async with app.run_test() as pilot:
            with anyio.fail_after(TIMEOUT):
                while not app.picker.select_key(("tool", "plain", "echo")):
                    await pilot.pause()
            await pilot.press("p")
            await settle(app)
            with anyio.fail_after(TIMEOUT):
                while not (app.picker.current_row and "⚑" in app.picker.current_row.text):
                    await pilot.pause()
        echo = bridge.snapshot.require_server("plain").tool("echo")
        assert echo is not None and echo.pinned
    if dialect == "claude":  # agentty's own spelling: the file holds it
        assert '"pin"' in path.read_text()
    else:
        assert path.read_bytes() == before
