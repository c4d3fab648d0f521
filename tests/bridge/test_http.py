"""Servers reached by URL: Streamable HTTP and legacy SSE against a real loopback server."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import anyio
import pytest

from agentty_tui.bridge import Bridge
from agentty_tui.config import ConfigStore
from tests.conftest import WriteConfig
from tests.helpers import free_port, reveal_and_withdraw_scene, tool_flags, url_entry
from tests.servers import GATED_BASE_TOOLS, PLAIN_TOOLS

pytestmark = pytest.mark.anyio

SETTLE = 20.0


async def test_url_server_connects_lists_toggles_and_calls(
    http_server: tuple[str, str], write_config: WriteConfig, log_dir: Path
) -> None:
    transport, url = http_server
    path = write_config({"web": url_entry(transport, url, headers={"X-Test": "1"})})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        model = await bridge.settled(20)
        web = model.server("web")
        assert web is not None and web.status == "connected", web
        assert [t.bare for t in web.tools] == list(PLAIN_TOOLS)
        model = await bridge.tool_set_enabled("web", "sleep", False)
        assert model.server("web").tool("sleep").enabled is False  # type: ignore[union-attr]
        assert model.require_server("web").status == "connected"
        result = await bridge.call_tool("web", "add", {"a": 1, "b": 2})
        assert result.content[0].text == "3"  # type: ignore[union-attr]


async def test_url_server_list_changed_reveals_and_withdrawstool_flags(
    gated_http_server: tuple[str, str], write_config: WriteConfig, log_dir: Path
) -> None:
    transport, url = gated_http_server
    path = write_config({"godot": url_entry(transport, url)})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        model = await bridge.settled(SETTLE)
        state = model.server("godot")
        assert state is not None and state.status == "connected", state
        # A 2.x server over either transport agrees on the era that needs a listen stream.
        assert state.info is not None and state.info.protocol_version == "2026-07-28"
        assert list(tool_flags(model, "godot")) == list(GATED_BASE_TOOLS)

        await reveal_and_withdraw_scene(bridge, "godot", GATED_BASE_TOOLS)

        # A URL server has no PID to compare; the live session's re-list count stands in for
        # its identity (a replacement session would start again from 0).
        relists = bridge.session_relists("godot")
        assert relists >= 2, relists
        model = await bridge.tool_set_enabled("godot", "burst", False)
        assert tool_flags(model, "godot")["burst"] is False
        assert model.require_server("godot").status == "connected"
        written = ConfigStore(path).load().server("godot")  # what the file now says
        assert written is not None and written.tools.exclude == ("burst",)
        assert bridge.session_relists("godot") >= relists


async def test_refused_port_fails_with_a_reason(write_config: WriteConfig, log_dir: Path) -> None:
    path = write_config({"web": {"url": f"http://127.0.0.1:{free_port()}/mcp"}})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        model = await bridge.settled(20)
    web = model.server("web")
    assert web is not None and web.status == "failed"
    assert f"cannot connect to {web.spec.url}" in (web.error or "")  # type: ignore[union-attr]


class _Refusing(BaseHTTPRequestHandler):
    """Answers every request with the status in ``server.status`` and no MCP at all."""

    def do_POST(self) -> None:
        status: int = self.server.status  # type: ignore[attr-defined]
        challenge: str | None = getattr(self.server, "challenge", None)
        body = b"go away"
        self.send_response(status)
        if challenge is not None:
            self.send_header("WWW-Authenticate", challenge)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST
    do_DELETE = do_POST

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base names it
        """Quiet: the test reads the bridge's words, not the server's log."""


@pytest.fixture
def refusing_server() -> Iterator[ThreadingHTTPServer]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Refusing)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.parametrize(
    ("status", "words"),
    [(500, "answered HTTP 500"), (401, "answered HTTP 401 (check the headers")],
)
async def test_http_error_status_is_named(
    refusing_server: ThreadingHTTPServer,
    write_config: WriteConfig,
    log_dir: Path,
    status: int,
    words: str,
) -> None:
    refusing_server.status = status  # type: ignore[attr-defined]
    url = f"http://127.0.0.1:{refusing_server.server_port}/mcp"
    path = write_config(
        {"web": {"url": url, "headers": {"Authorization": "Bearer planted-token-123"}}}
    )
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        model = await bridge.settled(20)
    web = model.server("web")
    assert web is not None and web.status == "failed"
    assert f"{url} {words}" in (web.error or "")
    assert "planted-token-123" not in (web.error or "")  # header values never appear


async def test_url_credentials_never_reach_the_error_or_the_log(
    refusing_server: ThreadingHTTPServer, write_config: WriteConfig, log_dir: Path
) -> None:
    refusing_server.status = 401  # type: ignore[attr-defined]
    port = refusing_server.server_port
    path = write_config(
        {
            "web": {"url": f"http://user:pw123@127.0.0.1:{port}/mcp?token=tok456&x=1"},
            "legacy": {"url": f"http://127.0.0.1:{port}/sse?api_key=key789", "type": "sse"},
        }
    )
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        model = await bridge.settled(20)
    web, legacy = model.servers
    assert web.error == (
        f"http://••••:•••••@127.0.0.1:{port}/mcp?token=••••••&x=1 answered HTTP 401 "
        "(check the headers: is a token missing or expired?)"
    )
    assert (legacy.error or "").startswith(
        f"http://127.0.0.1:{port}/sse?api_key=•••••• answered HTTP 401"
    )
    logs = [await log.read_text() async for log in anyio.Path(log_dir).rglob("*.log")]
    assert any("answered HTTP 401" in log for log in logs)
    for text in [web.error, legacy.error, *logs]:
        for secret in ("pw123", "tok456", "key789"):
            assert secret not in (text or "")


async def test_bearer_401_needs_login_not_headers(
    refusing_server: ThreadingHTTPServer, write_config: WriteConfig, log_dir: Path
) -> None:
    """A 401 that asks for a Bearer token is a login to run, never "check the headers"."""
    refusing_server.status = 401  # type: ignore[attr-defined]
    refusing_server.challenge = 'Bearer error="invalid_token"'  # type: ignore[attr-defined]
    url = f"http://127.0.0.1:{refusing_server.server_port}/mcp"
    path = write_config({"web": {"url": url}})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        model = await bridge.settled(20)
    web = model.server("web")
    assert web is not None and web.status == "needs_login"
    assert web.error == "needs login: run agentty-tui login web"
    assert "check the headers" not in (web.error or "")


def test_bearer_401_with_a_configured_token_never_says_check_the_headers() -> None:
    from agentty_tui.bridge.failures import describe_failure
    from agentty_tui.model import HttpSpec, ServerConfig

    with_header = ServerConfig(
        name="web",
        spec=HttpSpec(url="http://h/mcp", headers={"Authorization": "Bearer planted-123"}),
    )
    text = describe_failure(RuntimeError(), with_header, http_status=401, bearer_challenge=True)
    assert text == "http://h/mcp answered HTTP 401: it refused the configured bearer token"
    bare = ServerConfig(name="web", spec=HttpSpec(url="http://h/mcp"))
    text = describe_failure(RuntimeError(), bare, http_status=401, bearer_challenge=True)
    assert text == "http://h/mcp answered HTTP 401: needs login: run agentty-tui login web"
    plain = describe_failure(RuntimeError(), bare, http_status=401)
    assert "check the headers" in plain  # a 401 that does not ask for Bearer
