"""``agentty-tui serve --http`` as a user runs it: a real process, real servers under it, the
mcp SDK's client as the hosts (both protocol eras) over Streamable HTTP.

The gateway says its port on stdout (``--port 0``: a free one); the token is read from the
file it names. Toggles come from ``agentty-tui disable`` / ``enable`` run as processes of their
own on the same config file.
"""

from __future__ import annotations

import functools
import os
import re
import signal
import socket
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import anyio
import anyio.abc
import httpx2
import mcp_types as types
import pytest
from anyio.streams.buffered import BufferedByteReceiveStream
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from agentty_tui.bridge import Bridge
from agentty_tui.config.workspace import Workspace
from agentty_tui.errors import AgenttyError
from agentty_tui.gateway.http import endpoint
from agentty_tui.gateway.http.endpoint import HttpGateway, http_gateway
from agentty_tui.gateway.http.kept_sessions import KeptSessions
from agentty_tui.gateway.http.loopback import listen_socket
from tests.conftest import WriteConfig
from tests.gateway.hosts import MODES, Notices, cancel_a_waiting_call, listening
from tests.gateway.stdio.test_serve import environment, text_of, toggle
from tests.helpers import process_alive, stdio_entry
from tests.servers import asking_argv, offers_argv, plain_argv

pytestmark = pytest.mark.anyio

ANNOUNCED = re.compile(rb"agentty gateway: http://127\.0\.0\.1:(\d+)/mcp\n")


@dataclass
class Gateway:
    """A running ``serve --http``."""

    process: anyio.abc.Process
    port: int
    token: str
    token_file: Path
    stderr: bytes = b""
    """What it wrote to stderr (once it ended)."""

    @property
    def url(self) -> str:
        """Where hosts connect."""
        return f"http://127.0.0.1:{self.port}/mcp"


def serve_http_argv(config: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "agentty_tui",
        "serve",
        "--no-daemon",
        "--http",
        "--config",
        str(config),
        *extra,
    ]


@pytest.fixture
def config(write_config: WriteConfig) -> Path:
    return write_config({"alpha": stdio_entry(plain_argv("--name", "alpha"))})


@asynccontextmanager
async def gateway(config: Path, *extra: str) -> AsyncIterator[Gateway]:
    """``serve --http --port 0`` until the block ends (then SIGTERM, and it must have ended)."""
    async with await anyio.open_process(
        serve_http_argv(config, "--port", "0", *extra), env=environment()
    ) as process:
        assert process.stdout is not None
        reader = BufferedByteReceiveStream(process.stdout)
        with anyio.fail_after(20):
            first = await reader.receive_until(b"\n", 1000) + b"\n"
            second = (await reader.receive_until(b"\n", 1000)).decode()
        found = ANNOUNCED.fullmatch(first)
        assert found is not None, first
        token_file = Path(second.removeprefix("bearer token in "))
        token = (await anyio.Path(token_file).read_text()).strip()
        served = Gateway(process, int(found.group(1)), token, token_file)
        try:
            yield served
        finally:
            if process.returncode is None:
                process.send_signal(signal.SIGTERM)
            with anyio.fail_after(20):
                await process.wait()
            assert process.stderr is not None
            with anyio.fail_after(5):
                served.stderr = b"".join([chunk async for chunk in process.stderr])


@asynccontextmanager
async def http_host(
    served: Gateway, mode: str, notices: Notices | None = None
) -> AsyncIterator[Client]:
    """One host: the SDK's client over HTTP with the gateway's token."""
    notices = notices or Notices()
    async with AsyncExitStack() as stack:
        # The SDK's own timeouts for its HTTP client: httpx2's default 5 s read timeout would
        # end a quiet GET or listen stream (the server pings every 15 s), and with it the
        # host's list changes.
        http = await stack.enter_async_context(
            httpx2.AsyncClient(
                headers={"Authorization": f"Bearer {served.token}"},
                timeout=httpx2.Timeout(30, read=300),
            )
        )
        transport = streamable_http_client(served.url, http_client=http)
        client = Client(transport, mode=mode, message_handler=notices.handler, cache=None)
        await stack.enter_async_context(client)
        await stack.enter_async_context(listening(client, notices))
        yield client


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test-host", "version": "1"},
    },
}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


