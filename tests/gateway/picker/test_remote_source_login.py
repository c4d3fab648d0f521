"""A login and an import from a picker attached to the real gateway daemon
(``picker.remote_source``).

Both run in the picker's process (its terminal, its browser; the config file the daemon reads),
and the daemon follows: after a login it restarts the server with the tokens kept where its
session reads them; after an import it reloads and starts the servers added. The host attached
to the daemon hears each as ``tools/list_changed``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from agentty_tui.config.discover import HostFile
from agentty_tui.errors import OperationError
from agentty_tui.gateway.attachment import Attachment
from agentty_tui.gateway.picker.remote_source import RemoteSource
from agentty_tui.gateway.rendezvous import rendezvous
from agentty_tui.model import PluginModel
from tests.bridge.auth.conftest import (
    OAuthServer,
    _standin_registered,  # noqa: F401  (the stand-in browser's fixtures)
    standin_browser,  # noqa: F401
    token_files,
)
from tests.gateway.daemon.test_process import attached, daemon_gone, environment, text_of
from tests.gateway.hosts import Notices
from tests.gateway.picker.test_remote_source import until_model
from tests.helpers import free_port, stdio_entry
from tests.servers import plain_argv

pytestmark = pytest.mark.anyio

TIMEOUT = 60.0


class RecordingUI:
    """A picker's ``LoginUI`` that records what it was shown (the stand-in browser follows
    the URL)."""

    def __init__(self) -> None:
        self.urls: list[str] = []

    def show_url(self, url: str) -> None:
        self.urls.append(url)

    def tell(self, message: str) -> None:
        pass

    async def pasted_redirect(self) -> str | None:
        return None


@pytest.fixture
def oauth(tmp_path: Path) -> Iterator[OAuthServer]:
    """The real authorization and MCP server (``oauth_server.py``) on loopback."""
    server = OAuthServer(free_port(), tmp_path / "grants.txt")
    server.start()
    yield server
    server.stop()


@asynccontextmanager
async def picker_source(config: Path, runtime: Path, folder: Path) -> AsyncIterator[RemoteSource]:
    """The picker's source on ``config``, attached to the test's daemon (which must run)."""
    attachment = Attachment(
        str(folder), str(config), home=str(Path.home()), env=environment(runtime)
    )
    async with RemoteSource.attached(attachment, rendezvous({"XDG_RUNTIME_DIR": str(runtime)})) as (
        source
    ):
        assert source is not None
        yield source


def status_of(name: str) -> Callable[[PluginModel], str | None]:
    def status(model: PluginModel) -> str | None:
        server = model.server(name)
        return None if server is None else server.status

    return status


@pytest.mark.usefixtures("standin_browser")
async def test_a_login_from_the_attached_picker_is_kept_where_the_daemon_reads_it(
    oauth: OAuthServer,
    runtime: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The daemon keeps tokens under its own ``XDG_STATE_HOME``, not the picker's, and expands
    the entry's ``${WEB_PATH}`` from the host's environment, which the picker's lacks: the login
    runs in the picker to the URL the daemon's session uses, the tokens land in the daemon's
    folder, the daemon restarts the server and the host then lists its tools."""
    config = tmp_path / "mcp.json"
    entry = {"url": oauth.url.removesuffix("/mcp") + "${WEB_PATH}"}
    config.write_text(json.dumps({"mcpServers": {"web": entry}}))
    monkeypatch.delenv("WEB_PATH", raising=False)
    daemons_state, pickers_state = tmp_path / "daemon-state", tmp_path / "picker-state"
    monkeypatch.setenv("XDG_STATE_HOME", str(pickers_state))
    monkeypatch.setenv("AGENTTY_KEYRING", "0")
    monkeypatch.setenv("STANDIN_BROWSER_MARKER", str(tmp_path / "browser-runs.txt"))
    host_env = {"XDG_STATE_HOME": str(daemons_state), "AGENTTY_KEYRING": "0", "WEB_PATH": "/mcp"}
    notices = Notices()
    async with (
        attached(config, runtime, tmp_path / "host", notices, env=host_env) as host,
        picker_source(config, runtime, tmp_path / "picker") as source,
    ):
        await until_model(source, lambda m: status_of("web")(m) == "needs_login")
        assert not any(t.name.startswith("web__") for t in (await host.list_tools()).tools)

        ui = RecordingUI()
        await source.login("web", ui)
        model = await until_model(source, lambda m: status_of("web")(m) == "connected")
        assert len(ui.urls) == 1 and "/authorize?" in ui.urls[0]
        assert token_files(daemons_state) and not token_files(pickers_state)
        web = model.require_server("web")
        assert web.auth is not None and web.auth.logged_in
        await notices.until(1, timeout=TIMEOUT)
        listed = {tool.name for tool in (await host.list_tools()).tools}
        assert "web__whoami" in listed
        assert text_of(await host.call_tool("web__whoami", {}))  # the token's client id
    await daemon_gone(runtime)


async def test_a_login_to_a_command_server_is_refused_by_the_daemon_with_its_reason(
    write_config: Callable[..., Path], runtime: Path, tmp_path: Path
) -> None:
    config = write_config({"alpha": stdio_entry(plain_argv("--name", "alpha"))})
    async with (
        attached(config, runtime, tmp_path / "host"),
        picker_source(config, runtime, tmp_path / "picker") as source,
    ):
        with pytest.raises(OperationError, match="'alpha' is not a URL server"):
            await source.login("alpha", RecordingUI())
    await daemon_gone(runtime)


async def test_an_import_from_the_attached_picker_is_written_and_started_by_the_daemon(
    write_config: Callable[..., Path], runtime: Path, tmp_path: Path
) -> None:
    """The plan is made and written in the picker; the daemon reloads, starts the server once
    (the host's and the picker's process are one) and the host hears of its tools."""
    config = write_config({"alpha": stdio_entry(plain_argv("--name", "alpha"))})
    other = tmp_path / "cursor-mcp.json"
    other.write_text(
        json.dumps({"mcpServers": {"beta": stdio_entry(plain_argv("--name", "beta"))}})
    )
    notices = Notices()
    async with (
        attached(config, runtime, tmp_path / "host", notices) as host,
        picker_source(config, runtime, tmp_path / "picker") as source,
    ):
        await until_model(source, lambda m: status_of("alpha")(m) == "connected")
        assert source.import_target() == config
        prepared = await source.import_plan(HostFile("Cursor", other, "claude", 1))
        assert [server.name for server in prepared.plan.add] == ["beta"]
        result, report = await source.import_servers(prepared)
        assert result.added == ("beta",)
        assert "beta" in json.loads(config.read_text())["mcpServers"]
        model = await until_model(source, lambda m: status_of("beta")(m) == "connected")
        assert report.snapshot.server("beta") is not None
        await notices.until(1, timeout=TIMEOUT)
        pid = int(text_of(await host.call_tool("beta__pid", {})))
        assert model.require_server("beta").pid == pid
    await daemon_gone(runtime)
