"""When the gateway daemon leaves: at most ``idle`` seconds (and a margin for a loaded machine)
after its last attachment ended, however that attachment ended, and at once when nobody can
reach it any more (its socket taken away or another daemon's now).

Each test runs the real daemon (``gateway-daemon``, started as ``serve --shared`` starts it,
its runtime folder the test's own and its idle time ``IDLE``) and watches its process end, its
server's process with it.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import shutil
import signal
import socket
import stat
import sys
from collections.abc import Awaitable, Mapping
from pathlib import Path

import anyio
import anyio.abc
import pytest
from anyio.streams.buffered import BufferedByteReceiveStream

from agentty_tui.gateway.attachment import Attachment
from agentty_tui.gateway.daemon.lifetime import START_GRACE, Lifetime
from agentty_tui.gateway.rendezvous import rendezvous
from agentty_tui.gateway.stdio.shared import daemon_argv, ensure_daemon
from tests.conftest import WriteConfig
from tests.gateway.daemon.test_process import IDLE, attached, text_of
from tests.gateway.hosts import Notices
from tests.gateway.http.test_endpoint import http_host
from tests.gateway.http.test_shared import host_environment, refused, shared_gateway
from tests.helpers import process_alive, stdio_entry, wait_until_gone
from tests.servers import plain_argv

pytestmark = pytest.mark.anyio

MARGIN = 15.0
"""Seconds beyond ``IDLE`` a daemon may take to leave on a loaded machine (its bridge closing,
its servers stopped)."""


@pytest.fixture
def config(write_config: WriteConfig) -> Path:
    return write_config({"alpha": stdio_entry(plain_argv("--name", "alpha"))})


async def start_daemon(runtime: Path) -> int:
    """Start the test's daemon as ``serve --shared`` would; its process id."""
    place = rendezvous({"XDG_RUNTIME_DIR": str(runtime)})
    env = host_environment(runtime)
    argv = ["/usr/bin/env", *(f"{k}={v}" for k, v in env.items()), *daemon_argv()]
    await anyio.to_thread.run_sync(ensure_daemon, place, argv)
    return int(place.pid.read_text())


async def daemon_leaves(pid: int, *servers: int) -> None:
    """Until the daemon ``pid`` has ended, within ``IDLE`` + ``MARGIN``; and its servers."""
    with anyio.fail_after(IDLE + MARGIN):
        # No event fires when a foreign process ends: polling is the only way to see it.
        while process_alive(pid):  # noqa: ASYNC110
            await anyio.sleep(0.05)
    for server in servers:
        await wait_until_gone(server)


def request(ident: int, method: str, params: Mapping[str, object] | None = None) -> bytes:
    """A JSON-RPC request as one line."""
    message = {"jsonrpc": "2.0", "id": ident, "method": method, "params": params or {}}
    return json.dumps(message).encode() + b"\n"


async def answer(stream: anyio.abc.SocketStream, buffered: bytearray) -> dict[str, object]:
    """The next line ``stream`` sends, as JSON."""
    while b"\n" not in buffered:
        buffered += await stream.receive()
    line, _, rest = bytes(buffered).partition(b"\n")
    buffered[:] = rest
    value: dict[str, object] = json.loads(line)
    return value


async def raw_host(runtime: Path, config: Path, tmp_path: Path) -> anyio.abc.SocketStream:
    """A connection attached as a host (2025 handshake done) that has a tool call running."""
    place = rendezvous({"XDG_RUNTIME_DIR": str(runtime)})
    stream = await anyio.connect_unix(place.socket)
    await stream.send(Attachment(str(tmp_path), str(config)).line())
    assert await stream.receive() == b"ok\n"
    buffered = bytearray()
    await stream.send(request(1, "initialize", HELLO))
    assert "result" in await answer(stream, buffered)
    notice = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    await stream.send(json.dumps(notice).encode() + b"\n")
    await stream.send(request(2, "tools/call", {"name": "alpha__pid", "arguments": {}}))
    reply = await answer(stream, buffered)
    result = reply["result"]
    assert isinstance(result, dict)
    stream.server_pid = int(result["content"][0]["text"])  # type: ignore[attr-defined]
    # A call that would run for an hour: the host leaves while it runs.
    long = {"name": "alpha__sleep", "arguments": {"seconds": 3600}}
    await stream.send(request(3, "tools/call", long))
    return stream


