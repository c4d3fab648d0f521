"""``agentty-tui serve --http --shared``: the HTTP gateway served by the user's daemon, over the
bridge its stdio hosts (``serve --shared``) share.

The serve process binds the port and hands the socket to the daemon it starts (its runtime
folder the test's own, its idle time shortened); hosts are the mcp SDK's client over HTTP
(both eras), and ``serve --shared`` started as a host starts it for the stdio side.
"""

from __future__ import annotations

import functools
import os
import signal
import socket
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import httpx2
import pytest
from anyio.streams.buffered import BufferedByteReceiveStream
from mcp import Client
from mcp.client.stdio import get_default_environment
from mcp.client.streamable_http import streamable_http_client
from mcp.client.subscriptions import SubscriptionLost, ToolsListChanged

from agentty_tui.gateway.attachment import Attachment
from agentty_tui.gateway.http.loopback import HANDOVER, LISTENING
from agentty_tui.gateway.rendezvous import rendezvous
from agentty_tui.gateway.stdio.shared import attach_to_daemon, daemon_argv, ensure_daemon
from tests.conftest import WriteConfig
from tests.gateway.daemon.test_process import attached, daemon_gone, disable, environment
from tests.gateway.hosts import MODES, Notices
from tests.gateway.http.test_endpoint import (
    ACCEPT,
    ANNOUNCED,
    STOPS,
    Gateway,
    http_host,
    post,
    restarted_host,
)
from tests.gateway.stdio.test_serve import text_of, toggle
from tests.helpers import process_alive, stdio_entry, wait_until_gone
from tests.servers import plain_argv

pytestmark = pytest.mark.anyio


@pytest.fixture
def marker(tmp_path: Path) -> str:
    """A server name of this test alone: its processes are counted by it."""
    return f"alpha-{tmp_path.name}"


@pytest.fixture
def config(write_config: WriteConfig, marker: str) -> Path:
    return write_config({"alpha": stdio_entry(plain_argv("--name", marker))})


def serve_argv(config: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "agentty_tui",
        "serve",
        "--http",
        "--shared",
        "--config",
        str(config),
        *extra,
    ]


def daemon_pid(runtime: Path) -> int:
    """The process id of the daemon listening in ``runtime``."""
    return int(rendezvous({"XDG_RUNTIME_DIR": str(runtime)}).pid.read_text())


