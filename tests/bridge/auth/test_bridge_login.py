"""``Bridge.login``: the library's login, through a host's own ``LoginUI``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentty_tui.bridge import Bridge
from agentty_tui.config import ConfigStore
from tests.bridge.auth.conftest import Cli, OAuthServer

pytestmark = pytest.mark.anyio


class RecordingUI:
    """A host's LoginUI that only records what it was shown."""

    def __init__(self) -> None:
        self.urls: list[str] = []
        self.lines: list[str] = []

    def show_url(self, url: str) -> None:
        self.urls.append(url)

    def tell(self, message: str) -> None:
        self.lines.append(message)

    async def pasted_redirect(self) -> str | None:
        return None


async def test_bridge_login_then_the_server_alone_reconnects(
    cli: Cli,
    oauth_server: OAuthServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for key, value in cli.env.items():
        monkeypatch.setenv(key, value)
    config = {"web": {"url": oauth_server.url}, "other": {"url": oauth_server.url + "/x"}}
    cli.config.write_text(json.dumps({"mcpServers": config}))
    async with Bridge(ConfigStore(cli.config), log_dir=tmp_path / "logs") as bridge:
        model = await bridge.settled(30)
        assert model.require_server("web").status == "needs_login"
        ui = RecordingUI()
        await bridge.login("web", ui)
        model = await bridge.settled(30)
        web = model.server("web")
        assert web is not None and web.status == "connected"
        assert web.auth is not None and web.auth.logged_in
        assert [t.bare for t in web.tools] == ["whoami", "add", "revoke_access", "admin_report"]
        assert len(ui.urls) == 1 and "/authorize?" in ui.urls[0]
        assert model.require_server("other").status != "connected"
        await bridge.logout("web")
        model = await bridge.settled(30)
        assert model.require_server("web").status == "needs_login"
