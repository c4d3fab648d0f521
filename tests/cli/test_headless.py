"""The config-only commands run without an event loop (``cli.headless.run_headless``), and a stop
signal that arrives during their edit still lets the edit end whole before the process does."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import anyio
import anyio.abc
import pytest

from agentty_tui.config.locking import lock_path, locked


async def _all_of(stream: anyio.abc.ByteReceiveStream) -> bytes:
    """Everything ``stream`` gives until its end."""
    chunks = [chunk async for chunk in stream]
    return b"".join(chunks)


def _has_open(pid: int, path: Path) -> bool:
    """Whether process ``pid`` has ``path`` open."""
    folder = Path(f"/proc/{pid}/fd")
    try:
        links = [os.readlink(folder / name) for name in os.listdir(folder)]
    except OSError:
        return False
    return str(path) in links


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("sig", "status", "said"),
    [
        (signal.SIGTERM, 128 + signal.SIGTERM, "agentty-tui: stopped by SIGTERM\n"),
        (signal.SIGHUP, 128 + signal.SIGHUP, "agentty-tui: stopped by SIGHUP\n"),
        (signal.SIGINT, 130, ""),
    ],
)
async def test_a_stop_signal_during_a_config_edit_lets_the_edit_finish(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    sig: signal.Signals,
    status: int,
    said: str,
) -> None:
    """The command waits for the config's lock (held here) when the signal comes; once the
    lock is free it writes, and then exits with the signal's status (what the app's event loop
    did: a command is not stopped between two awaits). Obeyed at once, as Python's default
    would, the signal would end it with nothing written."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)  # the lock in the test's own folder
    monkeypatch.delenv("AGENTTY_CONFIG", raising=False)
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"s": {"command": "true"}}}))
    argv = [sys.executable, "-m", "agentty_tui", "disable", "s", "--config", str(config)]
    with locked(config, 5.0, str(config)):
        child = await anyio.open_process(argv)
        with anyio.fail_after(30):
            # Nothing announces that it reached the lock: its open lock file is the sign.
            while not _has_open(child.pid, lock_path(config)):
                assert child.returncode is None, "it ended before it reached the lock"
                await anyio.sleep(0.01)
        # Delivered before it can run another line, so before it can take the lock.
        child.send_signal(sig)
    async with child:
        with anyio.fail_after(30):
            assert child.stdout is not None and child.stderr is not None
            stdout, stderr = await _all_of(child.stdout), await _all_of(child.stderr)
            await child.wait()
    assert child.returncode == status, stderr
    assert stdout.decode() == f"disabled 's' in {config}\n"
    assert stderr.decode() == said
    assert json.loads(config.read_text())["mcpServers"]["s"]["disabled"] is True