def servers_running(marker: str) -> list[int]:
    """The processes of this test's server (by the name in their command line)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                words = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if marker.encode() in words and process_alive(int(entry.name)):
                found.append(int(entry.name))
    return found


@asynccontextmanager
async def shared_gateway(
    config: Path, runtime: Path, *extra: str, stop: signal.Signals = signal.SIGTERM
) -> AsyncIterator[Gateway]:
    """``serve --http --shared --port 0`` until the block ends (then ``stop``, and it must have
    ended)."""
    async with await anyio.open_process(
        serve_argv(config, "--port", "0", *extra), env=host_environment(runtime)
    ) as process:
        assert process.stdout is not None
        reader = BufferedByteReceiveStream(process.stdout)
        with anyio.fail_after(60):  # a daemon's start: seconds on a loaded machine
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
                process.send_signal(stop)
            with anyio.fail_after(20):
                await process.wait()
            assert process.stderr is not None
            with anyio.fail_after(5):
                served.stderr = b"".join([chunk async for chunk in process.stderr])


def host_environment(runtime: Path) -> dict[str, str]:
    """The environment a stdio host gives ``serve --shared`` here (the SDK's defaults and the
    test's folders): the same, so that the daemon shares one bridge between the two."""
    return {**get_default_environment(), **environment(runtime)}


def refused(port: int) -> bool:
    """Whether a connection to ``port`` on 127.0.0.1 is refused (nothing listens)."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    except ConnectionRefusedError:
        return True
    return False


@pytest.mark.parametrize("mode", MODES)
async def test_a_host_lists_and_calls_through_the_daemon_and_hears_a_toggle(
    mode: str, config: Path, runtime: Path, marker: str
) -> None:
    notices = Notices()
    async with (
        shared_gateway(config, runtime) as served,
        http_host(served, mode, notices) as client,
    ):
        assert client.protocol_version == ("2026-07-28" if mode == "auto" else "2025-11-25")
        listed = {tool.name for tool in (await client.list_tools()).tools}
        assert listed == {"alpha__echo", "alpha__add", "alpha__pid", "alpha__sleep"}
        echoed = await client.call_tool("alpha__echo", {"text": "hi"})
        assert not echoed.is_error and text_of(echoed) == "hi"
        # The server is the daemon's child: the daemon serves, this serve holds the port.
        pid = int(text_of(await client.call_tool("alpha__pid", {})))
        stat = await anyio.Path(f"/proc/{pid}/stat").read_text()
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        assert parent == daemon_pid(runtime) != served.process.pid
        await disable(config, "alpha", "add")
        await notices.until(1)
        assert "alpha__add" not in {tool.name for tool in (await client.list_tools()).tools}
        refusal = await client.call_tool("alpha__add", {"a": 1, "b": 1})
        assert refusal.is_error and "agentty-tui enable alpha add" in text_of(refusal)
    assert served.stderr == b"agentty-tui: stopped by SIGTERM\n"
    assert served.process.returncode == 128 + signal.SIGTERM
    await daemon_gone(runtime)
    await wait_until_gone(pid)


async def test_http_and_stdio_hosts_share_one_server_process(
    config: Path, runtime: Path, tmp_path: Path, marker: str
) -> None:
    """An HTTP host of each era and a stdio ``serve --shared`` host: one process of the server
    for the three; a toggle reaches all three."""
    heard = [Notices(), Notices(), Notices()]
    async with (
        shared_gateway(config, runtime) as served,
        http_host(served, "legacy", heard[0]) as old,
        http_host(served, "auto", heard[1]) as new,
        attached(config, runtime, tmp_path / "stdio", heard[2]) as piped,
    ):
        pids = {int(text_of(await host.call_tool("alpha__pid", {}))) for host in (old, new, piped)}
        assert len(pids) == 1 and servers_running(marker) == list(pids)
        await disable(config, "alpha", "echo")
        for notices in heard:
            await notices.until(1)
    await daemon_gone(runtime)
    await wait_until_gone(pids.pop())


async def test_requests_without_the_token_or_from_a_foreign_page_are_refused(
    config: Path, runtime: Path
) -> None:
    async with shared_gateway(config, runtime) as served:
        bearer = {"Authorization": f"Bearer {served.token}"}
        missing = await post(served, {})
        assert missing.status_code == 401
        assert (await post(served, {"Authorization": "Bearer nope"})).status_code == 401
        assert (await post(served, {**bearer, "Origin": "https://evil.example"})).status_code == 403
        rebound = await post(served, {**bearer, "Host": f"evil.example:{served.port}"})
        assert rebound.status_code == 403
        local = await post(served, {**bearer, "Origin": "http://localhost:3000"})
        assert local.status_code == 200 and local.headers["mcp-session-id"]
    await daemon_gone(runtime)


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
async def test_the_listener_and_its_sessions_end_with_the_serve_process(
    stop: signal.Signals, config: Path, runtime: Path
) -> None:
    """However the serve process ends (``kill -9`` too: the daemon sees its attachment end),
    a 2025-era session's open GET stream ends, the port is free (at once when the process
    could wait for the daemon), and the daemon leaves when idle, stopping the server."""
    async with shared_gateway(config, runtime, stop=stop) as served:
        async with bare_host(served, "legacy") as client:
            pid = int(text_of(await client.call_tool("alpha__pid", {})))
        bearer = {"Authorization": f"Bearer {served.token}"}
        opened = await post(served, bearer)
        session = {**bearer, "Mcp-Session-Id": opened.headers["mcp-session-id"]}
        async with (
            httpx2.AsyncClient(timeout=httpx2.Timeout(30, read=300)) as http,
            http.stream("GET", served.url, headers={**session, **ACCEPT}) as stream,
        ):
            assert stream.status_code == 200
            served.process.send_signal(stop)
            with anyio.fail_after(20):
                await served.process.wait()
                if stop != signal.SIGKILL:  # it waited for the daemon to close the socket
                    assert refused(served.port)
                async for _ in stream.aiter_bytes():  # the stream ends with its session
                    pass
                while not refused(served.port):  # noqa: ASYNC110 (the daemon's own pace)
                    await anyio.sleep(0.05)
        await daemon_gone(runtime)
        await wait_until_gone(pid)
    if stop == signal.SIGTERM:
        assert served.stderr == b"agentty-tui: stopped by SIGTERM\n"
    elif stop == signal.SIGINT:
        assert (served.stderr, served.process.returncode) == (b"", 128 + signal.SIGINT)


async def test_a_daemon_killed_is_replaced_on_the_same_port_and_token(
    config: Path, runtime: Path
) -> None:
    """``kill -9`` of the daemon: the serve process starts a new one at once and hands it the
    same socket; a 2026-07-28 host goes on calling (a new server process), and a 2025-era host
    that comes then opens a session with the same port and token."""
    with anyio.fail_after(150):  # a host left waiting must fail the test, not hang it
        await _killed_and_replaced(config, runtime)


async def _killed_and_replaced(config: Path, runtime: Path) -> None:
    async with shared_gateway(config, runtime) as served:
        async with bare_host(served, "auto") as new:
            before = int(text_of(await new.call_tool("alpha__pid", {})))
            daemon = daemon_pid(runtime)
            os.kill(daemon, signal.SIGKILL)
            with anyio.fail_after(60):  # a new daemon's start: seconds on a loaded machine
                while _pid_or_none(runtime) in (None, daemon):  # noqa: ASYNC110 (its files)
                    await anyio.sleep(0.05)
            after = int(text_of(await new.call_tool("alpha__pid", {})))
            assert after != before and process_alive(after) and not process_alive(before)
        async with http_host(served, "legacy") as old:
            assert int(text_of(await old.call_tool("alpha__pid", {}))) == after
        assert served.process.returncode is None  # the serve process went on
    assert served.stderr == b"agentty-tui: stopped by SIGTERM\n"
    await daemon_gone(runtime)
    await wait_until_gone(after)


@pytest.mark.parametrize("first", ["get", "request"])
async def test_a_2025_session_outlives_a_daemon_killed(
    first: str, config: Path, runtime: Path
) -> None:
    """``kill -9`` of the daemon under a 2025-era host (the SDK's client, which never opens a
    new session by itself), twice: the new daemon takes its session up, so its GET stream
    (which the client reopens) brings ``tools/list_changed``, a toggle made after reaches it as
    another, and its next ``tools/list`` shows the toggle. ``first``: what of the host's
    reaches the new daemon first, its GET stream or a request (which then takes the session up
    while the GET comes in: the GET waits for it)."""
    notices = Notices()
    with anyio.fail_after(150):
        async with (
            shared_gateway(config, runtime) as served,
            http_host(served, "legacy", notices) as host,
        ):
            assert "alpha__add" in {tool.name for tool in (await host.list_tools()).tools}
            # Twice: the host's client gives its GET stream up after two broken ones in a row.
            for kill, (verb, enabled) in enumerate([("disable", False), ("enable", True)]):
                daemon = daemon_pid(runtime)
                os.kill(daemon, signal.SIGKILL)
                with anyio.fail_after(60):  # a new daemon's start: seconds on a loaded machine
                    while _pid_or_none(runtime) in (None, daemon):  # noqa: ASYNC110 (its files)
                        await anyio.sleep(0.05)
                if first == "request":
                    await host.list_tools()
                await notices.until(2 * kill + 1, timeout=60)  # the reopened GET stream's notice
                await toggle(verb, config, "alpha", "add")
                await notices.until(2 * kill + 2)
                listed = {tool.name for tool in (await host.list_tools()).tools}
                assert ("alpha__add" in listed) == enabled and "alpha__echo" in listed
            echoed = await host.call_tool("alpha__echo", {"text": "still here"})
            assert text_of(echoed) == "still here"
            assert served.process.returncode is None  # the serve process went on
            # A session no daemon had open is still unknown: 404, as the protocol has it.
            headers = {"Authorization": f"Bearer {served.token}", "Mcp-Session-Id": "0" * 32}
            async with httpx2.AsyncClient() as http:
                listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
                stranger = await http.post(served.url, json=listing, headers={**ACCEPT, **headers})
            assert stranger.status_code == 404
    await daemon_gone(runtime)


@asynccontextmanager
async def bare_host(served: Gateway, mode: str) -> AsyncIterator[Client]:
    """A host that holds no listen stream (one the daemon's death ends would end it)."""
    async with (
        httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {served.token}"},
            timeout=httpx2.Timeout(30, read=300),
        ) as http,
        Client(
            streamable_http_client(served.url, http_client=http), mode=mode, cache=None
        ) as client,
    ):
        yield client


