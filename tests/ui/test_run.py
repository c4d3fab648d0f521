"""The picker as a real process under a pseudo-terminal: however it ends, nothing stays.

``q``, ``kill`` (SIGTERM) and a closed terminal (SIGHUP, or only its master closed, at any
moment of start-up or shutdown) all stop every server, its escaped descendants included, and
give the terminal back (the alternate screen is left) where there still is one.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import random
import signal
import struct
import sys
import termios
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import anyio.abc
import pytest
from textual.app import App

from agentty_tui.bridge.logs import log_file_name
from agentty_tui.bridge.shutdown import TERMINAL_GONE
from agentty_tui.ui.run import DeadTerminalDriver
from tests.conftest import WriteConfig
from tests.helpers import process_alive, stdio_entry
from tests.processes import GRANDCHILD, SERVER, faulty, logged
from tests.servers import python_server_argv

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
    terminal = Terminal(process, master)
    try:
        yield terminal
    finally:
        if process.returncode is None:
            os.killpg(process.pid, signal.SIGKILL)
        await process.wait()
        os.close(terminal.master)  # a test that closed the master put another descriptor here


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


ROUNDS = 50
SEED = 19
PARALLEL = 4
"""Pickers run at once: start-up is mostly imports, one CPU's work for a second or more."""

EXIT_BOUND = 45.0
"""Seconds from the terminal's end (or ``q``) to the exit: the rest of a start-up on a loaded
machine and the way out; a hang is for ever, and the app log says whether the deadline (the
last resort, 8 s after the hangup) had to end it."""


def _marked_processes(marker: str) -> list[int]:
    """Processes whose command line holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
    return found


async def _one_ending(config: Path, action: str, moment: float, gap: float) -> None:
    """Start the picker, and ``moment`` seconds later: close the terminal (``close``), press
    ``q`` (``q``), or press ``q`` and close the terminal ``gap`` seconds after (``q-close``)."""
    async with picker(config) as terminal:
        with anyio.move_on_after(moment):
            await terminal.read_until(b"\0never written")
        if action != "close":
            os.write(terminal.master, b"q")
            with anyio.move_on_after(gap if action == "q-close" else EXIT_BOUND):
                await terminal.exit_status()
        if action != "q":
            os.close(terminal.master)
            terminal.master = os.open(os.devnull, os.O_RDONLY)  # closed again by picker()
        with anyio.fail_after(EXIT_BOUND):
            status = await terminal.process.wait()
    expected = {"close": {129}, "q": {0}, "q-close": {0, 129}}[action]
    assert status in expected, (action, moment, gap, status)


@pytest.mark.slow
async def test_the_picker_and_its_servers_end_however_and_whenever_the_terminal_goes(
    write_config: WriteConfig, tmp_path: Path
) -> None:
    """50 pickers, each ended at a random moment of its start-up or shutdown: its terminal
    closed (no SIGHUP: the picker is not in its foreground), ``q``, or ``q`` then closed."""
    marker = f"ending-{os.getpid()}-{tmp_path.name}"
    servers = {
        f"light{i}": stdio_entry(python_server_argv("light_server.py", "--name", f"{marker}{i}"))
        for i in range(2)
    }
    path = write_config(servers)
    chance = random.Random(SEED)
    plans = [
        (
            chance.choice(("close", "close", "q", "q-close")),
            chance.uniform(0, 3),
            chance.uniform(0, 1),
        )
        for _ in range(ROUNDS)
    ]
    limiter = anyio.CapacityLimiter(PARALLEL)

    async def run(plan: tuple[str, float, float]) -> None:
        async with limiter:
            await _one_ending(path, *plan)

    with anyio.fail_after(ROUNDS * EXIT_BOUND):
        async with anyio.create_task_group() as group:
            for plan in plans:
                group.start_soon(run, plan)
    assert _marked_processes(marker) == [], "no server outlives its picker"
    app_log = tmp_path / "state" / "agentty" / "logs" / "agentty.log"
    assert "after a stop request" not in app_log.read_text(), "each ended in order, in time"


async def test_the_pickers_driver_drops_what_it_writes_once_the_terminal_is_gone() -> None:
    """Textual's own driver hands each write to a thread that a dead terminal has ended (the
    31st then blocks for good): once the terminal is known gone, nothing is handed on, and
    closing does not wait for that thread."""
    driver = DeadTerminalDriver(App())

    def write_much() -> None:
        for _ in range(1000):
            driver.write("x" * 100)

    TERMINAL_GONE.set()
    try:
        writer = threading.Thread(target=write_much, daemon=True)
        writer.start()
        writer.join(timeout=10)
        assert not writer.is_alive()
        driver.close()
    finally:
        TERMINAL_GONE.clear()
    with pytest.raises(AssertionError, match="application mode"):
        driver.write("x")  # with a terminal, writes go to Textual's writer as before
