"""The picker attached to the real gateway daemon (``RemoteSource``): pilot tests.

A host (an SDK client through ``serve --shared``) starts the daemon in the test's runtime
folder; the picker attaches to it from this process as ``run_picker`` does, toggles, and the
host hears ``tools/list_changed``. The daemon killed under the picker is said on screen.
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
import pytest
from textual.widgets import Static

from agentty_tui.gateway.rendezvous import rendezvous
from agentty_tui.ui.app import PickerApp
from agentty_tui.ui.dialogs import ToolDetailsScreen
from tests.gateway.conftest import runtime
from tests.gateway.daemon.test_process import attached, daemon_gone, environment, text_of
from tests.gateway.hosts import Notices
from tests.gateway.picker.test_remote_source import config, picker_source
from tests.helpers import process_alive
from tests.ui.fakes import settle
from tests.ui.test_app_live import until
from tests.ui.test_run import Terminal

pytestmark = pytest.mark.anyio

__all__ = ["config", "runtime"]  # the fixtures, shared with the source's tests


def text(app: PickerApp, selector: str) -> str:
    return str(app.query_one(selector, Static).render())


async def test_the_attached_picker_toggles_for_the_host_and_shows_who_sees_what(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    notices = Notices()
    async with attached(config, runtime, tmp_path / "host", notices) as host:
        pid = int(text_of(await host.call_tool("alpha__pid", {})))
        async with picker_source(config, runtime, tmp_path / "picker") as source:
            app = PickerApp(source)
            async with app.run_test(size=(120, 40)) as pilot:
                await until(pilot, lambda: app.picker.select_key(("tool", "alpha", "add")))
                await until(
                    pilot, lambda: "1 host(s) attached for this workspace" in text(app, "#daemon")
                )
                assert f"gateway daemon {source.daemon.pid}" in text(app, "#title")
                assert f"every host  {config}  since " in text(app, "#daemon")
                await pilot.press("enter")
                assert isinstance(app.screen, ToolDetailsScreen)
                facts = str(app.screen.query_one("#details-facts", Static).render())
                assert "hosts      every host" in facts
                await pilot.press("escape")
                await pilot.press("space")
                await settle(app)
                await notices.until(1)
                listed = {tool.name for tool in (await host.list_tools()).tools}
                assert "alpha__add" not in listed and "alpha__echo" in listed
                await until(pilot, lambda: "3 tools listed" in text(app, "#daemon"))
                assert [s.pid for s in source.snapshot.servers] == [pid]  # no second spawn

                os.kill(source.daemon.pid or 0, signal.SIGKILL)
                await until(pilot, lambda: "daemon gone" in text(app, "#title"))
                assert "the gateway daemon went away" in text(app, "#daemon")
                await pilot.press("space")  # said, not silently dropped
                await until(
                    pilot,
                    lambda: any("went away" in str(n.message) for n in app._notifications),
                )
                await notices.until(2, timeout=60)  # the host's serve started a new daemon
                await host.call_tool("alpha__pid", {})
                await until(
                    pilot, lambda: "1 host(s) attached for this workspace" in text(app, "#daemon")
                )
                new = int(rendezvous({"XDG_RUNTIME_DIR": str(runtime)}).pid.read_text())
                assert f"gateway daemon {new}" in text(app, "#title")
    await daemon_gone(runtime)


@contextlib.asynccontextmanager
async def picker_process(config: Path, runtime: Path, *extra: str) -> AsyncIterator[Terminal]:
    """``agentty-tui --config CONFIG [EXTRA]`` under a 120 x 40 pty, its runtime folder the
    test daemon's; killed if still running after."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    env = {**os.environ, **environment(runtime), "TERM": "xterm-256color"}
    command = [sys.executable, "-m", "agentty_tui", "--config", str(config), *extra]
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
        os.close(master)


@pytest.mark.parametrize("alone", [False, True], ids=["attached", "no-daemon"])
async def test_the_picker_command_attaches_to_a_running_daemon_unless_told_not_to(
    config: Path, runtime: Path, tmp_path: Path, alone: bool
) -> None:
    """``agentty-tui`` with a daemon running: its title names the daemon, and the server's one
    process is the host's; ``--no-daemon``: a picker of its own, which starts its own."""
    async with attached(config, runtime, tmp_path / "host") as host:
        pid = int(text_of(await host.call_tool("alpha__pid", {})))
        extra = ("--no-daemon",) if alone else ()
        async with picker_process(config, runtime, *extra) as terminal:
            with anyio.fail_after(60):
                await terminal.read_until(b"on the wire")
                if not alone:
                    await terminal.read_until(b"host(s)")
            title = b"gateway daemon"
            assert (title in terminal.output) is not alone
            me = terminal.process.pid
            children = anyio.Path(f"/proc/{me}/task/{me}/children")
            if alone:  # servers of its own: started once the first frame is out
                with anyio.fail_after(30):
                    while not (await children.read_text()).split():  # noqa: ASYNC110 - /proc
                        await anyio.sleep(0.02)
            else:
                assert (await children.read_text()).split() == []
            os.write(terminal.master, b"q")
            with anyio.fail_after(60):
                assert await terminal.exit_status() == 0
        assert process_alive(pid)  # the host's server went on
