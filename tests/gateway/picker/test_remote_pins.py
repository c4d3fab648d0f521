"""Pins from a picker attached to the gateway daemon: the daemon's bridge writes them, and the
attached host's list puts the pinned tool first."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentty_tui.model import PluginModel
from tests.gateway.daemon.test_process import attached
from tests.gateway.hosts import Notices
from tests.gateway.picker.test_remote_source import config, connected, picker_source, until_model
from tests.servers import PLAIN_TOOLS

pytestmark = pytest.mark.anyio

__all__ = ["config"]  # the fixture (runtime: tests/gateway/conftest.py)


def _entry(config: Path) -> dict[str, object]:
    found: dict[str, object] = json.loads(config.read_text())["mcpServers"]["alpha"]
    return found


async def test_an_attached_pickers_pin_reaches_the_config_and_the_hosts_list(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    last = PLAIN_TOOLS[-1]
    notices = Notices()
    async with (
        attached(config, runtime, tmp_path / "host", notices) as host,
        picker_source(config, runtime, tmp_path / "picker") as source,
    ):
        await until_model(source, connected)
        await source.tool_set_pinned("alpha", last, True)

        def pinned(model: PluginModel) -> bool:
            state = model.require_server("alpha").tool(last)
            return state is not None and state.pinned

        await until_model(source, pinned)
        entry = _entry(config)
        assert entry["tools"] == {"pin": [last]}
        await notices.until(1)
        listed = [tool.name for tool in (await host.list_tools()).tools]
        assert listed[0] == f"alpha__{last}"
        await source.server_set_priority("alpha", 1)
        await until_model(source, lambda m: m.require_server("alpha").priority == 1)
        assert _entry(config)["priority"] == 1
