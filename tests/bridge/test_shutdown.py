"""The command line leaves no process behind: after it returns, and when it is stopped.

Each test runs a real ``agentty-tui`` process on a real misbehaving server: one whose
grandchild left its session (``setsid``) and ignores SIGTERM, or a daemon that double-forked
away from it, or a server that ignores both its stdin's end and SIGTERM.
"""

from __future__ import annotations

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
    with anyio.fail_after(60):
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
