"""Run the picker on a config: its first frame, the bridge started, the app, every server stopped.

The first frame comes from the config alone (``bridge/starting.py``): once it is on screen the
servers' processes start, and the SDK is imported while they boot. When the user's gateway
daemon runs, the picker attaches to it instead (``gateway.picker.remote_source``): it starts no
server, its operations go to the daemon, and it shows the hosts attached; without a daemon (or
with ``--no-daemon``) it runs its own bridge.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio
from textual.drivers.linux_driver import LinuxDriver

from agentty_tui.bridge.logs import default_log_dir, quiet_logging
from agentty_tui.bridge.shutdown import TERMINAL_GONE, StopRequest, run_app
from agentty_tui.bridge.starting import StartingSource
from agentty_tui.ui.app import PickerApp
from agentty_tui.ui.source import PluginSource

if TYPE_CHECKING:
    from agentty_tui.gateway.attachment import Attachment
    from agentty_tui.gateway.rendezvous import Rendezvous

__all__ = ["DeadTerminalDriver", "run_picker"]


class DeadTerminalDriver(LinuxDriver):
    """Textual's Linux driver, minus its hang on a terminal that is gone.

    Textual writes through a thread fed by a queue of at most 30 writes; that thread ends at
    the first write that fails (EIO, once the terminal hung up), and the 31st write after it
    blocks the event loop for good: the way out alone writes more than that (modes off, the
    alternate screen left), so the servers were never stopped. Once the terminal is known gone
    (``shutdown.TERMINAL_GONE``, set by its watcher as soon as it hangs up), writes are
    dropped, and closing does not wait for that thread.
    """

    def write(self, data: str) -> None:
        """Write ``data`` to the terminal, if there still is one."""
        if not TERMINAL_GONE.is_set():
            super().write(data)

    def close(self) -> None:
        """Stop the writing thread, unless the terminal is gone (it may be stuck, or ended)."""
        if not TERMINAL_GONE.is_set():
            super().close()


class _Picker(PickerApp):
    """The picker that says when its first frame is on screen (``first_frame``)."""

    def __init__(self, source: PluginSource) -> None:
        super().__init__(source, freeze_heap=True, count_tokens=True)
        self.first_frame = anyio.Event()
        """Set once the first frame has been written (Textual's ``Ready``)."""

    def on_ready(self) -> None:
        """The first frame is on screen: the bridge may start loading the SDK."""
        self.first_frame.set()


def run_picker(source: StartingSource, daemon: tuple[Attachment, Rendezvous] | None = None) -> int:
    """Open the picker on ``source`` (not yet run: here its bridge starts the servers, of a
    project's workspace or of the one file of ``--config``); returns the exit code once every
    server is stopped. ``daemon``: the picker's attachment and the user's rendezvous; when a
    daemon answers there, the picker attaches to it and ``source`` is never run.

    The bridge's exit is shielded, so the servers stop even when the app ends by an error; the
    terminal is restored by the app before that. SIGTERM, SIGHUP and a terminal that hangs up
    end the app as ``q`` does (the exit code is then 128 + the signal's number).
    """
    quiet_logging(default_log_dir())

    async def main(request: StopRequest) -> int:
        if daemon is not None:
            from agentty_tui.gateway.picker.remote_source import RemoteSource

            async with RemoteSource.attached(*daemon) as remote:
                if remote is not None:
                    return await _run(_Picker(remote), request)
        source.load()
        app = _Picker(source)
        async with anyio.create_task_group() as running:
            running.start_soon(source.run, app.first_frame)
            try:
                status = await _run(app, request)
            finally:
                app.first_frame.set()  # an app that never drew a frame still lets it end
                source.close()
        return status

    return run_app(main)


async def _run(app: PickerApp, request: StopRequest) -> int:
    """Run ``app`` until it ends; its exit code."""
    if app.driver_class is LinuxDriver:  # Linux and macOS; not under a test's pilot
        app.driver_class = DeadTerminalDriver
    # The app's own way out, so that it restores the terminal before the servers stop.
    request.handler = app.exit
    await app.run_async()
    return app.return_code or 0