def _pid_or_none(runtime: Path) -> int | None:
    """The daemon's pid file, or ``None`` while there is none."""
    try:
        return daemon_pid(runtime)
    except (OSError, ValueError):
        return None


async def test_a_taken_port_is_said_and_no_daemon_starts(config: Path, runtime: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = await anyio.run_process(
            serve_argv(config, "--port", str(port)), env=environment(runtime), check=False
        )
    assert done.returncode == 1
    assert done.stderr.decode() == (
        f"agentty-tui: port {port} on 127.0.0.1 is taken by another program: choose another "
        "with --port N (--port 0 takes a free one)\n"
    )
    assert done.stdout == b""
    assert not rendezvous({"XDG_RUNTIME_DIR": str(runtime)}).socket.exists()


async def test_the_daemon_refuses_what_is_not_a_loopback_listener(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    """What a peer hands over is checked: a socket listening on another address, a socket that
    does not listen and a pipe are refused with why, and nothing is served on them."""
    place = rendezvous({"XDG_RUNTIME_DIR": str(runtime)})
    env = environment(runtime)
    argv = ["/usr/bin/env", *(f"{k}={v}" for k, v in env.items()), *daemon_argv()]
    await anyio.to_thread.run_sync(ensure_daemon, place, argv)
    attachment = Attachment(str(tmp_path), str(config), http_token="t" * 43)
    reading, writing = os.pipe()
    with socket.socket() as unbound, socket.socket() as wildcard:
        wildcard.bind(("0.0.0.0", 0))
        wildcard.listen()
        for descriptor, said in [
            (wildcard.fileno(), b"not one listening on 127.0.0.1"),
            (unbound.fileno(), b"not one listening on 127.0.0.1"),
            (reading, b"not a socket"),
        ]:
            with anyio.fail_after(60):
                stream = await attach_to_daemon(attachment, place)
                async with stream:
                    await stream.send_fds(HANDOVER, [descriptor])
                    answer = await stream.receive()
            assert answer != LISTENING and answer.startswith(b"error ") and said in answer, answer
    os.close(reading)
    os.close(writing)
    await daemon_gone(runtime)


async def test_the_serve_process_imports_neither_the_sdk_nor_the_http_server(
    config: Path, runtime: Path
) -> None:
    """It only holds the port and the attachment: the daemon serves (so it stays small)."""
    env = {**host_environment(runtime), "PYTHONDONTWRITEBYTECODE": "1"}
    argv = [sys.executable, "-X", "importtime", *serve_argv(config, "--port", "0")[1:]]
    async with await anyio.open_process(argv, env=env) as process:
        assert process.stdout is not None and process.stderr is not None
        reader = BufferedByteReceiveStream(process.stdout)
        with anyio.fail_after(60):
            assert ANNOUNCED.fullmatch(await reader.receive_until(b"\n", 1000) + b"\n")
        process.send_signal(signal.SIGTERM)
        with anyio.fail_after(20):
            said = b"".join([chunk async for chunk in process.stderr]).decode()
            await process.wait()
    imported = {line.rsplit("|", 1)[-1].strip() for line in said.splitlines()}
    assert "agentty_tui.gateway.http.shared" in imported  # the check reads what it should
    heavy = {"mcp", "mcp_types", "pydantic", "uvicorn", "starlette", "agentty_tui.model"}
    assert not heavy & imported
    await daemon_gone(runtime)


async def test_a_refused_attachment_is_said_and_nothing_listens(
    runtime: Path, tmp_path: Path
) -> None:
    """A host the daemon does not know, for the workspace of the folder ``serve`` runs in
    (``--host`` with ``--config`` is refused before any daemon is asked)."""
    argv = [*serve_argv(Path("unused"), "--port", "0", "--host", "nosuch")]
    cut = argv.index("--config")
    del argv[cut : cut + 2]
    with anyio.fail_after(60):
        done = await anyio.run_process(
            argv, env=host_environment(runtime), check=False, cwd=tmp_path
        )
    assert done.returncode == 1 and done.stdout == b""
    said = done.stderr.decode()
    assert said.startswith("agentty-tui: the gateway daemon refused: unknown host 'nosuch'")
    assert said.count("\n") == 1
    await daemon_gone(runtime)


@pytest.mark.parametrize("stop", STOPS)
async def test_a_2025_session_outlives_the_serve_process_restarted(
    stop: signal.Signals, config: Path, runtime: Path
) -> None:
    """``serve --http --shared`` itself killed, or stopped, and run again on the same port: it
    hands the daemon the sessions of the one before (its sessions file), and the daemon takes
    them up."""
    with anyio.fail_after(150):
        await restarted_host(config, stop, functools.partial(shared_gateway, config, runtime))
    await daemon_gone(runtime)


async def test_a_2026_host_that_listens_again_after_a_daemon_killed_hears_the_next_toggle(
    config: Path, runtime: Path
) -> None:
    """``kill -9`` of the daemon ends a 2026-07-28 host's listen stream (the SDK's client
    raises ``SubscriptionLost``: the spec ends a subscription with its transport, and leaves
    listening again to the client). A host that listens again is acknowledged on its first
    try (the listen waits in the kernel's queue for the new daemon, never refused), and a
    toggle after reaches it."""
    with anyio.fail_after(150):
        async with shared_gateway(config, runtime) as served, bare_host(served, "auto") as host:
            async with host.listen(tools_list_changed=True) as subscription:
                daemon = daemon_pid(runtime)
                os.kill(daemon, signal.SIGKILL)
                with pytest.raises(SubscriptionLost):
                    async for _ in subscription:
                        pass
            async with host.listen(tools_list_changed=True) as again:
                assert again.honored.tools_list_changed
                assert _pid_or_none(runtime) not in (None, daemon)  # a new daemon serves it
                await toggle("disable", config, "alpha", "add")
                with anyio.fail_after(30):
                    event = await anext(aiter(again))
                assert isinstance(event, ToolsListChanged)
            assert "alpha__add" not in {tool.name for tool in (await host.list_tools()).tools}
    await daemon_gone(runtime)
