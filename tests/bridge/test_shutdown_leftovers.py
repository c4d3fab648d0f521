"""What a run killed by SIGKILL left is ended at the next start, and nothing else is.

Real processes (``sleep``) carry a run's token as a server's descendants do; real record files
in the test's own state folder (conftest points ``XDG_STATE_HOME`` there).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from agentty_tui.bridge import shutdown
from agentty_tui.bridge.reaper import SESSION_VARIABLE, start_time
from agentty_tui.bridge.stdio import death_signal_argv
from tests.helpers import process_alive

pytestmark = [pytest.mark.anyio, pytest.mark.xdist_group("process-table")]

OTHER_RUN = "0123456789abcdef"
"""The run token of an earlier run (any 16 hex digits not ours)."""


@pytest.fixture
def carriers() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Processes started by ``carrier``; killed after the test."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        process.kill()
        process.wait()


def carrier(started: list[subprocess.Popen[bytes]], run: str) -> int:
    """A ``sleep`` that carries a token of ``run``, as a server of that run does; its pid."""
    env = {**os.environ, SESSION_VARIABLE: f"{run}-00000000deadbeef"}
    process = subprocess.Popen(["sleep", "600"], env=env)
    started.append(process)
    return process.pid


def record(run: str, pid: int, start: int | None) -> Path:
    """A record of ``run`` whose app is ``pid`` started at ``start``, in this boot."""
    folder = shutdown.runs_folder()
    folder.mkdir(parents=True, exist_ok=True)
    boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    path = folder / f"{run}.json"
    path.write_text(json.dumps({"run": run, "pid": pid, "start": start, "boot": boot}))
    return path


def gone_app() -> tuple[int, int]:
    """The pid and start time of a process that has exited."""
    process = subprocess.Popen(["true"])
    start = start_time(process.pid)
    process.wait()
    assert start is not None
    return process.pid, start


async def test_a_run_whose_app_is_gone_has_its_processes_ended_and_its_record_removed(
    carriers: list[subprocess.Popen[bytes]],
) -> None:
    left, other = carrier(carriers, OTHER_RUN), carrier(carriers, "f" * 16)
    untagged = carrier(carriers, "")  # "-0000…": a value of no run
    path = record(OTHER_RUN, *gone_app())
    with anyio.fail_after(20):
        assert await shutdown.end_leftovers() == 1
    assert not process_alive(left)
    assert process_alive(other), "another run's token"
    assert process_alive(untagged), "a token of no run"
    assert not path.exists()


async def test_a_run_whose_app_still_runs_is_left_alone(
    carriers: list[subprocess.Popen[bytes]],
) -> None:
    pid = carrier(carriers, OTHER_RUN)
    # The app of that run is this test's process: alive, whatever its record's age.
    path = record(OTHER_RUN, os.getpid(), start_time(os.getpid()))
    with anyio.fail_after(20):
        assert await shutdown.end_leftovers() == 0
    assert process_alive(pid)
    assert path.exists()


async def test_a_reused_pid_is_not_taken_for_the_app(
    carriers: list[subprocess.Popen[bytes]],
) -> None:
    """The record's pid names a live process, but one that started at another time."""
    pid = carrier(carriers, OTHER_RUN)
    own = start_time(os.getpid())
    assert own is not None
    record(OTHER_RUN, os.getpid(), own - 1)
    with anyio.fail_after(20):
        assert await shutdown.end_leftovers() == 1
    assert not process_alive(pid)


async def test_our_own_run_is_recorded_while_it_runs_and_forgotten_after() -> None:
    path = shutdown.record_run()
    assert path is not None
    assert json.loads(path.read_text())["pid"] == os.getpid()
    with anyio.fail_after(20):
        assert await shutdown.end_leftovers() == 0, "our own record is never a leftover"
    assert path.exists()
    shutdown.forget_run()
    assert not path.exists()


@pytest.mark.parametrize(("parent", "ran"), [("ours", True), ("another", False)])
def test_a_child_runs_only_while_its_parent_is_the_app(parent: str, ran: bool) -> None:
    """After the death signal is set, the child checks its parent is still the app: an app
    that died just before (the child re-parented) would never send it."""
    expected = os.getpid() if parent == "ours" else os.getpid() + 1
    argv = death_signal_argv(["sh", "-c", "echo ran"], expected)
    assert argv[0].endswith("setpriv"), "this test needs util-linux's setpriv"
    result = subprocess.run(argv, capture_output=True, check=False)
    assert (result.stdout == b"ran\n") is ran
    assert result.returncode == (0 if ran else 143)
