"""The picker's ``L`` on a project's URL server that waits for trust: an error saying so, and not
one request to the server (the real ``oauth_server.py`` on loopback records every request)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import anyio
import pytest
from textual.pilot import Pilot

from agentty_tui.bridge import Bridge
from agentty_tui.config.workspace import open_workspace
from agentty_tui.ui.app import PickerApp
from tests.bridge.auth.conftest import OAuthServer
from tests.fake_home import FakeHome, small_fake_home
from tests.helpers import free_port

pytestmark = pytest.mark.anyio

TIMEOUT = 30.0


@pytest.fixture
def server(tmp_path: Path) -> Iterator[OAuthServer]:
    found = OAuthServer(
        free_port(), tmp_path / "grants.txt", extra=("--requests", str(tmp_path / "requests.txt"))
    )
    found.start()
    yield found
    found.stop()


@pytest.fixture
def fake(tmp_path: Path, server: OAuthServer) -> FakeHome:
    fake = small_fake_home(tmp_path / "fake")
    entry = {"url": server.url, "headers": {"X-Api-Key": "${WEB_KEY}"}}
    fake.files["project-mcp"].write_text(json.dumps({"mcpServers": {"web": entry}}))
    return fake


async def until(pilot: Pilot[None], predicate: Callable[[], bool]) -> None:
    with anyio.fail_after(TIMEOUT):
        while not predicate():
            await pilot.pause()


async def test_l_on_an_untrusted_project_url_server_sends_nothing(
    fake: FakeHome, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Everything a login needs is there: held back, it is held back by the trust alone.
    monkeypatch.setenv("WEB_KEY", "key-that-must-not-leave")
    monkeypatch.setenv("XDG_STATE_HOME", fake.env["XDG_STATE_HOME"])
    monkeypatch.setenv("AGENTTY_KEYRING", "0")
    monkeypatch.setenv("AGENTTY_LOGIN_TIMEOUT", "5")
    monkeypatch.setenv("BROWSER", "true")
    workspace = open_workspace(fake.cwd, home=fake.home, env=fake.env)
    async with Bridge(workspace, log_dir=tmp_path / "logs") as bridge:
        app = PickerApp(bridge)
        async with app.run_test(size=(120, 30)) as pilot:
            await until(pilot, lambda: app.picker.select_key(("server", "web")))
            await pilot.press("L")
            await until(pilot, lambda: any(n.severity == "error" for n in app._notifications))
            notes = [(n.title, n.message) for n in app._notifications]
            assert notes == [
                (
                    "Login failed",
                    "server 'web' cannot log in before it is trusted: it waits for trust "
                    "(agentty-tui trust web, or --trust once)",
                )
            ]
    assert not (tmp_path / "requests.txt").exists()
