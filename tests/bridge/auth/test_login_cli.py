"""The OAuth login end to end: ``agentty-tui list / login / call / logout`` against a real
authorization server and protected MCP server on loopback.

The commands run in this process (``run_cli``) but for one login, run as a child process with
``$BROWSER`` set, as a user runs it; the stored token is then read by a fresh command."""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path
from urllib.parse import quote

import anyio
import pytest

from tests.bridge.auth.conftest import Cli, OAuthServer, token_files
from tests.helpers import free_port


def _record(tmp_path: Path) -> dict[str, object]:
    files = token_files(tmp_path / "state")
    assert len(files) == 1
    record: dict[str, object] = json.loads(files[0].read_text())
    return record


def _login(cli: Cli) -> None:
    result = cli.run("login", "web")
    assert result.returncode == 0, result.stderr
    assert "logged in to 'web'" in result.stdout


def test_list_says_needs_login_and_opens_no_browser(cli: Cli, oauth_server: OAuthServer) -> None:
    web = cli.list_json()
    assert web["status"] == "needs_login"
    assert web["error"] == "needs login: run agentty-tui login web"
    assert web["auth"] == {"logged_in": False, "scopes": [], "expires_at": None}
    text = cli.run("list")
    assert "web  needs_login" in text.stdout
    assert "run: agentty-tui login web" in text.stdout
    assert "check the headers" not in text.stdout
    assert cli.browser_runs() == []  # listing never starts a login
    assert oauth_server.grants() == []  # nor registers a client


def test_login_with_dcr_then_call_in_a_fresh_process(
    cli: Cli, oauth_server: OAuthServer, tmp_path: Path
) -> None:
    result = cli.run("login", "web", process=True)  # $BROWSER, as a user's shell sets it
    assert result.returncode == 0, result.stderr
    # The whole URL is shown (for copying), with PKCE S256, state, resource and scope.
    url = next(line.strip() for line in result.stderr.splitlines() if "/authorize?" in line)
    assert url.startswith(f"http://127.0.0.1:{oauth_server.port}/authorize?")
    for part in ("code_challenge_method=S256", "state=", "resource=", "scope=mcp%3Atools"):
        assert part in url
    assert cli.browser_runs() == ["opened final 200"]
    assert oauth_server.grants() == ["register", "code"]
    called = cli.run("call", "web", "add", '{"a": 2, "b": 3}')  # a new command: stored token
    assert called.returncode == 0, called.stderr
    assert called.stdout.strip() == "5"
    web = cli.list_json()
    assert web["status"] == "connected"
    assert web["auth"]["logged_in"] is True
    assert web["auth"]["scopes"] == ["mcp:tools"]
    assert web["auth"]["expires_at"].endswith("+00:00")
    assert oauth_server.grants() == ["register", "code"]  # no second login
    assert len(cli.browser_runs()) == 1


def test_token_file_is_private_and_no_token_is_ever_shown(cli: Cli, tmp_path: Path) -> None:
    _login(cli)
    assert cli.run("call", "web", "add", '{"a": 1, "b": 1}').returncode == 0
    cli.list_json()
    (path,) = token_files(tmp_path / "state")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    record = _record(tmp_path)
    tokens = record["tokens"]
    assert isinstance(tokens, dict)
    secrets = [tokens["access_token"], tokens["refresh_token"]]
    logs = tmp_path / "state" / "agentty" / "logs"
    written = [p.read_text(errors="replace") for p in logs.rglob("*") if p.is_file()]
    assert written, "the server's log was expected to exist"
    for text in [*cli.outputs, *written]:
        for secret in secrets:
            assert secret not in text
    assert str(tmp_path / "mcp.json") and "at-" not in (tmp_path / "mcp.json").read_text()


def test_wrong_state_is_refused_and_the_login_waits_for_the_right_one(cli: Cli) -> None:
    result = cli.run("login", "web", STANDIN_BROWSER_MODE="forge")
    assert result.returncode == 0, result.stderr
    # The forged redirect got 400; the real one after it completed the login.
    assert cli.browser_runs() == ["opened forged 400 final 200"]
    assert cli.list_json()["status"] == "connected"


