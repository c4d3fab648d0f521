"""``notifications/tools/list_changed`` from real servers of both protocol eras."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from agentty_tui.bridge import Bridge
from agentty_tui.config import ConfigStore
from tests.conftest import WriteConfig
from tests.helpers import reveal_and_withdraw_scene, stdio_entry, tool_flags
from tests.servers import (
    GATED_BASE_TOOLS,
    LEGACY_TS_REVEALED_TOOL,
    gated_argv,
    legacy_ts_argv,
    legacy_ts_available,
    light_argv,
)

pytestmark = pytest.mark.anyio

SETTLE = 20.0


async def test_modern_server_reveals_and_withdrawstool_flags(
    write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config({"godot": stdio_entry(gated_argv())})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        model = await bridge.settled(SETTLE)
        state = model.server("godot")
        assert state is not None and state.info is not None
        assert state.info.protocol_version == "2026-07-28"
        pid = bridge.server_pid("godot")
        await reveal_and_withdraw_scene(bridge, "godot", GATED_BASE_TOOLS)
        assert bridge.server_pid("godot") == pid


async def test_revealed_tool_stays_off_under_an_include_list(
    write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config(
        {"godot": stdio_entry(gated_argv(), tools={"include": ["enable_toolset", "pid"]})}
    )
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        await bridge.settled(SETTLE)
        await bridge.call_tool("godot", "enable_toolset", {"name": "script"})
        model = await bridge.wait_for(lambda m: "script_run" in tool_flags(m, "godot"), 5)
        tools = tool_flags(model, "godot")
        assert tools["script_run"] is False
        assert tools["script_edit"] is False
        assert tools["enable_toolset"] is True


async def test_a_burst_of_notifications_coalesces(write_config: WriteConfig, log_dir: Path) -> None:
    path = write_config({"godot": stdio_entry(gated_argv())})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        await bridge.settled(SETTLE)
        await bridge.call_tool("godot", "burst", {"count": 1000})
        # One more change after the burst proves every earlier notice has been handled.
        await bridge.call_tool("godot", "enable_toolset", {"name": "scene"})
        await bridge.wait_for(lambda m: "scene_open" in tool_flags(m, "godot"), 5)
        with anyio.move_on_after(0.3):  # let any stragglers arrive
            await bridge.wait_for(lambda m: False)
        relists = bridge.session_relists("godot")
        # 1,000 notices: a handful of re-lists (3 measured, also under load), not hundreds
        assert 1 <= relists <= 8, relists


@pytest.mark.skipif(
    not legacy_ts_available(), reason="needs node and npm ci in tests/servers/legacy_ts"
)
async def test_legacy_era_server_list_changed(write_config: WriteConfig, log_dir: Path) -> None:
    path = write_config({"ts": stdio_entry(legacy_ts_argv())})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        model = await bridge.settled(SETTLE)
        state = model.server("ts")
        assert state is not None and state.status == "connected", state
        assert state.info is not None and state.info.protocol_version != "2026-07-28"
        await bridge.call_tool("ts", "reveal")
        model = await bridge.wait_for(lambda m: LEGACY_TS_REVEALED_TOOL in tool_flags(m, "ts"), 5)
        await bridge.call_tool("ts", "hide")
        await bridge.wait_for(lambda m: LEGACY_TS_REVEALED_TOOL not in tool_flags(m, "ts"), 5)


async def test_a_modern_server_without_the_subscription_is_normal_other_refusals_are_noted(
    write_config: WriteConfig, log_dir: Path
) -> None:
    # A 2026-07-28 server that answers subscriptions/listen "method not found" simply does not
    # offer it: nothing in its log reads as an error. Another refusal stays in the log.
    path = write_config(
        {
            "quiet": stdio_entry([*light_argv(2, name="quiet"), "--modern"]),
            "broken": stdio_entry(
                [*light_argv(2, name="broken"), "--modern", "--listen-error", "-32603"]
            ),
        }
    )
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        model = await bridge.settled(SETTLE)
        quiet, broken = model.require_server("quiet"), model.require_server("broken")
        assert quiet.status == broken.status == "connected"
        assert quiet.info is not None and quiet.info.protocol_version == "2026-07-28"
        assert quiet.log_path is not None and broken.log_path is not None
        quiet_log = await anyio.Path(quiet.log_path).read_text()
        assert "connected (2026-07-28)" in quiet_log
        assert "subscription" not in quiet_log
        broken_log = await anyio.Path(broken.log_path).read_text()
        assert "tools/list_changed subscription ended: the listen stream is broken" in broken_log