async def post(served: Gateway, headers: dict[str, str], url: str | None = None) -> httpx2.Response:
    """An ``initialize`` POST with ``headers`` (and the MCP accept headers)."""
    async with httpx2.AsyncClient() as http:
        return await http.post(url or served.url, json=INITIALIZE, headers={**ACCEPT, **headers})


@pytest.mark.parametrize("mode", MODES)
async def test_a_host_lists_and_calls_over_http(mode: str, config: Path) -> None:
    async with gateway(config) as served, http_host(served, mode) as client:
        assert client.protocol_version == ("2026-07-28" if mode == "auto" else "2025-11-25")
        listed = await client.list_tools()
        assert [tool.name for tool in listed.tools] == [
            "alpha__echo",
            "alpha__add",
            "alpha__pid",
            "alpha__sleep",
        ]
        echoed = await client.call_tool("alpha__echo", {"text": "hi"})
        assert not echoed.is_error and text_of(echoed) == "hi"
        added = await client.call_tool("alpha__add", {"a": 2, "b": 3})
        assert added.structured_content == {"result": 5}
        unknown = await client.call_tool("alpha__nothing", {})
        assert unknown.is_error and "no tool named alpha__nothing" in text_of(unknown)
    assert served.stderr == b"agentty-tui: stopped by SIGTERM\n"  # nothing else (uvicorn's)


@pytest.mark.parametrize("mode", MODES)
async def test_a_toggle_reaches_every_host_once_each_way(mode: str, config: Path) -> None:
    """Two hosts at once (two sessions in the 2025 era, two listen streams in 2026's)."""
    first, second = Notices(), Notices()
    async with (
        gateway(config) as served,
        http_host(served, mode, first) as one,
        http_host(served, mode, second) as other,
    ):
        for client in (one, other):
            assert "alpha__add" in {tool.name for tool in (await client.list_tools()).tools}
        await toggle("disable", config, "alpha", "add")
        await first.until(1)
        await second.until(1)
        for client in (one, other):
            assert "alpha__add" not in {tool.name for tool in (await client.list_tools()).tools}
        refused = await one.call_tool("alpha__add", {"a": 1, "b": 1})
        assert refused.is_error and "agentty-tui enable alpha add" in text_of(refused)
        await toggle("enable", config, "alpha", "add")
        await first.until(2)
        await second.until(2)
        added = await other.call_tool("alpha__add", {"a": 1, "b": 1})
        assert added.structured_content == {"result": 2}
        assert (first.count, second.count) == (2, 2)


@pytest.mark.parametrize("mode", MODES)
async def test_a_host_cancelling_its_call_cancels_the_servers_request_over_http(
    mode: str, write_config: WriteConfig, tmp_path: Path
) -> None:
    """A 2025 session's ``notifications/cancelled`` (a POST of its own), a 2026-07-28
    request's closed response stream (that era's cancellation over HTTP): either way the
    server under the gateway hears ``notifications/cancelled``, whichever era it speaks."""
    config = write_config(
        {"old": stdio_entry(asking_argv("--legacy")), "ask": stdio_entry(asking_argv())}
    )
    async with gateway(config) as served, http_host(served, mode) as client:
        for server in ("old", "ask"):
            await cancel_a_waiting_call(client, server, tmp_path / f"{server}-cancelled.txt")


@pytest.mark.parametrize("mode", MODES)
async def test_resources_and_prompts_pass_through_over_http(
    mode: str, write_config: WriteConfig
) -> None:
    config = write_config({"py": stdio_entry(offers_argv())})
    async with gateway(config) as served, http_host(served, mode) as client:
        listed = await client.list_resources()
        uris = [resource.uri for resource in listed.resources]
        assert uris == ["agentty://py/memo://notes/first", "agentty://py/memo://notes/second"]
        read = await client.read_resource(uris[0])
        first = read.contents[0]
        assert isinstance(first, types.TextResourceContents) and first.text
        prompts = await client.list_prompts()
        assert prompts.prompts and all(p.name.startswith("py__") for p in prompts.prompts)