def test_callback_timeout_says_so(cli: Cli, tmp_path: Path) -> None:
    started = time.monotonic()
    result = cli.run("login", "web", STANDIN_BROWSER_MODE="ignore", AGENTTY_LOGIN_TIMEOUT="2")
    assert result.returncode == 1
    assert "no answer from the browser within 2 s: the login timed out" in result.stderr
    assert time.monotonic() - started < 60
    assert "Traceback" not in result.stderr
    assert cli.list_json()["status"] == "needs_login"


def test_logout_forgets_everything_and_list_needs_login_again(cli: Cli, tmp_path: Path) -> None:
    _login(cli)
    assert token_files(tmp_path / "state")
    result = cli.run("logout", "web")
    assert result.returncode == 0, result.stderr
    assert "logged out of 'web'" in result.stdout
    assert token_files(tmp_path / "state") == []
    assert cli.list_json()["status"] == "needs_login"
    assert cli.run("logout", "web").stdout.strip() == "'web' was not logged in"


def _until(moment: float) -> None:
    """Return once the wall clock is past ``moment`` (at most 30 s from now)."""

    async def wait() -> None:
        with anyio.fail_after(30):
            # Waiting on the clock itself: no event says that a time has passed.
            while time.time() <= moment:  # noqa: ASYNC110
                await anyio.sleep(0.2)

    anyio.run(wait)


@pytest.mark.oauth_server("--token-lifetime", "2")
def test_expired_token_is_refreshed_without_a_browser(
    cli: Cli, oauth_server: OAuthServer, tmp_path: Path
) -> None:
    _login(cli)
    expires_at = _record(tmp_path)["expires_at"]
    assert isinstance(expires_at, float)
    _until(expires_at + 0.5)  # the access token must really have expired
    runs = len(cli.browser_runs())
    called = cli.run("call", "web", "add", '{"a": 20, "b": 22}')
    assert called.returncode == 0, called.stderr
    assert called.stdout.strip() == "42"
    # Refreshed before the request went out: the server never saw the expired token.
    assert oauth_server.grants() == ["register", "code", "refresh"]
    assert len(cli.browser_runs()) == runs  # no browser for a refresh
    assert _record(tmp_path)["expires_at"] != expires_at  # the new token was stored


def test_access_token_refused_by_the_server_is_refreshed_on_401(
    cli: Cli, oauth_server: OAuthServer
) -> None:
    _login(cli)
    assert cli.run("call", "web", "revoke_access").returncode == 0
    called = cli.run("call", "web", "add", '{"a": 4, "b": 5}')
    assert called.returncode == 0, called.stderr
    assert called.stdout.strip() == "9"
    assert oauth_server.grants() == ["register", "code", "refresh"]
    assert len(cli.browser_runs()) == 1  # only the login's


def test_revoked_refresh_token_is_needs_login_not_a_crash(
    cli: Cli, oauth_server: OAuthServer
) -> None:
    _login(cli)
    oauth_server.start()  # fresh memory: the stored access and refresh tokens are unknown now
    web = cli.list_json()
    assert web["status"] == "needs_login"
    assert web["error"] == "needs login: run agentty-tui login web"
    called = cli.run("call", "web", "add", '{"a": 1, "b": 2}')
    assert called.returncode == 1
    assert "needs login: run agentty-tui login web" in called.stderr
    assert "Traceback" not in called.stderr


@pytest.mark.oauth_server("--pkce-methods", "plain")
def test_server_without_pkce_s256_is_refused(cli: Cli, oauth_server: OAuthServer) -> None:
    result = cli.run("login", "web")
    assert result.returncode == 1
    assert "does not advertise PKCE S256" in result.stderr
    assert cli.browser_runs() == []  # refused before any browser was opened


