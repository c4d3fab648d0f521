"""A project's URL server that waits for trust is never reached: not by ``login``, ``call`` or
``list`` on the command line, nor by the bridge's login (the picker's ``L``) or restart.

The server is the real ``oauth_server.py`` on loopback, with ``--requests``: every HTTP request
that arrives is a line in a file, before it is served. The project file gives it an expanded
header (``X-Api-Key: ${WEB_KEY}``), which a login would send with its first request.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from agentty_tui.bridge import Bridge
from agentty_tui.config.workspace import open_workspace
from agentty_tui.errors import OperationError
from tests.bridge.auth.conftest import OAuthServer
from tests.fake_home import FakeHome, small_fake_home
from tests.helpers import free_port, run_cli

TIMEOUT = 30.0

WAITS = "it waits for trust (agentty-tui trust web, or --trust once)"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[OAuthServer]:
    """The OAuth server, recording every request to ``tmp_path / "requests.txt"``."""
    found = OAuthServer(
        free_port(), tmp_path / "grants.txt", extra=("--requests", str(tmp_path / "requests.txt"))
    )
    found.start()
    yield found
    found.stop()


def requests(tmp_path: Path) -> list[str]:
    """Every request the server received, one line each."""
    path = tmp_path / "requests.txt"
    return path.read_text().splitlines() if path.exists() else []


@pytest.fixture
def fake(tmp_path: Path, server: OAuthServer) -> FakeHome:
    """A project whose ``.mcp.json`` holds ``web``, the OAuth server, with an expanded header."""
    fake = small_fake_home(tmp_path / "fake")
    entry = {"url": server.url, "headers": {"X-Api-Key": "${WEB_KEY}"}}
    fake.files["project-mcp"].write_text(json.dumps({"mcpServers": {"web": entry}}))
    return fake


def run(fake: FakeHome, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``agentty-tui ARGS`` in the fake project (in this process); the stand-in browser (the
    ``standin_browser`` fixture) follows the authorization redirect, so a login that is let
    through completes."""
    env = {
        **fake.process_env(),
        "WEB_KEY": "key-that-must-not-leave",
        "STANDIN_BROWSER_MARKER": str(tmp_path / "browser-runs.txt"),
        "AGENTTY_KEYRING": "0",
        "AGENTTY_LOGIN_TIMEOUT": "60",
    }
    return run_cli(*args, env=env, whole_env=True, cwd=fake.cwd)


@pytest.mark.usefixtures("standin_browser")
def test_no_command_reaches_an_untrusted_project_url_server(fake: FakeHome, tmp_path: Path) -> None:
    login = run(fake, tmp_path, "login", "web")
    assert login.returncode == 1
    assert login.stderr.strip() == (
        f"agentty-tui: server 'web' cannot log in before it is trusted: {WAITS}"
    )
    assert not (tmp_path / "browser-runs.txt").exists()
    called = run(fake, tmp_path, "call", "web", "add", '{"a": 1, "b": 2}')
    assert called.returncode == 1
    assert f"server 'web' was not started: {WAITS}" in called.stderr
    listed = run(fake, tmp_path, "list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout)["servers"][0]["status"] == "untrusted"
    assert requests(tmp_path) == []  # not one request, not one header
    # Trusted, the same login goes through: the recorder sees what was held back.
    assert run(fake, tmp_path, "trust", "web").returncode == 0
    login = run(fake, tmp_path, "login", "web")
    assert login.returncode == 0, login.stderr
    assert any("x-api-key" in line for line in requests(tmp_path))


@pytest.mark.usefixtures("standin_browser")
def test_trust_for_one_run_lets_the_login_through(fake: FakeHome, tmp_path: Path) -> None:
    login = run(fake, tmp_path, "login", "web", "--trust")
    assert login.returncode == 0, login.stderr
    assert requests(tmp_path)


class NoBrowser:
    """A ``LoginUI`` that records what it was asked to show."""

    def __init__(self) -> None:
        self.shown: list[str] = []

    def show_url(self, url: str) -> None:
        self.shown.append(url)

    def tell(self, message: str) -> None:
        self.shown.append(message)

    async def pasted_redirect(self) -> str | None:
        return None


@pytest.mark.anyio
async def test_the_bridge_neither_logs_in_to_nor_restarts_a_server_that_waits(
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
        with anyio.fail_after(TIMEOUT):
            model = await bridge.settled()
        web = model.server("web")
        assert web is not None and web.status == "untrusted"
        ui = NoBrowser()
        with anyio.fail_after(TIMEOUT), pytest.raises(OperationError) as login:
            await bridge.login("web", ui)
        assert str(login.value) == f"server 'web' cannot log in before it is trusted: {WAITS}"
        with anyio.fail_after(TIMEOUT), pytest.raises(OperationError) as restart:
            await bridge.restart("web")
        assert str(restart.value) == f"server 'web' is not started: {WAITS}"
        assert ui.shown == []
    assert requests(tmp_path) == []