async def until_closed(stream: anyio.abc.SocketStream) -> None:
    """Until the daemon closes its side of ``stream``."""
    with contextlib.suppress(anyio.EndOfStream, anyio.BrokenResourceError):
        while True:
            await stream.receive()


HELLO: dict[str, object] = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "raw", "version": "0"},
}
"""A 2025 handshake host's ``initialize``."""


async def test_a_host_that_shuts_its_side_during_a_call_ends_its_attachment(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    """A host's ``serve`` whose host went away shuts its side of the connection and waits for
    the daemon to close its own: the daemon ends the attachment (and the call the host will
    never hear the end of) and leaves when idle."""
    daemon = await start_daemon(runtime)
    stream = await raw_host(runtime, config, tmp_path)
    server: int = stream.server_pid  # type: ignore[attr-defined]
    raw = stream.extra(anyio.abc.SocketAttribute.raw_socket)
    raw.shutdown(socket.SHUT_WR)
    with anyio.fail_after(IDLE + MARGIN):
        await until_closed(stream)
    await stream.aclose()
    await daemon_leaves(daemon, server)


async def test_a_serve_whose_host_left_ends_and_so_does_the_daemon(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    """The real ``serve --shared`` whose host closed its pipe during a call (its host died):
    the serve process ends, and the daemon leaves when idle."""
    env = host_environment(runtime)
    argv = [sys.executable, "-m", "agentty_tui", "serve", "--shared", "--config", str(config)]
    async with await anyio.open_process(argv, env=env, cwd=tmp_path) as serve:
        assert serve.stdin is not None and serve.stdout is not None
        await serve.stdin.send(request(1, "initialize", HELLO))
        await serve.stdin.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        await serve.stdin.send(request(2, "tools/call", {"name": "alpha__pid", "arguments": {}}))
        reader = BufferedByteReceiveStream(serve.stdout)
        with anyio.fail_after(60):  # a daemon's start: seconds on a loaded machine
            lines = [await reader.receive_until(b"\n", 1 << 20) for _ in range(2)]
        server = int(json.loads(lines[1])["result"]["content"][0]["text"])
        daemon = int(rendezvous({"XDG_RUNTIME_DIR": str(runtime)}).pid.read_text())
        long = {"name": "alpha__sleep", "arguments": {"seconds": 3600}}
        await serve.stdin.send(request(3, "tools/call", long))
        await serve.stdin.aclose()  # the host is gone
        with anyio.fail_after(IDLE + MARGIN):
            await serve.wait()
        await daemon_leaves(daemon, server)


_PICKER = """
import socket, sys, time
connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
connection.connect(sys.argv[1])
connection.sendall(sys.argv[2].encode())
data = b""
while not data.endswith(b"\\n"):
    data += connection.recv(1)
print(data.decode().strip(), flush=True)
time.sleep(3600)
"""


async def test_a_picker_killed_ends_its_attachment(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    """A picker's process attached (its snapshots coming) and killed with ``kill -9``: the
    daemon leaves when idle."""
    async with attached(config, runtime, tmp_path / "host") as host:
        server = int(text_of(await host.call_tool("alpha__pid", {})))
        daemon = int(rendezvous({"XDG_RUNTIME_DIR": str(runtime)}).pid.read_text())
        line = Attachment(str(tmp_path), str(config), picker=True).line().decode()
        place = rendezvous({"XDG_RUNTIME_DIR": str(runtime)})
        argv = [sys.executable, "-c", _PICKER, str(place.socket), line]
        async with await anyio.open_process(argv) as picker:
            assert picker.stdout is not None
            reader = BufferedByteReceiveStream(picker.stdout)
            with anyio.fail_after(30):
                assert await reader.receive_until(b"\n", 100) == b"ok"
            picker.kill()
            await picker.wait()
    await daemon_leaves(daemon, server)


async def test_an_http_handover_whose_serve_was_killed_ends_with_its_hosts_still_connected(
    config: Path, runtime: Path
) -> None:
    """``serve --http --shared`` killed while an HTTP host holds a session (and its GET
    stream) open: the daemon stops serving the port, ends the host's connections, and leaves
    when idle."""
    async with shared_gateway(config, runtime, stop=signal.SIGKILL) as served:
        daemon = int(rendezvous({"XDG_RUNTIME_DIR": str(runtime)}).pid.read_text())
        async with http_host(served, "legacy") as client, anyio.create_task_group() as group:
            server = int(text_of(await client.call_tool("alpha__pid", {})))
            # A call that would run for an hour, in flight when serve is killed.
            group.start_soon(_swallowed, client.call_tool("alpha__sleep", {"seconds": 3600}))
            await anyio.sleep(0.5)
            served.process.send_signal(signal.SIGKILL)
            await daemon_leaves(daemon, server)
            assert refused(served.port)
            group.cancel_scope.cancel()


async def _swallowed(call: Awaitable[object]) -> None:
    """Await ``call``, whatever it ends with (its gateway goes away under it)."""
    with contextlib.suppress(Exception):
        await call


async def test_a_daemon_whose_socket_was_taken_away_stops_its_servers_and_leaves(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    """The socket deleted while a host is attached (nobody can reach this daemon again): the
    daemon stops its servers and leaves; the host's ``serve`` attaches to a new one."""
    notices = Notices()
    async with attached(config, runtime, tmp_path / "host", notices) as host:
        server = int(text_of(await host.call_tool("alpha__pid", {})))
        place = rendezvous({"XDG_RUNTIME_DIR": str(runtime)})
        daemon = int(place.pid.read_text())
        place.socket.unlink()
        await daemon_leaves(daemon, server)
        await notices.until(1, timeout=60)  # attached to a new daemon (its start: seconds)
        again = int(text_of(await host.call_tool("alpha__pid", {})))
        assert again != server and process_alive(again)


async def test_a_runtime_folder_taken_away_is_made_again_by_the_next_attachment(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    """The whole runtime folder deleted (a cleaner of ``/tmp``) under an attached host: the
    daemon leaves, and the host's ``serve`` makes the folder again, private, and starts a new
    daemon there rather than dying on the lock it cannot open."""
    notices = Notices()
    async with attached(config, runtime, tmp_path / "host", notices) as host:
        server = int(text_of(await host.call_tool("alpha__pid", {})))
        place = rendezvous({"XDG_RUNTIME_DIR": str(runtime)})
        daemon = int(place.pid.read_text())
        shutil.rmtree(place.folder)
        await daemon_leaves(daemon, server)
        await notices.until(1, timeout=60)
        again = int(text_of(await host.call_tool("alpha__pid", {})))
        assert again != server and process_alive(again)
        assert stat.S_IMODE(place.folder.stat().st_mode) == 0o700


async def test_a_daemon_whose_socket_is_another_daemons_now_leaves(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    """The socket deleted and a new daemon listening there (started by the next host): the
    old one, with its host still attached, stops its servers and leaves; its host's ``serve``
    attaches to the new one, whose server both hosts then share."""
    notices = Notices()
    async with attached(config, runtime, tmp_path / "one", notices) as first:
        server = int(text_of(await first.call_tool("alpha__pid", {})))
        place = rendezvous({"XDG_RUNTIME_DIR": str(runtime)})
        daemon = int(place.pid.read_text())
        place.socket.unlink()
        async with attached(config, runtime, tmp_path / "two") as second:
            other = int(text_of(await second.call_tool("alpha__pid", {})))
            assert int(place.pid.read_text()) != daemon
            await daemon_leaves(daemon, server)
            await notices.until(1, timeout=60)
            assert int(text_of(await first.call_tool("alpha__pid", {}))) == other


async def test_a_host_that_leaves_while_its_bridge_opens_is_not_waited_for(
    runtime: Path, tmp_path: Path
) -> None:
    """A host attaching for a file that never finishes reading (a FIFO nobody writes) and
    leaving: the daemon stops waiting for that bridge and leaves when idle."""
    fifo = tmp_path / "mcp.json"
    os.mkfifo(fifo)
    daemon = await start_daemon(runtime)
    place = rendezvous({"XDG_RUNTIME_DIR": str(runtime)})
    async with await anyio.connect_unix(place.socket) as stream:
        await stream.send(Attachment(str(tmp_path), str(fifo)).line())
        with anyio.move_on_after(1):
            await stream.receive()
    await daemon_leaves(daemon)


async def test_connections_that_only_look_do_not_keep_the_daemon(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    """Probes (a starting ``serve`` looking for a daemon), ``status`` queries and refused
    attachments, one every ``IDLE`` / 4 seconds: none is an attachment, and the daemon leaves
    ``IDLE`` seconds after its last host left all the same."""
    async with attached(config, runtime, tmp_path / "host") as host:
        server = int(text_of(await host.call_tool("alpha__pid", {})))
        place = rendezvous({"XDG_RUNTIME_DIR": str(runtime)})
        daemon = int(place.pid.read_text())

    async def look() -> None:
        for kind in itertools.cycle(("probe", "status", "refused")):
            with contextlib.suppress(OSError, anyio.EndOfStream, anyio.BrokenResourceError):
                async with await anyio.connect_unix(place.socket) as stream:
                    if kind == "status":
                        await stream.send(b'{"query": "status"}\n')
                        await stream.receive()
                    elif kind == "refused":
                        await stream.send(b'{"cwd": 7}\n')
                        await stream.receive()
            await anyio.sleep(IDLE / 4)

    async with anyio.create_task_group() as group:
        group.start_soon(look)
        await daemon_leaves(daemon, server)
        group.cancel_scope.cancel()


async def test_a_host_that_leaves_while_its_servers_still_connect_is_not_waited_for(
    write_config: WriteConfig, runtime: Path, tmp_path: Path
) -> None:
    """A host's first request waits for its servers (``--wait``, here an hour) and its one
    server never answers ``initialize`` (its connect timeout an hour too): the host leaves
    meanwhile, and the daemon ends the attachment and leaves when idle."""
    silent = [sys.executable, "-c", "import time; time.sleep(3600)"]
    config = write_config({"mute": {**stdio_entry(silent), "connectTimeout": 3600}})
    daemon = await start_daemon(runtime)
    place = rendezvous({"XDG_RUNTIME_DIR": str(runtime)})
    async with await anyio.connect_unix(place.socket) as stream:
        await stream.send(Attachment(str(tmp_path), str(config), wait=3600).line())
        assert await stream.receive() == b"ok\n"
        await stream.send(request(1, "initialize", HELLO))
    await daemon_leaves(daemon)


class Clock:
    """A clock that moves only when told."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def _leaves_now(lifetime: Lifetime) -> bool:
    with anyio.move_on_after(0.2):
        await lifetime.until_leaving()
        return True
    return False


async def test_a_new_daemon_waits_the_start_grace_for_its_first_host_then_the_idle_time(
    tmp_path: Path,
) -> None:
    """With an idle time of 1 s, a daemon nobody attached to yet stays for ``START_GRACE``
    (its starter attaches next); once an attachment ended, 1 s of idleness is enough."""
    socket = tmp_path / "gw.sock"
    socket.touch()  # any file: the daemon's own for reachable()
    clock = Clock()
    lifetime = Lifetime(1.0, socket, clock=clock)
    clock.now += START_GRACE - 0.5
    assert not await _leaves_now(lifetime)
    clock.now += 1.0
    assert await _leaves_now(lifetime)
    with lifetime.visit() as visit:
        visit.attach()
    clock.now += 0.5
    assert not await _leaves_now(lifetime)
    clock.now += 1.0
    assert await _leaves_now(lifetime)
