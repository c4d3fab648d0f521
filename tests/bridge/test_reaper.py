"""Descendants that left the server's process group still end with it (real processes)."""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import anyio.to_thread
import pytest

from agentty_tui.bridge import Bridge, reaper
from agentty_tui.config import ConfigStore
from tests.conftest import WriteConfig
from tests.helpers import process_alive, stdio_entry, wait_until_gone
from tests.processes import GRANDCHILD, exists, faulty

pytestmark = pytest.mark.anyio

SETTLE = 20.0


async def _grandchild(bridge: Bridge, server: str) -> int:
    result = await bridge.call_tool(server, "grandchild_pid")
    pid = int(result.content[0].text)  # type: ignore[union-attr]
    assert process_alive(pid)
    return pid


async def test_setsid_grandchild_is_gone_after_remove_and_the_other_stays(
    write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config(
        {
            "forker": stdio_entry(faulty("setsid-grandchild")),
            "other": stdio_entry(faulty("setsid-grandchild")),
        }
    )
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        await bridge.settled(SETTLE)
        first, second = await _grandchild(bridge, "forker"), await _grandchild(bridge, "other")
        await bridge.plugin_remove("forker")
        await wait_until_gone(first)
        assert process_alive(second), "only the removed server's descendants are ended"
    await wait_until_gone(second)


async def test_setsid_grandchild_is_gone_after_a_reload_replaced_its_server(
    write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config({"forker": stdio_entry(faulty("setsid-grandchild"))})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        await bridge.settled(SETTLE)
        grandchild = await _grandchild(bridge, "forker")
        write_config({"forker": stdio_entry(faulty("setsid-grandchild", "--delay", "1"))})
        await bridge.reload()
        await wait_until_gone(grandchild)
        assert await _grandchild(bridge, "forker") != grandchild


async def test_setsid_grandchild_of_a_stubborn_server_is_gone_when_the_bridge_closes(
    write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config({"forker": stdio_entry(faulty("setsid-grandchild", "--stubborn"))})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        await bridge.settled(SETTLE)
        grandchild = await _grandchild(bridge, "forker")
        server = bridge.server_pid("forker")
        assert server is not None
    # The close returns once everything is ended: no waiting here.
    assert not process_alive(server)
    assert not process_alive(grandchild)


async def _end_session(bridge: Bridge, how: str, path: Path, write_config: WriteConfig) -> None:
    """End the session of server ``daemon`` by a remove, a reload that replaces it, a restart."""
    if how == "remove":
        await bridge.plugin_remove("daemon")
    elif how == "reload":
        changed = stdio_entry(faulty("daemon", "--delay", "1"))
        write_config({"daemon": changed, "other": stdio_entry(faulty("daemon"))})
        await bridge.reload()
    else:
        await bridge.restart("daemon")


@pytest.mark.parametrize("how", ["remove", "reload", "restart"])
async def test_a_double_forked_daemon_ends_with_its_servers_session(
    how: str, write_config: WriteConfig, log_dir: Path
) -> None:
    """Re-parented away (not to us: no subreaper here) and out of the session before any stop,
    the daemon is found by the token in its environment; the other server's daemon is not."""
    path = write_config(
        {"daemon": stdio_entry(faulty("daemon")), "other": stdio_entry(faulty("daemon"))}
    )
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        await bridge.settled(SETTLE)
        first, second = await _grandchild(bridge, "daemon"), await _grandchild(bridge, "other")
        other = bridge.server_pid("other")
        await _end_session(bridge, how, path, write_config)
        await wait_until_gone(first)
        assert process_alive(second), "another server's daemon carries another token"
        assert bridge.server_pid("other") == other, "the other server was not touched"
    await wait_until_gone(second)


@pytest.fixture
def subreaper() -> Iterator[None]:
    """This test process as a child subreaper, as the app is; undone afterwards."""
    assert reaper.enable_subreaper()
    yield
    ctypes.CDLL(None).prctl(reaper.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
    reaper._subreaper = None


@pytest.mark.usefixtures("subreaper")
async def test_a_descendant_re_parented_to_us_is_reaped(
    write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config({"forker": stdio_entry(faulty("setsid-grandchild"))})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        await bridge.settled(SETTLE)
        grandchild = await _grandchild(bridge, "forker")
        await bridge.plugin_remove("forker")
        # Its server exited first, so the grandchild was ours to wait for: not even a zombie.
        with anyio.fail_after(10):
            while exists(grandchild):  # noqa: ASYNC110 - no event fires when a process ends
                await anyio.sleep(0.02)


def _echo() -> subprocess.Popen[bytes]:
    code = "import sys\nfor line in sys.stdin: print(line, end='', flush=True)"
    return subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )


def _answers(process: subprocess.Popen[bytes]) -> bool:
    """A round trip through the process: True only if it runs, neither stopped nor killed."""
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(b"ping\n")
        process.stdin.flush()
    except BrokenPipeError:
        return False
    return process.stdout.readline() == b"ping\n"


async def test_a_pid_that_names_another_process_now_is_never_signalled() -> None:
    process = _echo()
    try:
        start = reaper.start_time(process.pid)
        assert start is not None
        # As recorded for a process that has exited since, its pid given to this one.
        await reaper.kill_tree({process.pid: start - 1}, timeout=0.5)
        with anyio.fail_after(10):
            assert await anyio.to_thread.run_sync(_answers, process)
        await reaper.kill_tree({process.pid: start}, timeout=5)
        assert not process_alive(process.pid)
    finally:
        process.kill()
        process.wait()


async def test_descendants_are_found_by_parent_links() -> None:
    # In a session of its own, as the transport starts a server.
    found: dict[int, int] = {}
    async with await anyio.open_process(
        faulty("setsid-grandchild"), stdout=subprocess.DEVNULL, start_new_session=True
    ) as server:
        try:
            assert server.stderr is not None
            with anyio.fail_after(20):
                line = (await server.stderr.receive()).decode()
            match = GRANDCHILD.search(line)
            assert match is not None, line
            grandchild = int(match.group(1))
            found = reaper.descendants(server.pid)
            assert grandchild in found, "it left the session: found by its parent link"
            assert server.pid not in found
            assert reaper.descendants(grandchild) == {}
        finally:
            server.kill()
            await server.wait()
            await reaper.kill_tree(found)


async def test_descendants_re_parented_already_are_found_by_session() -> None:
    found: dict[int, int] = {}
    async with await anyio.open_process(
        faulty("grandchild"), stdout=subprocess.DEVNULL, start_new_session=True
    ) as server:
        try:
            with anyio.fail_after(20):
                while not found:  # the fork gives no event to wait on
                    found = reaper.descendants(server.pid)
                    await anyio.sleep(0.02)
            server.kill()  # the server alone: its grandchild is re-parented, still running
            await server.wait()
            (grandchild,) = found
            assert process_alive(grandchild)
            assert reaper.descendants(server.pid) == found
        finally:
            with contextlib.suppress(ProcessLookupError):
                server.kill()
            await reaper.kill_tree(found)


async def test_trees_recorded_together_share_a_census_that_started_after_each_ask(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Twelve servers' trees recorded at once, all asking while one read of /proc is under
    way, share a read instead of reading twelve times; and no record gets a census whose read
    started before it asked (it could miss a fork)."""
    reads: list[float] = []
    read, after = reaper.Census.read, reaper.Census.after
    entered = 0
    entered_lock = threading.Lock()
    everyone_asked = threading.Event()

    def counted() -> reaper.Census:
        # The first read waits until every asker is in: however slowly a loaded machine
        # starts the pool's threads, they all ask during it.
        if not reads:
            everyone_asked.wait(20)
        census = read()
        reads.append(census.started)
        return census

    def counting_after(moment: float) -> reaper.Census:
        nonlocal entered
        with entered_lock:
            entered += 1
            if entered == 12:
                everyone_asked.set()
        return after(moment)

    monkeypatch.setattr(reaper.Census, "read", staticmethod(counted))
    monkeypatch.setattr(reaper.Census, "after", staticmethod(counting_after))
    asked: list[tuple[float, float]] = []

    def ask() -> None:
        moment = time.monotonic()
        asked.append((moment, reaper.Census.after(moment).started))

    with anyio.fail_after(30):
        async with anyio.create_task_group() as group:
            for _ in range(12):
                group.start_soon(anyio.to_thread.run_sync, ask)
    assert len(asked) == 12
    assert all(started >= moment for moment, started in asked)
    # The read that was under way began after every ask: one read for all twelve (a fresh
    # read for every ask would be 12).
    assert len(reads) == 1, reads
    later = time.monotonic()
    assert reaper.Census.after(later).started >= later  # an old census is never handed out


_CENSUS = """
import json
import os
import subprocess
import sys

from agentty_tui.bridge import reaper

env = {**os.environ, reaper.SESSION_VARIABLE: "token-of-a-newer-process"}
newer = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], env=env)
try:
    census = reaper.Census.read()
finally:
    newer.kill()
    newer.wait()
print(json.dumps({held.decode(): pid for pid, (_, held) in census.tokens.items()}))
"""


def test_a_census_reads_only_the_environments_of_processes_started_since_its_own() -> None:
    """What carries a token of a process's servers was started after that process: its census
    finds a carrier it started, and does not read the environment of one that is older (the
    rest of the machine, most of ``/proc``)."""
    env = {**os.environ, reaper.SESSION_VARIABLE: "token-of-an-older-process"}
    older = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], env=env)
    try:
        _wait_for_the_next_tick_after(older.pid)
        done = subprocess.run(
            [sys.executable, "-c", _CENSUS],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
            env={**env, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        )
    finally:
        older.kill()
        older.wait()
    found = json.loads(done.stdout)
    assert "token-of-a-newer-process" in found
    assert "token-of-an-older-process" not in found


def _wait_for_the_next_tick_after(pid: int) -> None:
    """Return once the clock ticks that start times count (``/proc/uptime`` in ticks) are past
    ``pid``'s own start: a process started now is seen as started after it."""
    start = reaper.start_time(pid)
    assert start is not None
    ticks = os.sysconf("SC_CLK_TCK")
    deadline = time.monotonic() + 10
    while float(Path("/proc/uptime").read_text().split()[0]) * ticks <= start + 1:
        assert time.monotonic() < deadline, "the clock did not move"
        time.sleep(0.005)  # polled: a tick is 10 ms and gives no event to wait on