@pytest.mark.oauth_server("--invalid-metadata")
def test_metadata_that_does_not_validate_is_named_not_taken_for_a_missing_s256(
    cli: Cli, oauth_server: OAuthServer
) -> None:
    # The metadata lists S256, but its token_endpoint is not a URL: the SDK passes it over, and
    # the refusal must say so rather than blame PKCE.
    result = cli.run("login", "web")
    assert result.returncode == 1
    assert "does not advertise PKCE S256" not in result.stderr
    where = f"http://127.0.0.1:{oauth_server.port}/.well-known/oauth-authorization-server"
    assert f"metadata at {where} does not validate: token_endpoint: " in result.stderr
    assert cli.browser_runs() == []


def test_login_of_a_stdio_server_is_refused(cli: Cli, tmp_path: Path) -> None:
    cli.config.write_text(json.dumps({"mcpServers": {"local": {"command": "true"}}}))
    result = cli.run("login", "local")
    assert result.returncode == 1
    assert "not a URL server" in result.stderr
    assert cli.run("login", "nope").returncode == 1
    assert os.environ.get("XDG_STATE_HOME")


@pytest.mark.oauth_server(started=False)
def test_pre_registered_client_from_the_config(
    cli: Cli, oauth_server: OAuthServer, tmp_path: Path
) -> None:
    port = free_port()
    redirect = f"http://127.0.0.1:{port}/callback"
    oauth_server.start(
        "--client-id", "fixed-client", "--client-secret", "s3cret-value", "--redirect-uri", redirect
    )
    oauth = {"clientId": "fixed-client", "clientSecret": "${WEB_SECRET}", "callbackPort": port}
    entry = {"url": oauth_server.url, "oauth": oauth}
    cli.config.write_text(json.dumps({"mcpServers": {"web": entry}}))
    result = cli.run("login", "web", WEB_SECRET="s3cret-value")
    assert result.returncode == 0, result.stderr
    assert f"redirect_uri={quote(redirect, safe='')}" in result.stderr
    assert oauth_server.grants() == ["code"]  # no dynamic registration
    called = cli.run("call", "web", "whoami", WEB_SECRET="s3cret-value")
    assert called.returncode == 0, called.stderr
    assert called.stdout.strip() == "fixed-client"
    for text in cli.outputs:
        assert "s3cret-value" not in text


def test_a_failed_login_never_shows_the_urls_password_or_token(
    cli: Cli, oauth_server: OAuthServer, tmp_path: Path
) -> None:
    # The credentials written in the URL make the server's resource differ from the URL, so the
    # SDK refuses the login with a text that quotes the URL as expanded; a second server gets
    # them from ${VAR}s. Then the server is gone: the login fails to connect.
    netloc = f"127.0.0.1:{oauth_server.port}"
    written = f"http://user:pw-secret@{netloc}/mcp?token=tok-secret"
    referenced = f"http://user:${{WEB_PW}}@{netloc}/mcp?access_token=${{WEB_TOKEN}}"
    servers = {"web": {"url": written}, "env": {"url": referenced}}
    cli.config.write_text(json.dumps({"mcpServers": servers}))
    cli.env.update(WEB_PW="pw-from-env", WEB_TOKEN="tok-from-env")
    refused = cli.run("login", "web")
    assert refused.returncode == 1
    assert f"login to http://••••:••••••••@{netloc}/mcp?token=•••••••• failed" in refused.stderr
    assert cli.run("login", "env").returncode == 1
    oauth_server.stop()
    unreachable = cli.run("login", "web")
    assert unreachable.returncode == 1
    assert "failed: All connection attempts failed" in unreachable.stderr
    assert cli.run("list").returncode == 0
    logs = tmp_path / "state" / "agentty" / "logs"
    # The SDK logs the refusal with its traceback: the app's log must hold it, masked.
    assert "does not match expected http://••••:" in (logs / "agentty.log").read_text()
    texts = [*cli.outputs, *(p.read_text(errors="replace") for p in logs.rglob("*.log"))]
    for text in texts:
        for secret in ("pw-secret", "tok-secret", "pw-from-env", "tok-from-env"):
            assert secret not in text
