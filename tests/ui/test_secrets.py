"""Secrets in a server's env and headers never reach the picker's screen."""

from __future__ import annotations

import pytest

from agentty_tui.model import HttpSpec, PluginModel, ServerState, StdioSpec
from agentty_tui.ui.app import PickerApp
from agentty_tui.ui.dialogs import ServerDetailsScreen
from tests.ui.fakes import StaticSource, tool

pytestmark = pytest.mark.anyio

SECRET = "sk-planted-PICKER-9191"


def _model() -> PluginModel:
    stdio = ServerState(
        name="local",
        spec=StdioSpec(command="server", env={"API_KEY": SECRET}),
        status="connected",
        tools=(tool("echo"),),
    )
    remote = ServerState(
        name="remote",
        spec=HttpSpec(url="http://127.0.0.1:9/mcp", headers={"Authorization": f"Bearer {SECRET}"}),
        status="failed",
        error="http://127.0.0.1:9/mcp answered HTTP 401 (check the headers)",
    )
    return PluginModel(servers=(stdio, remote), config_path="mcp.json")


async def test_details_show_names_but_never_values() -> None:
    app = PickerApp(StaticSource(_model()))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screens: list[str] = [app.export_screenshot()]
        await pilot.press("enter")  # details of "local"
        assert isinstance(app.screen, ServerDetailsScreen)
        screens.append(app.export_screenshot())
        await pilot.press("escape", "end", "enter")  # details of "remote"
        assert isinstance(app.screen, ServerDetailsScreen)
        screens.append(app.export_screenshot())
    assert "API_KEY" in screens[1]
    assert "Authorization" in screens[2]
    for svg in screens:
        assert SECRET not in svg
