"""Secrets in a server's env, headers and URL never reach the picker's screen."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from textual.widgets import Static

from agentty_tui.bridge import Bridge
from agentty_tui.config import ConfigStore
from agentty_tui.model import HttpSpec, PluginModel, ServerState, StdioSpec
from agentty_tui.ui.app import PickerApp
from agentty_tui.ui.dialogs import ServerDetailsScreen
from tests.helpers import free_port
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


async def test_live_details_never_show_url_credentials_or_a_pasted_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTTY_SECRET_PORT", "port-planted-SECRET-3131")
    port = free_port()  # nobody listens
    path = tmp_path / "mcp.json"
    servers = {
        "pasted": {
            "url": f"http://127.0.0.1:{port}/mcp",
            "headers": {"Authorization": "Bearer sekrit\n"},
        },
        "creds": {"url": f"http://user:pw123@127.0.0.1:{port}/mcp?token=tok456&x=1"},
        "expanded": {"url": "http://127.0.0.1:${AGENTTY_SECRET_PORT}/mcp"},
        "remote": {"command": "agentty-no-such-remote", "args": ["https://h/?token=tok456"]},
    }
    path.write_text(json.dumps({"mcpServers": servers}))
    async with Bridge(ConfigStore(path), log_dir=tmp_path / "logs") as bridge:
        with anyio.fail_after(20):
            await bridge.settled()
        app = PickerApp(bridge)
        async with app.run_test(size=(160, 40)) as pilot:
            await pilot.pause()
            screens = [app.export_screenshot()]
            details: dict[str, str] = {}
            for name in servers:
                assert app.picker.select_key(("server", name))
                await pilot.press("enter")
                assert isinstance(app.screen, ServerDetailsScreen)
                details[name] = "\n".join(
                    str(widget.render()) for widget in app.screen.query(Static)
                )
                screens.append(app.export_screenshot())
                await pilot.press("escape")
    assert "headers.Authorization" in details["pasted"]
    assert f"url        http://••••:•••••@127.0.0.1:{port}/mcp?token=••••••&x=1" in details["creds"]
    assert "cannot connect to http://••••:•••••@127.0.0.1" in details["creds"]
    assert "Invalid port: '${AGENTTY_SECRET_PORT}'" in details["expanded"]
    assert "command    agentty-no-such-remote 'https://h/?token=••••••'" in details["remote"]
    for text in [*screens, *details.values()]:
        for secret in ("sekrit", "pw123", "tok456", "planted-SECRET"):
            assert secret not in text