async def test_requests_without_the_token_or_from_a_foreign_page_are_refused(
    config: Path,
) -> None:
    async with gateway(config) as served:
        bearer = {"Authorization": f"Bearer {served.token}"}
        missing = await post(served, {})
        assert missing.status_code == 401
        assert missing.headers["www-authenticate"].startswith("Bearer")
        assert (await post(served, {"Authorization": "Bearer nope"})).status_code == 401
        assert (await post(served, {"Authorization": served.token})).status_code == 401
        # A page elsewhere, even one that has the token, and a name rebound to 127.0.0.1.
        foreign = await post(served, {**bearer, "Origin": "https://evil.example"})
        assert foreign.status_code == 403
        assert (await post(served, {**bearer, "Origin": "null"})).status_code == 403
        rebound = await post(served, {**bearer, "Host": f"evil.example:{served.port}"})
        assert rebound.status_code == 403
        elsewhere = f"http://127.0.0.1:{served.port}/other"
        assert (await post(served, bearer, elsewhere)).status_code == 404
        # The same request, from a page of localhost and with the token, opens a session.
        local = await post(served, {**bearer, "Origin": "http://localhost:3000"})
        assert local.status_code == 200 and local.headers["mcp-session-id"]
        # And the SDK's client without the token gets nowhere.
        refused = False
        try:
            async with Client(served.url, mode="legacy", cache=None) as client:
                await client.list_tools()
        except* MCPError:
            refused = True
        assert refused


def non_loopback_addresses() -> list[str]:
    """This machine's IPv4 addresses that are not loopback (none on a machine without any)."""
    found: set[str] = set()
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.add(str(info[4][0]))
    except OSError:
        pass
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # no packet is sent: this only picks a route
            found.add(probe.getsockname()[0])
        except OSError:
            pass
    return sorted(address for address in found if not address.startswith("127."))


async def test_it_listens_on_127_0_0_1_and_nowhere_else(config: Path) -> None:
    with pytest.raises(AgenttyError, match=r"127\.0\.0\.1 only, not on 0\.0\.0\.0"):
        listen_socket(0, "0.0.0.0")
    # Said to be TCP, so that asyncio sets TCP_NODELAY on each connection (without it a
    # response waited 40 ms for the host's delayed ACK: bench/bench_gateway_http.py).
    with listen_socket(0) as listener:
        assert listener.proto == socket.IPPROTO_TCP
    async with gateway(config) as served:
        for address in ["127.0.0.2", *non_loopback_addresses()]:
            with pytest.raises(ConnectionRefusedError):
                socket.create_connection((address, served.port), timeout=5).close()
        socket.create_connection(("127.0.0.1", served.port), timeout=5).close()


