"""Pins through a real bridge and real servers: ``tool_set_pinned`` and ``server_set_priority``
write the config, re-derive the states without a re-spawn, and the catalog trims the pinned
tool last."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentty_tui.bridge import Bridge
from agentty_tui.catalog import project_catalog
from agentty_tui.config import ConfigStore
from tests.conftest import WriteConfig
from tests.helpers import stdio_entry
from tests.servers import PLAIN_TOOLS, plain_argv

pytestmark = pytest.mark.anyio

SETTLE = 20.0


def _entries(path: Path) -> dict[str, dict[str, object]]:
    found: dict[str, dict[str, object]] = json.loads(path.read_text())["mcpServers"]
    return found


async def test_a_pinned_tool_of_the_last_server_outlives_the_budget(
    write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config(
        {
            "alpha": stdio_entry(plain_argv("--name", "alpha")),
            "beta": stdio_entry(plain_argv("--name", "beta")),
        }
    )
    last = PLAIN_TOOLS[-1]
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        await bridge.settled(SETTLE)
        pid = bridge.server_pid("beta")
        model = await bridge.tool_set_pinned("beta", last, True)
        beta = model.require_server("beta")
        assert beta.tool(last) is not None and beta.tool(last).pinned  # type: ignore[union-attr]
        assert _entries(path)["beta"]["tools"] == {"pin": [last]}
        assert bridge.server_pid("beta") == pid  # a config write, never a re-spawn
        natives = len(project_catalog(model).tools) - 2 * len(PLAIN_TOOLS)
        tight = model.model_copy(update={"tool_budget": natives + 1})
        (shipped,) = [t for t in project_catalog(tight).tools if t.server is not None]
        assert (shipped.server, shipped.tool) == ("beta", last)

        model = await bridge.server_set_priority("alpha", 1)
        assert model.require_server("alpha").priority == 1
        assert _entries(path)["alpha"]["priority"] == 1
        order = [t.server for t in project_catalog(model).tools if t.server is not None]
        # alpha's tools (all pinned by its priority), then beta's pinned one, then the rest.
        assert order[: len(PLAIN_TOOLS) + 1] == ["alpha"] * len(PLAIN_TOOLS) + ["beta"]

        await bridge.tool_set_pinned("beta", last, False)
        model = await bridge.server_set_priority("alpha", 0)
        assert "tools" not in _entries(path)["beta"] and "priority" not in _entries(path)["alpha"]
        assert not model.require_server("beta").tool(last).pinned  # type: ignore[union-attr]


async def test_a_codex_files_server_is_pinned_in_the_pin_store_without_a_respawn(
    tmp_path: Path, log_dir: Path
) -> None:
    """Codex's TOML cannot hold a pin: the bridge's pin goes to agentty's pin store, the TOML
    stays as it was, the server keeps its process, and the catalog ships the pinned tool."""
    path = tmp_path / "config.toml"
    argv = plain_argv("--name", "gamma")
    args = ", ".join(json.dumps(arg) for arg in argv[1:])
    text = f"[mcp_servers.gamma]\ncommand = {json.dumps(argv[0])}\nargs = [{args}]\n"
    path.write_text(text)
    last = PLAIN_TOOLS[-1]
    async with Bridge.on_file(path, log_dir=log_dir, trust=True) as bridge:
        await bridge.settled(SETTLE)
        pid = bridge.server_pid("gamma")
        model = await bridge.tool_set_pinned("gamma", last, True)
        gamma = model.require_server("gamma")
        assert gamma.tool(last).pinned  # type: ignore[union-attr]
        assert gamma.pins_kept_in is not None and gamma.pins_kept_in.endswith("pins.json")
        assert bridge.server_pid("gamma") == pid
        assert path.read_text() == text
        natives = len(project_catalog(model).tools) - len(PLAIN_TOOLS)
        tight = model.model_copy(update={"tool_budget": natives + 1})
        (shipped,) = [t for t in project_catalog(tight).tools if t.server is not None]
        assert (shipped.server, shipped.tool) == ("gamma", last)
        model = await bridge.server_set_priority("gamma", 1)
        assert model.require_server("gamma").priority == 1
        model = await bridge.tool_set_pinned("gamma", last, False)
        model = await bridge.server_set_priority("gamma", 0)
        gamma = model.require_server("gamma")
        assert gamma.priority == 0 and not gamma.tool(last).pinned  # type: ignore[union-attr]
        assert path.read_text() == text
