"""Run the picker on a config file: start the bridge, run the app, stop every server.

When the user's gateway daemon runs, the picker attaches to it instead
(``gateway.remote_source``): it starts no server, its operations go to the daemon, and it
shows the hosts attached; without a daemon (or with ``--no-daemon``) it runs its own bridge.
"""

from __future__ import annotations

import anyio
from textual.drivers.linux_driver import LinuxDriver

from agentty_tui.bridge import Bridge
from agentty_tui.bridge.logs import quiet_logging
from agentty_tui.bridge.shutdown import TERMINAL_GONE, StopRequest, run_app
from agentty_tui.gateway.attachment import Attachment
from agentty_tui.gateway.remote_source import RemoteSource
from agentty_tui.gateway.rendezvous import Rendezvous
from agentty_tui.ui.app import PickerApp
from agentty_tui.ui.source import PluginSource

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


def run_picker(bridge: Bridge, daemon: tuple[Attachment, Rendezvous] | None = None) -> int:
    """Open the picker on ``bridge`` (not yet entered: here it starts the servers, of a
    project's workspace or of the one file of ``--config``); returns the exit code once every
    server is stopped. ``daemon``: the picker's attachment and the user's rendezvous; when a
    daemon answers there, the picker attaches to it and ``bridge`` is never entered.

    The bridge's exit is shielded, so the servers stop even when the app ends by an error; the
    terminal is restored by the app before that. SIGTERM, SIGHUP and a terminal that hangs up
    end the app as ``q`` does (the exit code is then 128 + the signal's number).
    """
    quiet_logging(bridge.log_dir)

    async def main(request: StopRequest) -> int:
        if daemon is not None:
            async with RemoteSource.attached(*daemon) as remote:
                if remote is not None:
                    return await _run(remote, request, None)
        async with bridge:
            return await _run(bridge, request, bridge)

    return run_app(main)


async def _run(source: PluginSource, request: StopRequest, watched: Bridge | None) -> int:
    """Run the app on ``source`` until it ends (``watched``: a bridge of this process, whose
    config files are watched meanwhile); its exit code."""
    app = PickerApp(source, freeze_heap=True, count_tokens=True)
    if app.driver_class is LinuxDriver:  # Linux and macOS; not under a test's pilot
        app.driver_class = DeadTerminalDriver
    # The app's own way out, so that it restores the terminal before the servers stop.
    request.handler = app.exit
    async with anyio.create_task_group() as watching:
        if watched is not None:  # an outside edit of a config file reloads, as `r` does
            await watching.start(watched.watch)
        await app.run_async()
        watching.cancel_scope.cancel()
    return app.return_code or 0
