"""Step-up on ``403 insufficient_scope``: ``call`` completes it in the browser (a bounded
number of times); a bridge session, with nobody to open a browser, turns ``needs_login`` with
the reason, and the next login asks for the larger scope."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentty_tui.bridge import Bridge
from agentty_tui.config import ConfigStore
from agentty_tui.errors import OperationError
from tests.bridge.auth.conftest import Cli, OAuthServer
from tests.bridge.auth.test_bridge_login import RecordingUI


def _login(cli: Cli) -> None:
    result = cli.run("login", "web")
    assert result.returncode == 0, result.stderr


def test_call_steps_up_through_the_browser_once(cli: Cli, oauth_server: OAuthServer) -> None:
    _login(cli)
    called = cli.run("call", "web", "admin_report")
    assert called.returncode == 0, called.stderr
    assert called.stdout.strip() == "scopes: mcp:admin mcp:tools"
    assert "the server asks for more scope" in called.stderr
    # The step-up's URL asks for both scopes, on the redirect port the client registered.
    url = next(line.strip() for line in called.stderr.splitlines() if "/authorize?" in line)
    assert "scope=mcp%3Atools+mcp%3Aadmin" in url
    assert oauth_server.grants() == ["register", "code", "step-up", "code"]
    assert len(cli.browser_runs()) == 2
    again = cli.run("call", "web", "admin_report")  # a new command: the larger token is kept
    assert again.returncode == 0, again.stderr
    assert oauth_server.grants() == ["register", "code", "step-up", "code"]
    assert len(cli.browser_runs()) == 2


@pytest.mark.oauth_server("--withhold-admin")
def test_step_up_that_never_succeeds_gives_up_after_the_limit(
    cli: Cli, oauth_server: OAuthServer
) -> None:
    _login(cli)
    called = cli.run("call", "web", "admin_report")
    assert called.returncode == 1
    assert "after 2 logins for it; giving up" in called.stderr
    assert "Traceback" not in called.stderr
    assert len(cli.browser_runs()) == 1 + 2  # the login, then two step-ups, no more
    assert oauth_server.grants().count("step-up") == 3


@pytest.mark.oauth_server("--admin-scope-never")
def test_refusal_for_a_scope_already_held_is_not_retried(
    cli: Cli, oauth_server: OAuthServer
) -> None:
    _login(cli)
    called = cli.run("call", "web", "admin_report")
    assert called.returncode == 1
    assert "which the token already holds" in called.stderr
    assert len(cli.browser_runs()) == 2  # the login and one step-up
    assert oauth_server.grants().count("step-up") == 2


@pytest.fixture
def logged_in(cli: Cli) -> Cli:
    """``cli`` after ``agentty-tui login web`` (a command runs its own event loop: before the
    test's)."""
    _login(cli)
    return cli


@pytest.mark.anyio
async def test_bridge_session_turns_needs_login_and_the_login_asks_for_more(
    logged_in: Cli, oauth_server: OAuthServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli = logged_in
    for key, value in cli.env.items():
        monkeypatch.setenv(key, value)
    cli.config.write_text(json.dumps({"mcpServers": {"web": {"url": oauth_server.url}}}))
    async with Bridge(ConfigStore(cli.config), log_dir=tmp_path / "logs") as bridge:
        model = await bridge.settled(30)
        assert model.server("web").status == "connected"  # type: ignore[union-attr]
        with pytest.raises(OperationError) as caught:
            await bridge.call_tool("web", "admin_report")
        reason = "needs login (the server asks for more scope: mcp:admin): run agentty-tui"
        assert reason in str(caught.value)
        model = await bridge.settled(30)
        web = model.server("web")
        assert web is not None and web.status == "needs_login"
        assert web.error is not None and reason in web.error
        assert len(cli.browser_runs()) == 1  # no browser from the bridge's own session
        ui = RecordingUI()
        await bridge.login("web", ui)
        assert "scope=mcp%3Atools+mcp%3Aadmin" in ui.urls[0]
        await bridge.settled(30)
        result = await bridge.call_tool("web", "admin_report")
        assert not result.is_error
        assert len(cli.browser_runs()) == 2
