"""Run the picker on a config file: start the bridge, run the app, stop every server."""

from __future__ import annotations

from pathlib import Path

import anyio

from agentty_tui.bridge import Bridge
from agentty_tui.bridge.logs import quiet_logging
from agentty_tui.bridge.shutdown import StopRequest, run_app
from agentty_tui.config import ConfigStore, Dialect
from agentty_tui.config.config_source import ConfigSource
from agentty_tui.ui.app import PickerApp

__all__ = ["run_picker"]


def run_picker(
    config_path: Path | ConfigSource,
    *,
    log_dir: Path | None = None,
    dialect: Dialect | None = None,
    trust: bool = False,
) -> int:
    """Open the picker on ``config_path`` (a file, or an opened workspace); returns the exit
    code once every server is stopped.

    ``dialect`` forces the config file's format (detected from the file when ``None``);
    ``trust`` starts the servers of a config file others can change without asking.

    The bridge's exit is shielded, so the servers stop even when the app ends by an error; the
    terminal is restored by the app before that. SIGTERM and SIGHUP end the app as ``q`` does
    (the exit code is then 128 + the signal's number).
    """
    quiet_logging(log_dir)

    async def main(request: StopRequest) -> int:
        store = (
            ConfigStore(config_path, dialect=dialect)
            if isinstance(config_path, Path)
            else config_path
        )
        async with Bridge(store, log_dir=log_dir, trust=trust) as bridge:
            app = PickerApp(bridge, freeze_heap=True)
            # The app's own way out, so that it restores the terminal before the servers stop.
            request.handler = app.exit
            async with anyio.create_task_group() as watching:
                # An outside edit of a config file reloads, as `r` does.
                await watching.start(bridge.watch)
                await app.run_async()
                watching.cancel_scope.cancel()
            return app.return_code or 0

    return run_app(main)
