"""The picker as a real process under a pseudo-terminal: however it ends, nothing stays.

``q``, ``kill`` (SIGTERM) and a closed terminal (SIGHUP) all stop every server, its escaped
descendants included, and give the terminal back (the alternate screen is left).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import signal
import struct
import sys
import termios
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import anyio.abc
import pytest

from agentty_tui.bridge.logs import log_file_name
from tests.conftest import WriteConfig
from tests.helpers import process_alive, stdio_entry
from tests.processes import GRANDCHILD, SERVER, faulty, logged

pytestmark = pytest.mark.anyio

LEAVE_ALT_SCREEN = b"\x1b[?1049l"
"""What Textual writes when it gives the terminal back."""

FIRST_FRAME = b"on the wire"
"""The status bar's text: the last widget of the first full frame."""


class Terminal:
    """The master side of the picker's pseudo-terminal: everything it wrote, and its exit."""

    def __init__(self, process: anyio.abc.Process, master: int) -> None:
        self.process = process
        self.master = master
        self.output = bytearray()

    async def read_until(self, mark: bytes) -> None:
        """Read until ``mark`` has been written (the caller bounds the time)."""
        while mark not in self.output:
            await self._read_some()

    async def exit_status(self) -> int:
        """Keep the terminal drained (a child that cannot write never exits) until it exits."""
        while (status := self.process.returncode) is None:
            await self._read_some()
        with contextlib.suppress(OSError):  # what it wrote last
            await self._read_some()
        return status

    async def _read_some(self) -> None:
        with anyio.move_on_after(0.05):  # the exit gives no event: look at it between reads
            await anyio.wait_readable(self.master)
            try:
                self.output += os.read(self.master, 65536)
            except OSError:  # EIO: the child closed its side
                await anyio.sleep(0.05)


@contextlib.asynccontextmanager
async def picker(config: Path) -> AsyncIterator[Terminal]:
    """``agentty-tui --config CONFIG`` under a 120 x 40 pty; killed if still running after."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"}
    command = [sys.executable, "-m", "agentty_tui", "--config", str(config)]
    process = await anyio.open_process(
        command, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True
    )
    os.close(slave)
    try:
        yield Terminal(process, master)
    finally:
        if process.returncode is None:
            os.killpg(process.pid, signal.SIGKILL)
        await process.wait()
        os.close(master)


async def _started(terminal: Terminal, log: Path) -> tuple[int, int]:
    """Wait for the first frame and the connected server; its PID and its grandchild's."""
    await terminal.read_until(FIRST_FRAME)
    grandchild = await logged(log, GRANDCHILD, "connected")
    return await logged(log, SERVER), grandchild


def _log(tmp_path: Path, server: str, config: Path) -> Path:
    """Where the CLI child writes ``server``'s log (conftest points XDG_STATE_HOME there)."""
    return tmp_path / "state" / "agentty" / "logs" / log_file_name(server, config)


async def test_setsid_grandchild_is_gone_after_quit(
    write_config: WriteConfig, tmp_path: Path
) -> None:
    path = write_config({"forker": stdio_entry(faulty("setsid-grandchild"))})
    with anyio.fail_after(60):
        async with picker(path) as terminal:
            server, grandchild = await _started(terminal, _log(tmp_path, "forker", path))
            os.write(terminal.master, b"q")
            assert await terminal.exit_status() == 0
    assert not process_alive(server)
    assert not process_alive(grandchild)


@pytest.mark.parametrize(("sig", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
async def test_a_stop_signal_ends_the_picker_and_its_stubborn_server(
    sig: signal.Signals, status: int, write_config: WriteConfig, tmp_path: Path
) -> None:
    path = write_config({"stubborn": stdio_entry(faulty("setsid-grandchild", "--stubborn"))})
    log = _log(tmp_path, "stubborn", path)
    with anyio.fail_after(60):
        async with picker(path) as terminal:
            server, grandchild = await _started(terminal, log)
            seen = len(terminal.output)
            terminal.process.send_signal(sig)
            assert await terminal.exit_status() == status
    after = bytes(terminal.output[seen:])
    assert LEAVE_ALT_SCREEN in after, "the terminal is given back"
    assert f"agentty-tui: stopped by {sig.name}".encode() in after.split(LEAVE_ALT_SCREEN)[-1]
    assert not process_alive(server), "the server ignores EOF and SIGTERM: it needed SIGKILL"
    assert not process_alive(grandchild)
    assert "SIGTERM" in log.read_text(), "stopped with the usual escalation"


async def test_a_closed_terminal_ends_the_picker_and_its_servers(
    write_config: WriteConfig, tmp_path: Path
) -> None:
    """The terminal goes away for real: its master is closed, then SIGHUP arrives."""
    path = write_config({"stubborn": stdio_entry(faulty("setsid-grandchild", "--stubborn"))})
    with anyio.fail_after(60):
        async with picker(path) as terminal:
            server, grandchild = await _started(terminal, _log(tmp_path, "stubborn", path))
            os.close(terminal.master)
            terminal.master = os.open(os.devnull, os.O_RDONLY)  # closed again by picker()
            terminal.process.send_signal(signal.SIGHUP)
            assert await terminal.process.wait() == 129
    assert not process_alive(server)
    assert not process_alive(grandchild)
