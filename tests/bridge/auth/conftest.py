"""A real authorization + protected MCP server on loopback, and a stand-in browser."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
import webbrowser
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import free_port, run_cli, serving
from tests.servers import SERVERS_DIR, python_server_argv

STANDIN_BROWSER = SERVERS_DIR / "standin_browser.py"


@dataclass
class OAuthServer:
    """The ``oauth_server.py`` process: start it, restart it, read what it granted."""

    port: int
    events: Path
    extra: tuple[str, ...] = ()
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        """The protected MCP endpoint."""
        return f"http://127.0.0.1:{self.port}/mcp"

    def start(self, *extra: str) -> None:
        """Start (again) with fresh memory: every token it issued before is unknown now."""
        self.stop()
        argv = python_server_argv(
            "oauth_server.py", "--port", str(self.port), "--events", str(self.events)
        )
        self.process = subprocess.Popen([*argv, *self.extra, *extra], stderr=subprocess.DEVNULL)
        # No event says "listening" from another process: polling the port is the only way.
        for _ in range(1200):  # up to 60 s: the SDK's imports beside three other test workers
            if serving(self.port) or self.process.poll() is not None:
                break
            time.sleep(0.05)
        assert serving(self.port), "the OAuth test server did not start"

    def stop(self) -> None:
        """Stop the process, if it runs."""
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None

    def grants(self) -> list[str]:
        """``register`` / ``code`` / ``refresh``, one per grant, in order."""
        if not self.events.exists():
            return []
        return self.events.read_text().split()


@pytest.fixture
def oauth_server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[OAuthServer]:
    """The server with one-hour tokens. A test marked ``oauth_server(*OPTIONS)`` gets it started
    with those options instead, one marked ``oauth_server(started=False)`` starts it itself
    (each start costs the SDK's imports: a start the test replaces at once is waste)."""
    marker = request.node.get_closest_marker("oauth_server")
    server = OAuthServer(free_port(), tmp_path / "grants.txt")
    if marker is None or marker.kwargs.get("started", True):
        server.start(*(marker.args if marker is not None else ()))
    yield server
    server.stop()


class StandinBrowser(webbrowser.BaseBrowser):
    """What ``webbrowser.open`` runs in this process while a test arms it: ``standin_browser.py``
    as a child, reading its marker file and mode from the environment of that moment.

    ``$BROWSER`` cannot serve a login run in this process: ``webbrowser`` reads it once, at its
    first use in the process, so a later test's ``$BROWSER`` would never be seen. Registered once
    a process as the preferred browser; disarmed, it opens nothing and ``webbrowser`` goes on
    to the next browser, as before it was registered.
    """

    armed = False

    def open(self, url: str, new: int = 0, autoraise: bool = True) -> bool:
        """Run the stand-in on ``url`` and wait for it, as ``webbrowser`` waits for a command."""
        if not self.armed:
            return False
        child = subprocess.run([sys.executable, str(STANDIN_BROWSER), url], check=False)
        return child.returncode == 0


_STANDIN = StandinBrowser("standin")


@pytest.fixture(scope="session")
def _standin_registered() -> StandinBrowser:
    """The stand-in, first in ``webbrowser``'s order for the rest of this process."""
    webbrowser.register("agentty-standin", None, _STANDIN, preferred=True)
    return _STANDIN


@pytest.fixture
def standin_browser(_standin_registered: StandinBrowser) -> Iterator[StandinBrowser]:
    """The stand-in browser armed for one test's logins in this process."""
    _STANDIN.armed = True
    try:
        yield _STANDIN
    finally:
        _STANDIN.armed = False


@dataclass
class Cli:
    """``agentty-tui`` run against one config (in this process, or as a child process), with a
    stand-in browser."""

    config: Path
    marker: Path
    env: dict[str, str]
    outputs: list[str] = field(default_factory=list)

    def run(
        self, *args: str, process: bool = False, **env: str
    ) -> subprocess.CompletedProcess[str]:
        """Run one command in this process (``run_cli``), or with ``process`` as a child whose
        ``$BROWSER`` is the stand-in; its stdout and stderr are kept for the no-secret check."""
        argv = [*args, "--config", str(self.config)]
        if process:
            result = subprocess.run(
                [sys.executable, "-m", "agentty_tui", *argv],
                capture_output=True,
                text=True,
                timeout=90,
                env={**os.environ, **self.env, **env},
                check=False,
            )
        else:
            result = run_cli(*argv, env={**self.env, **env})
        self.outputs += [result.stdout, result.stderr]
        return result

    def list_json(self) -> dict[str, Any]:
        """``list --json``'s one server."""
        result = self.run("list", "--json")
        assert result.returncode == 0, result.stderr
        servers: list[dict[str, Any]] = json.loads(result.stdout)["servers"]
        return servers[0]

    def browser_runs(self) -> list[str]:
        """One line per time the stand-in browser was started."""
        return self.marker.read_text().splitlines() if self.marker.exists() else []


@pytest.fixture
def cli(tmp_path: Path, oauth_server: OAuthServer, standin_browser: StandinBrowser) -> Cli:
    """A config with the protected server as ``web``, and ``$BROWSER`` set to the stand-in."""
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"web": {"url": oauth_server.url}}}))
    # For a child process. webbrowser runs $BROWSER as one executable, so a tiny script runs
    # the Python stand-in.
    browser = tmp_path / "browser"
    browser.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{STANDIN_BROWSER}" "$@"\n')
    browser.chmod(browser.stat().st_mode | stat.S_IXUSR)
    marker = tmp_path / "browser-runs.txt"
    env = {
        "BROWSER": str(browser),
        "STANDIN_BROWSER_MARKER": str(marker),
        "AGENTTY_KEYRING": "0",
        "AGENTTY_LOGIN_TIMEOUT": "60",
    }
    return Cli(config, marker, env)


def token_files(state: Path) -> list[Path]:
    """The stored auth records under ``$XDG_STATE_HOME``."""
    folder = state / "agentty" / "auth"
    return sorted(folder.glob("*.json")) if folder.exists() else []
