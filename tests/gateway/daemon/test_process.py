"""``serve --shared``: hosts attach to one gateway daemon over the user's socket, which runs
each server once for all of them, answers toggles live, and leaves when idle.

Hosts are SDK clients starting ``python -m agentty_tui serve --shared`` as a host would; the
daemon is the real one they start (its socket in the test's own runtime folder, its idle time
shortened with ``AGENTTY_GATEWAY_IDLE``).
"""

from __future__ import annotations

import fcntl
import itertools
import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from agentty_tui.gateway.daemon.process import Attachment
from agentty_tui.gateway.rendezvous import peer_uid, rendezvous
from agentty_tui.gateway.stdio.shared import daemon_argv, ensure_daemon
from tests.conftest import WriteConfig
from tests.gateway.hosts import MODES, Notices, listening
from tests.helpers import process_alive, stdio_entry, wait_until_gone
from tests.servers import plain_argv

pytestmark = pytest.mark.anyio

_hosts = itertools.count()
"""Numbers the hosts' stderr files (hosts may share a folder)."""

IDLE = 1.0
"""Seconds the test's daemon stays with no host."""


def text_of(result: types.CallToolResult) -> str:
    first = result.content[0]
    assert isinstance(first, types.TextContent)
    return first.text


@pytest.fixture
def config(write_config: WriteConfig) -> Path:
    return write_config({"alpha": stdio_entry(plain_argv("--name", "alpha"))})


def environment(runtime: Path) -> dict[str, str]:
    # PYTHONPATH: the host's serve (and the daemon it starts) runs the code under test.
    keep = ("HOME", "PATH", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "PYTHONPATH")
    found = {name: os.environ[name] for name in keep if name in os.environ}
    return {**found, "XDG_RUNTIME_DIR": str(runtime), "AGENTTY_GATEWAY_IDLE": str(IDLE)}


@asynccontextmanager
async def attached(
    config: Path,
    runtime: Path,
    tmp_path: Path,
    notices: Notices | None = None,
    mode: str = "legacy",
    env: dict[str, str] | None = None,
) -> AsyncIterator[Client]:
    """A host whose one server is ``serve --shared`` (speaking the protocol era ``mode``
    chooses, with ``env`` added to its environment); its stderr must stay empty."""
    errors = tmp_path.parent / f"serve-stderr-{tmp_path.name}-{next(_hosts)}.txt"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "agentty_tui", "serve", "--shared", "--config", str(config)],
        env={**environment(runtime), **(env or {})},
        cwd=tmp_path,
    )
    notices = notices or Notices()
    await anyio.Path(tmp_path).mkdir(exist_ok=True)
    with errors.open("w") as errlog:
        transport = stdio_client(params, errlog=errlog)
        client = Client(transport, mode=mode, message_handler=notices.handler, cache=None)
        async with client, listening(client, notices):
            yield client
    assert errors.read_text() == ""


async def daemon_gone(runtime: Path) -> None:
    """Until nothing listens at the runtime folder's socket."""
    path = rendezvous({"XDG_RUNTIME_DIR": str(runtime)}).socket
    with anyio.fail_after(IDLE + 20):
        # No event fires when another process removes a file: polling is the only way.
        while path.exists():  # noqa: ASYNC110
            await anyio.sleep(0.05)