async def test_a_taken_port_is_said_and_no_server_starts(config: Path, tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = await anyio.run_process(
            [*serve_http_argv(config), "--port", str(port)], env=environment(), check=False
        )
    assert done.returncode == 1
    assert done.stderr.decode() == (
        f"agentty-tui: port {port} on 127.0.0.1 is taken by another program: choose another "
        "with --port N (--port 0 takes a free one)\n"
    )
    assert done.stdout == b""


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
async def test_a_signal_ends_serve_and_its_servers_with_hosts_attached(
    stop: signal.Signals, config: Path
) -> None:
    """Hosts of both eras hold their streams open (the 2025 GET stream, the 2026 listen
    stream): the stop does not wait for them, and no server outlives it."""
    async with (
        gateway(config) as served,
        http_host(served, "legacy") as old,
        http_host(served, "auto") as new,
    ):
        pid = int(text_of(await old.call_tool("alpha__pid", {})))
        assert int(text_of(await new.call_tool("alpha__pid", {}))) == pid  # one process
        started = anyio.current_time()
        served.process.send_signal(stop)
        with anyio.fail_after(15):
            await served.process.wait()
        assert anyio.current_time() - started < 5
        assert not process_alive(pid)


async def test_show_token_prints_it_and_the_file_is_the_users_alone(config: Path) -> None:
    async with await anyio.open_process(
        serve_http_argv(config, "--port", "0", "--show-token"), env=environment()
    ) as process:
        assert process.stdout is not None
        reader = BufferedByteReceiveStream(process.stdout)
        with anyio.fail_after(20):
            lines = [(await reader.receive_until(b"\n", 1000)).decode() for _ in range(3)]
        process.send_signal(signal.SIGTERM)
        with anyio.fail_after(20):
            await process.wait()
    token_file = anyio.Path(lines[1].removeprefix("bearer token in "))
    assert token_file == anyio.Path(os.environ["XDG_STATE_HOME"]) / "agentty" / "http-token"
    assert lines[2] == f"token: {(await token_file.read_text()).strip()}"
    assert (await token_file.stat()).st_mode & 0o777 == 0o600


async def test_a_serve_of_the_same_user_keeps_the_token(config: Path) -> None:
    async with gateway(config) as first:
        pass
    async with gateway(config) as second, http_host(second, "legacy") as client:
        assert second.token == first.token
        assert (await client.list_tools()).tools


@pytest.mark.parametrize(
    ("words", "status", "said"),
    [
        (["--port", "5"], 2, "--port and --show-token go with --http"),
        (["--http", "--port", "70000"], 1, "port 70000 is not a TCP port (0 to 65535)"),
    ],
)
async def test_options_that_do_not_go_together_are_refused(
    words: list[str], status: int, said: str, config: Path
) -> None:
    done = await anyio.run_process(
        [
            sys.executable,
            "-m",
            "agentty_tui",
            "serve",
            "--no-daemon",
            "--config",
            str(config),
            *words,
        ],
        env=environment(),
        check=False,
    )
    assert (done.returncode, done.stderr.decode(), done.stdout) == (
        status,
        f"agentty-tui: {said}\n",
        b"",
    )


class NoGetStream(httpx2.AsyncBaseTransport):
    """A host's HTTP that opens no GET stream (its client's GETs answered 405 here, as a
    server without one answers): the host's session then goes idle between its requests."""

    def __init__(self) -> None:
        self._http = httpx2.AsyncHTTPTransport()
        self.sessions: set[str] = set()
        """Every ``Mcp-Session-Id`` the gateway answered with."""

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if request.method == "GET":
            return httpx2.Response(405, request=request)
        response = await self._http.handle_async_request(request)
        if "mcp-session-id" in response.headers:
            self.sessions.add(response.headers["mcp-session-id"])
        return response

    async def aclose(self) -> None:
        await self._http.aclose()


async def until_sessions(served: HttpGateway, count: int) -> None:
    """Until ``served`` serves ``count`` sessions (its count is polled: no event tells it)."""
    with anyio.fail_after(30):
        while served.sessions != count:  # noqa: ASYNC110 - a count, no event
            await anyio.sleep(0.02)


async def test_an_idle_session_is_freed_and_taken_up_at_its_hosts_next_request(
    config: Path, tmp_path: Path
) -> None:
    """A 2025-era session idle for the idle setting (here 0.3 s) frees its server, but its
    host's next request (the SDK's client, which never opens a new session) is served in the
    same session, its ``initialize`` replayed, and the sessions file kept it meanwhile. The
    host's DELETE ends it for good (404 after, and the file forgets it); a stranger's id is
    404."""
    token = "t" * 43
    file = tmp_path / "http-sessions.json"
    book = KeptSessions(file)
    with listen_socket(0) as listener:
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/mcp"
        async with (
            Bridge(Workspace.of_file(config), trust=True) as bridge,
            http_gateway(listener, token, bridge, offers=bridge, book=book, idle=0.3) as served,
        ):
            quiet = NoGetStream()
            headers = {"Authorization": f"Bearer {token}"}
            async with httpx2.AsyncClient(transport=quiet, headers=headers) as http:
                async with Client(
                    streamable_http_client(url, http_client=http), mode="legacy", cache=None
                ) as host:
                    assert "alpha__add" in {tool.name for tool in (await host.list_tools()).tools}
                    (session,) = quiet.sessions
                    await until_sessions(served, 0)  # idle: its server freed
                    assert list(KeptSessions(file).table()) == [session]
                    echoed = await host.call_tool("alpha__echo", {"text": "back"})
                    assert text_of(echoed) == "back" and served.sessions == 1
                    assert quiet.sessions == {session}  # the same session, taken up
                await until_sessions(served, 0)  # the client's DELETE on leaving
                assert KeptSessions(file).table() == {}
                for ended in (session, "0" * 32):
                    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
                    gone = await http.post(
                        url, json=listing, headers={**ACCEPT, "Mcp-Session-Id": ended}
                    )
                    assert gone.status_code == 404


async def test_the_sessions_kept_are_bounded_the_oldest_ending_for_good(
    config: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Beyond ``MAX_KEPT`` sessions freed (here 2), the oldest ends for good: 404, and the
    book forgets it; the others are taken up."""
    monkeypatch.setattr(endpoint, "MAX_KEPT", 2)
    token = "t" * 43
    file = tmp_path / "http-sessions.json"
    with listen_socket(0) as listener:
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/mcp"
        async with (
            Bridge(Workspace.of_file(config), trust=True) as bridge,
            http_gateway(listener, token, bridge, book=KeptSessions(file), idle=0.3) as served,
            httpx2.AsyncClient(headers={**ACCEPT, "Authorization": f"Bearer {token}"}) as http,
        ):
            opened = []
            for _ in range(3):
                answer = await http.post(url, json=INITIALIZE)
                assert answer.status_code == 200
                opened.append(answer.headers["mcp-session-id"])
            await until_sessions(served, 0)
            assert list(KeptSessions(file).table()) == opened[1:]
            listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
            statuses = []
            for session in opened:
                headers = {"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-06-18"}
                statuses.append((await http.post(url, json=listing, headers=headers)).status_code)
            assert statuses == [404, 200, 200]


async def restarted_host(
    config: Path,
    stop: signal.Signals,
    start: Callable[..., AbstractAsyncContextManager[Gateway]],
) -> None:
    """A 2025-era host (the SDK's client) of ``start``'s gateway, which is stopped with
    ``stop`` and started again on the same port: the host's next request is served in its
    session, its GET stream (reopened by its client) brings ``tools/list_changed``, a toggle
    made after reaches it, and its next ``tools/list`` shows the toggle."""
    notices = Notices()
    async with AsyncExitStack() as stack:
        first = await stack.enter_async_context(start())
        host = await stack.enter_async_context(http_host(first, "legacy", notices))
        assert "alpha__add" in {tool.name for tool in (await host.list_tools()).tools}
        first.process.send_signal(stop)
        with anyio.fail_after(30):
            await first.process.wait()
        with anyio.fail_after(30):  # a daemon closes its copy of the socket after the serve
            while not port_free(first.port):  # noqa: ASYNC110 - a port, no event
                await anyio.sleep(0.05)
        again = await stack.enter_async_context(start("--port", str(first.port)))
        assert again.port == first.port
        echoed = await host.call_tool("alpha__echo", {"text": "again"})
        assert text_of(echoed) == "again"
        await notices.until(1, timeout=60)  # the reopened GET stream's notice
        await toggle("disable", config, "alpha", "add")
        await notices.until(2)
        assert "alpha__add" not in {tool.name for tool in (await host.list_tools()).tools}


def port_free(port: int) -> bool:
    """Whether nothing listens on ``port`` of 127.0.0.1."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    except ConnectionRefusedError:
        return True
    return False


STOPS = [pytest.param(signal.SIGKILL, id="kill-9"), pytest.param(signal.SIGTERM, id="sigterm")]
"""The ways a gateway is stopped before it is run again."""


@pytest.mark.parametrize("stop", STOPS)
async def test_a_2025_session_outlives_serve_restarted_on_its_port(
    stop: signal.Signals, config: Path
) -> None:
    """``serve --http`` (a bridge of its own) killed, or stopped, and run again on the same
    port: its hosts' sessions are in its sessions file, and the new one takes them up."""
    with anyio.fail_after(150):
        await restarted_host(config, stop, functools.partial(gateway, config))
