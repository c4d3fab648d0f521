"""The command line leaves no process behind: after it returns, and when it is stopped.

Each test runs a real ``agentty-tui`` process on a real misbehaving server: one whose
grandchild left its session (``setsid``) and ignores SIGTERM, or a daemon that double-forked
away from it, or a server that ignores both its stdin's end and SIGTERM. And when the app is
killed by SIGKILL, or its way out hangs, its servers still end.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from agentty_tui.bridge.logs import log_file_name
from tests.conftest import WriteConfig
from tests.helpers import process_alive, stdio_entry
from tests.processes import GRANDCHILD, SERVER, faulty, logged

pytestmark = pytest.mark.anyio


def _log(tmp_path: Path, server: str, config: Path) -> Path:
    """Where the CLI child writes ``server``'s log (conftest points XDG_STATE_HOME there)."""
    return tmp_path / "state" / "agentty" / "logs" / log_file_name(server, config)


async def _cli(*args: str) -> subprocess.CompletedProcess[bytes]:
    command = [sys.executable, "-m", "agentty_tui", *args]
    with anyio.fail_after(60):
        return await anyio.run_process(command, check=False)


@pytest.mark.parametrize("fault", ["setsid-grandchild", "daemon"])
async def test_no_descendant_outlives_list(
    fault: str, write_config: WriteConfig, tmp_path: Path
) -> None:
    """``daemon``'s grandchild is re-parented before any stop: only the subreaper holds it."""
    path = write_config({"forker": stdio_entry(faulty(fault))})
    result = await _cli("list", "--config", str(path))
    assert result.returncode == 0, result.stderr
    assert b"grandchild_pid" in result.stdout
    log = _log(tmp_path, "forker", path)
    grandchild = await logged(log, GRANDCHILD)
    server = await logged(log, SERVER)
    # Ended before the command returned: no waiting here.
    assert not process_alive(grandchild)
    assert not process_alive(server)


@pytest.mark.parametrize(("sig", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
async def test_a_stop_signal_ends_a_command_and_its_stubborn_server(
    sig: signal.Signals, status: int, write_config: WriteConfig, tmp_path: Path
) -> None:
    path = write_config({"stubborn": stdio_entry(faulty("setsid-grandchild", "--stubborn"))})
    command = [sys.executable, "-m", "agentty_tui", "call", "stubborn", "hang", "--config"]
    log = _log(tmp_path, "stubborn", path)
    with anyio.fail_after(120):  # a server of the SDK and the app's imports, on a loaded machine
        async with await anyio.open_process([*command, str(path)]) as process:
            await logged(log, GRANDCHILD, "hang: call received")
            grandchild, server = await logged(log, GRANDCHILD), await logged(log, SERVER)
            process.send_signal(sig)
            assert process.stderr is not None
            stderr = b"".join([chunk async for chunk in process.stderr])
            assert await process.wait() == status
    assert stderr.decode() == f"agentty-tui: stopped by {sig.name}\n"
    assert not process_alive(server), "the server ignores EOF and SIGTERM: it needed SIGKILL"
    assert not process_alive(grandchild)
    assert "SIGTERM" in log.read_text(), "stopped with the usual escalation"


async def test_a_killed_apps_server_dies_with_it_and_the_next_start_ends_its_grandchild(
    write_config: WriteConfig, tmp_path: Path
) -> None:
    """``kill -9`` of the app: the server (it ignores its stdin's end) gets SIGTERM from the
    kernel; its grandchild (out of its session, deaf to SIGTERM) is ended by the next start."""
    path = write_config({"lingering": stdio_entry(faulty("setsid-grandchild", "--linger"))})
    log = _log(tmp_path, "lingering", path)
    command = [sys.executable, "-m", "agentty_tui", "call", "lingering", "hang", "--config"]
    with anyio.fail_after(120):  # a server of the SDK and the app's imports, on a loaded machine
        async with await anyio.open_process([*command, str(path)]) as process:
            await logged(log, GRANDCHILD, "hang: call received")
            grandchild, server = await logged(log, GRANDCHILD), await logged(log, SERVER)
            process.kill()
            assert await process.wait() == -signal.SIGKILL
    try:
        with anyio.fail_after(10):
            while process_alive(server):  # noqa: ASYNC110 - no event fires when a process ends
                await anyio.sleep(0.02)
        assert process_alive(grandchild), "the death signal is not inherited: it is still there"
        empty = write_config({})
        result = await _cli("list", "--config", str(empty))
        assert result.returncode == 0, result.stderr
        assert b"agentty-tui: ended 1 server left by an earlier run\n" in result.stderr
        assert not process_alive(grandchild)
        again = await _cli("list", "--config", str(empty))
        assert b"left by an earlier run" not in again.stderr, "said once, for what it ended"
    finally:
        for pid in (server, grandchild):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


HUNG_APP = """
import sys, time
from pathlib import Path
import anyio
from agentty_tui.bridge import Bridge
from agentty_tui.bridge import shutdown
from agentty_tui.config import ConfigStore

shutdown.FORCE_DEADLINE = 2.0

async def main(request):
    async with Bridge(ConfigStore(Path(sys.argv[1])), log_dir=Path(sys.argv[2])) as bridge:
        await bridge.settled(30)
        print("ready", flush=True)
        time.sleep(600)  # the event loop's thread blocked, as a UI stuck on a dead terminal
    return 0

sys.exit(shutdown.run_app(main))
"""
"""An app whose orderly way out never runs: its event loop's thread blocks for good."""


async def test_an_app_stuck_in_its_way_out_still_ends_its_servers_and_exits(
    write_config: WriteConfig, tmp_path: Path
) -> None:
    path = write_config({"stubborn": stdio_entry(faulty("setsid-grandchild", "--stubborn"))})
    logs = tmp_path / "logs"
    log = logs / log_file_name("stubborn", path)
    with anyio.fail_after(120):  # a server of the SDK and the app's imports, on a loaded machine
        async with await anyio.open_process(
            [sys.executable, "-c", HUNG_APP, str(path), str(logs)]
        ) as process:
            assert process.stdout is not None and process.stderr is not None
            said = b""
            while not said.endswith(b"\n"):  # a pipe may hand the line over in pieces
                said += await process.stdout.receive()
            assert said == b"ready\n"
            grandchild, server = await logged(log, GRANDCHILD), await logged(log, SERVER)
            process.send_signal(signal.SIGTERM)
            with anyio.fail_after(10):  # the deadline is 2 s
                status = await process.wait()
            stderr = b"".join([chunk async for chunk in process.stderr])
    assert status == 143
    assert b"still running 2 s after the stop request" in stderr
    assert not process_alive(server)
    assert not process_alive(grandchild)