async def test_two_hosts_share_one_server_process_and_the_daemon_leaves_when_idle(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    async with (
        attached(config, runtime, tmp_path / "one") as first,
        attached(config, runtime, tmp_path / "two") as second,
    ):
        one = int(text_of(await first.call_tool("alpha__pid", {})))
        two = int(text_of(await second.call_tool("alpha__pid", {})))
        assert one == two and process_alive(one)  # one process, not two
        echoed = await second.call_tool("alpha__echo", {"text": "shared"})
        assert text_of(echoed) == "shared"
    await daemon_gone(runtime)
    await wait_until_gone(one)  # the daemon stopped its server on the way out


def daemons_of(runtime: Path) -> list[int]:
    """The process ids of the gateway daemons running for ``runtime`` (their environment's
    ``XDG_RUNTIME_DIR``), read from ``/proc``: whatever each one's pid file says."""
    found: dict[int, int] = {}  # pid -> parent pid
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            environ = (entry / "environ").read_bytes().split(b"\0")
            parent = int((entry / "stat").read_text().rpartition(")")[2].split()[1])
        except (OSError, ValueError, IndexError):  # gone meanwhile, or not ours to read
            continue
        # The daemon's own command line, not its go-between's (``python -c … gateway-daemon``).
        daemon = argv[1:] == [b"-m", b"agentty_tui", b"gateway-daemon", b""]
        if daemon and f"XDG_RUNTIME_DIR={runtime}".encode() in environ:
            found[int(entry.name)] = parent
    # A server the daemon is starting is, between its fork and its exec, a copy of the daemon
    # (its command line and environment): a child of a daemon is not another daemon.
    return [pid for pid, parent in found.items() if parent not in found]


async def test_two_hosts_starting_serve_at_once_start_one_daemon(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    """Both hosts spawn ``serve --shared`` together against an empty runtime folder: each
    finds no daemon, and the start lock lets only one of them start one; the other attaches
    to it. One daemon process, one server process."""
    assert [entry async for entry in anyio.Path(runtime).iterdir()] == []
    pids: dict[str, int] = {}
    both, done = anyio.Event(), anyio.Event()

    async def host(name: str) -> None:
        async with attached(config, runtime, tmp_path / name) as client:
            pids[name] = int(text_of(await client.call_tool("alpha__pid", {})))
            if len(pids) == 2:
                both.set()
            await done.wait()

    seen: set[int] = set()

    async def watch() -> None:
        # Every daemon that ran while the hosts started, however briefly (one that lost a race
        # for the socket would leave soon): other processes give no event, so /proc is read.
        while not both.is_set():
            seen.update(daemons_of(runtime))
            await anyio.sleep(0.01)

    with anyio.fail_after(60):
        async with anyio.create_task_group() as group:
            group.start_soon(watch)
            group.start_soon(host, "one")
            group.start_soon(host, "two")
            await both.wait()
            seen.update(daemons_of(runtime))
            recorded = int(rendezvous({"XDG_RUNTIME_DIR": str(runtime)}).pid.read_text())
            done.set()
    assert seen == {recorded}
    assert pids["one"] == pids["two"]
    await daemon_gone(runtime)


async def test_hosts_share_a_server_process_only_when_what_it_sees_of_their_environment_is_the_same(
    write_config: WriteConfig, runtime: Path, tmp_path: Path
) -> None:
    """One entry refers to ``${TOKEN}``: two hosts with the same value share its process, though
    the rest of their environments differ (another variable, a folder of their own first on
    PATH); a host with another value gets a process of its own, started with its value. Each
    starts in the folder of the file, not where the hosts started ``serve``."""
    config = write_config({"alpha": stdio_entry(plain_argv("--name", "alpha-${TOKEN}"))})
    own = tmp_path / "own-bin"
    own.mkdir()
    red = {"TOKEN": "red", "ONLY_HERE": "1", "PATH": f"{own}{os.pathsep}{os.environ['PATH']}"}
    folder = tmp_path / "hosts"  # every host starts serve in the same folder
    async with (
        attached(config, runtime, folder, env=red) as one,
        attached(config, runtime, folder, env={"TOKEN": "red"}) as two,
        attached(config, runtime, folder, env={"TOKEN": "blue"}) as three,
    ):
        pids = [int(text_of(await host.call_tool("alpha__pid", {}))) for host in (one, two, three)]
        assert pids[0] == pids[1] != pids[2]
        for pid, value in ((pids[0], "red"), (pids[2], "blue")):
            argv = (await anyio.Path(f"/proc/{pid}/cmdline").read_bytes()).split(b"\0")
            assert f"alpha-{value}".encode() in argv
            assert os.readlink(f"/proc/{pid}/cwd") == str(config.parent)
    await daemon_gone(runtime)


async def disable(config: Path, server: str, tool: str) -> None:
    """``agentty-tui disable`` run as a process of its own on ``config``."""
    argv = [sys.executable, "-m", "agentty_tui", "disable", "--config", str(config)]
    done = await anyio.run_process([*argv, server, tool], check=False)
    assert done.returncode == 0, done.stderr.decode()


async def test_a_toggle_reaches_every_attached_host_live(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    notices = [Notices(), Notices()]
    async with (
        attached(config, runtime, tmp_path / "one", notices[0]) as first,
        attached(config, runtime, tmp_path / "two", notices[1]) as second,
    ):
        for client in (first, second):
            assert "alpha__add" in {tool.name for tool in (await client.list_tools()).tools}
        await disable(config, "alpha", "add")
        for client, heard in zip((first, second), notices, strict=True):
            await heard.until(1)
            assert "alpha__add" not in {tool.name for tool in (await client.list_tools()).tools}
    await daemon_gone(runtime)


async def test_an_attachment_that_says_nothing_usable_is_refused_with_why_and_the_daemon_goes_on(
    runtime: Path, tmp_path: Path
) -> None:
    place = rendezvous({"XDG_RUNTIME_DIR": str(runtime)})
    env = environment(runtime)
    argv = ["/usr/bin/env", *(f"{k}={v}" for k, v in env.items()), *daemon_argv()]
    await anyio.to_thread.run_sync(ensure_daemon, place, argv)
    async with await anyio.connect_unix(place.socket) as stream:
        await stream.send(b'{"cwd": 7}\n')
        answer = await stream.receive()
        assert answer.startswith(b"error ") and b"cwd" in answer
    # A probe that connects and leaves at once ends nothing but itself.
    probe = await anyio.connect_unix(place.socket)
    await probe.aclose()
    async with await anyio.connect_unix(place.socket) as stream:
        other = Attachment(str(tmp_path), str(tmp_path / "absent.json"), home="/elsewhere")
        await stream.send(other.line())
        answer = await stream.receive()
        assert answer.startswith(b"error ") and b"not /elsewhere" in answer
    async with await anyio.connect_unix(place.socket) as stream:
        await stream.send(Attachment(str(tmp_path), str(tmp_path / "absent.json")).line())
        assert await stream.receive() == b"ok\n"
    await daemon_gone(runtime)


def test_the_peer_of_a_socket_is_known_by_its_user_id(tmp_path: Path) -> None:
    left, right = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    with left, right:
        assert peer_uid(left) == os.getuid()


def test_a_folder_others_may_enter_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "open"
    (folder / "agentty").mkdir(parents=True, mode=0o755)
    (folder / "agentty").chmod(0o755)
    with pytest.raises(Exception, match="not a private folder"):
        rendezvous({"XDG_RUNTIME_DIR": str(folder)})


def test_each_home_has_a_daemon_of_its_own_and_a_socket_path_too_long_is_refused(
    runtime: Path, tmp_path: Path
) -> None:
    """A host run with another ``HOME`` (a sandbox, a test's fake home) is served by a daemon
    of that home, not refused by another's; a folder too deep for a socket is said."""
    one = rendezvous({"XDG_RUNTIME_DIR": str(runtime), "HOME": "/home/one"})
    two = rendezvous({"XDG_RUNTIME_DIR": str(runtime), "HOME": "/home/two"})
    assert one.folder == two.folder and one.socket != two.socket and one.lock != two.lock
    deep = tmp_path / ("d" * 100)
    deep.mkdir(mode=0o700)
    with pytest.raises(Exception, match="too long a path for a Unix socket"):
        rendezvous({"XDG_RUNTIME_DIR": str(deep)})


async def test_a_peer_of_another_user_is_refused_before_a_byte_is_read(
    runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The daemon, in this process, told it runs as another user than its peer: the
    connection is closed without an answer, and the daemon goes on."""
    from agentty_tui.gateway.daemon import process as daemon

    place = rendezvous({"XDG_RUNTIME_DIR": str(runtime)})
    async with anyio.create_task_group() as group:
        group.start_soon(daemon.run_daemon, place, 0.5)
        with anyio.fail_after(10):
            while not place.socket.exists():  # noqa: ASYNC110 (no event for a file made)
                await anyio.sleep(0.01)
        real = os.getuid()
        monkeypatch.setattr(os, "getuid", lambda: real + 1)
        async with await anyio.connect_unix(place.socket) as stream:
            await stream.send(Attachment(str(tmp_path)).line())
            with pytest.raises((anyio.EndOfStream, anyio.BrokenResourceError)):
                await stream.receive()
        monkeypatch.setattr(os, "getuid", lambda: real)
        async with await anyio.connect_unix(place.socket) as stream:
            await stream.send(b"not json\n")
            assert (await stream.receive()).startswith(b"error ")
    assert not place.socket.exists()  # gone when idle


@pytest.mark.parametrize("mode", MODES)
async def test_a_daemon_killed_is_replaced_under_its_hosts_which_hear_the_list_changed(
    config: Path, runtime: Path, tmp_path: Path, mode: str
) -> None:
    """``kill -9`` of the daemon: its server goes with it; the attached host's ``serve``
    starts a new daemon, tells it the host's session again (its listen stream too, in the
    2026-07-28 era), and says ``tools/list_changed`` where the host listens; the host's next
    call reaches a new server process, and a toggle after reaches it through the new daemon."""
    notices = Notices()
    async with attached(config, runtime, tmp_path / "one", notices, mode) as host:
        before = int(text_of(await host.call_tool("alpha__pid", {})))
        daemon = int(rendezvous({"XDG_RUNTIME_DIR": str(runtime)}).pid.read_text())
        os.kill(daemon, signal.SIGKILL)
        await notices.until(1, timeout=60)  # a new daemon's start: seconds on a loaded machine
        after = int(text_of(await host.call_tool("alpha__pid", {})))
        assert after != before and process_alive(after)
        assert not process_alive(daemon)
        assert "alpha__echo" in {tool.name for tool in (await host.list_tools()).tools}
        await disable(config, "alpha", "echo")
        await notices.until(2)
        assert "alpha__echo" not in {tool.name for tool in (await host.list_tools()).tools}
    await daemon_gone(runtime)
    await wait_until_gone(after)


async def test_a_call_made_while_its_serve_starts_a_new_daemon_is_answered_once_by_it(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    """``kill -9`` of the daemon, then a call while the host's ``serve`` holds the start lock
    (starting the next daemon): no daemon took the call, so the new one answers it, and the
    host does not get "restarted: ask again" for it (nor two answers for one id)."""
    notices = Notices()
    async with attached(config, runtime, tmp_path / "one", notices) as host:
        before = int(text_of(await host.call_tool("alpha__pid", {})))
        place = rendezvous({"XDG_RUNTIME_DIR": str(runtime)})
        os.kill(int(place.pid.read_text()), signal.SIGKILL)
        with anyio.fail_after(30):
            while not _held(place.lock):  # noqa: ASYNC110 (another process's lock: no event)
                await anyio.sleep(0.005)
        after = int(text_of(await host.call_tool("alpha__pid", {})))
        assert after != before and process_alive(after)


def _held(lock: Path) -> bool:
    """Whether another process holds ``lock`` (the daemon's start lock) right now."""
    try:
        with open(lock, "rb") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(handle, fcntl.LOCK_UN)
            return False
    except FileNotFoundError:
        return False


async def test_status_shows_the_daemon_its_hosts_and_their_one_server(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    env = environment(runtime)

    async def status(*extra: str) -> str:
        done = await anyio.run_process(
            [sys.executable, "-m", "agentty_tui", "status", *extra], env=env, check=False
        )
        assert done.returncode == 0, done.stderr.decode()
        return done.stdout.decode()

    assert "no gateway daemon answers" in await status()
    async with (
        attached(config, runtime, tmp_path / "one") as first,
        attached(config, runtime, tmp_path / "two"),
    ):
        pid = int(text_of(await first.call_tool("alpha__pid", {})))
        found = json.loads(await status("--json"))["daemon"]
        assert len(found["hosts"]) == 2
        (workspace,) = found["workspaces"]
        assert [(s["name"], s["status"], s["pid"]) for s in workspace["servers"]] == [
            ("alpha", "connected", pid)
        ]
        text = await status()
        assert "2 host(s) attached" in text and f"alpha  connected  4 tools  pid {pid}" in text
    await daemon_gone(runtime)


def test_the_relay_to_the_daemon_imports_neither_the_model_nor_the_sdk(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    """``serve --shared`` is a relay of bytes: one a host, so it must stay small (a gateway
    in process imports the SDK, the model and the bridge)."""
    env = {**environment(runtime), "PYTHONDONTWRITEBYTECODE": "1"}
    argv = [sys.executable, "-X", "importtime", "-m", "agentty_tui", "serve", "--shared"]
    done = subprocess.run(
        [*argv, "--config", str(config)],
        env=env,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    assert "agentty_tui.gateway.stdio.shared" in imported  # the check reads what it should
    heavy = {"mcp", "mcp_types", "pydantic", "httpx", "textual", "agentty_tui.model"}
    assert not heavy & imported


_RECORDING_DAEMON = """
import sys

events = open(sys.argv[1], "a", buffering=1)
seen = set()


def record(event, args):
    # Observed, not changed: the audit hook sees every import and every process spawned.
    if event == "import" and args[0] in ("mcp", "mcp_types") and args[0] not in seen:
        seen.add(args[0])
        events.write(f"import {args[0]}\\n")
    elif event == "subprocess.Popen":
        events.write("spawn " + " ".join(map(str, args[1] or ())) + "\\n")


sys.addaudithook(record)
from agentty_tui.cli import main

sys.exit(main(["gateway-daemon"]))
"""


async def test_the_daemon_spawns_a_workspaces_servers_before_it_imports_the_sdk(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    """The daemon reads the first attachment, starts that workspace's stdio servers, then
    imports the SDK (with the bridge and the host server), whose session takes the process
    already started: the order its audit hook saw, and one process serving the host."""
    place = rendezvous({"XDG_RUNTIME_DIR": str(runtime)})
    events = tmp_path / "events.txt"
    env = {**environment(runtime), "PYTHONPATH": os.pathsep.join(sys.path)}
    program = [sys.executable, "-c", _RECORDING_DAEMON, str(events)]
    argv = ["/usr/bin/env", *(f"{k}={v}" for k, v in env.items()), *program]
    await anyio.to_thread.run_sync(ensure_daemon, place, argv)
    async with attached(config, runtime, tmp_path / "host") as host:
        pid = int(text_of(await host.call_tool("alpha__pid", {})))
        assert process_alive(pid)
    lines = events.read_text().splitlines()
    spawns = [n for n, line in enumerate(lines) if line.startswith("spawn ") and "alpha" in line]
    assert len(spawns) == 1, lines  # the bridge's session took it: not spawned again
    assert "import mcp" in lines and "import mcp_types" in lines, lines
    assert spawns[0] < lines.index("import mcp") and spawns[0] < lines.index("import mcp_types")
    await daemon_gone(runtime)
