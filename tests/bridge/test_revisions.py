"""Each server's ``revision`` (docs/ARCHITECTURE.md §3), against real servers.

It changes with every kind of change to that server's state (status, tools, enabled flags,
config) and with nothing else: a reload, a toggle or a server parked elsewhere hands out the
very same state object, and a cache keyed on ``(name, revision)`` redoes one server.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentty_tui.bridge import Bridge
from agentty_tui.catalog import CatalogProjector
from agentty_tui.config import ConfigStore
from agentty_tui.model import PluginModel, ServerState
from agentty_tui.ui.rows import RowMemo, build_rows
from tests.conftest import WriteConfig
from tests.helpers import stdio_entry, tool_flags
from tests.servers import gated_argv, plain_argv

pytestmark = pytest.mark.anyio

SETTLE = 20.0


def _states(model: PluginModel) -> dict[str, ServerState]:
    return {state.name: state for state in model.servers}


def _changed(before: PluginModel, after: PluginModel) -> set[str]:
    """The servers whose revision moved; every other one must be the very same object."""
    old, new = _states(before), _states(after)
    moved = {name for name in new if name in old and new[name].revision != old[name].revision}
    for name in set(new) - moved:
        if name in old:
            assert new[name] is old[name], f"{name}: same revision, another object"
    for name in moved:
        assert new[name].revision > old[name].revision
        assert not new[name].same_as(old[name]), f"{name}: a new revision that says nothing new"
    return moved


async def test_the_revision_moves_with_each_kind_of_change_and_only_for_that_server(
    write_config: WriteConfig, log_dir: Path
) -> None:
    parked = stdio_entry(plain_argv("--name", "parked"), disabled=True)
    path = write_config(
        {
            "godot": stdio_entry(gated_argv()),
            "plain": stdio_entry(plain_argv()),
            "parked": parked,
        }
    )
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        first = bridge.snapshot
        settled = await bridge.settled(SETTLE)
        # status: connecting -> connected, for the two servers that run
        assert _changed(first, settled) == {"godot", "plain"}

        # a reload that changes nothing changes no revision
        report = await bridge.reload()
        assert _changed(settled, report.snapshot) == set()

        # enabled flags: a toggle moves the toggled server only
        toggled = await bridge.tool_set_enabled("plain", "echo", False)
        assert _changed(report.snapshot, toggled) == {"plain"}

        # tools: a server that reveals a toolset moves, alone
        await bridge.call_tool("godot", "enable_toolset", {"name": "scene"})
        revealed = await bridge.wait_for(lambda m: "scene_open" in tool_flags(m, "godot"), 5)
        assert _changed(toggled, revealed) == {"godot"}

        # config: a changed entry of a parked server (nothing runs) moves it, alone
        data = json.loads(path.read_text())
        data["mcpServers"]["parked"]["args"].append("--verbose")
        path.write_text(json.dumps(data))
        edited = (await bridge.reload()).snapshot
        assert _changed(revealed, edited) == {"parked"}

        # parking another server moves that one, alone
        parked_plain = await bridge.server_set_disabled("plain", True)
        assert _changed(edited, parked_plain) == {"plain"}
        assert _states(parked_plain)["plain"].status == "disabled"


async def test_caches_keyed_on_the_revision_redo_only_the_changed_server(
    write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config({name: stdio_entry(plain_argv("--name", name)) for name in "abc"})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        before = await bridge.settled(SETTLE)
        projector, memo = CatalogProjector(), RowMemo()
        first = projector.project(before)
        build_rows(before, first, memo=memo)
        assert (memo.hits, memo.misses) == (0, 3)

        after = await bridge.tool_set_enabled("b", "add", False)
        second = projector.project(after)
        build_rows(after, second, memo=memo)
        assert (memo.hits, memo.misses) == (2, 4)  # a and c reused, b rebuilt
        old = {(t.server, t.tool): t for t in first.tools}
        new = {(t.server, t.tool): t for t in second.tools}
        assert ("b", "add") not in new
        for key, wire_tool in new.items():
            if key[0] in {"a", "c"}:
                assert wire_tool is old[key], f"{key} re-projected"
            elif key[0] == "b":
                assert wire_tool is not old[key], f"{key} kept from the old revision"
