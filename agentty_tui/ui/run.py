"""Run the picker on a config file: start the bridge, run the app, stop every server."""

from __future__ import annotations

from pathlib import Path

import anyio

from agentty_tui.bridge import Bridge
from agentty_tui.bridge.logs import quiet_logging
from agentty_tui.config import ConfigStore, Dialect
from agentty_tui.ui.app import PickerApp

__all__ = ["run_picker"]


def run_picker(
    config_path: Path, *, log_dir: Path | None = None, dialect: Dialect | None = None
) -> int:
    """Open the picker on ``config_path``; returns the exit code once every server is stopped.

    ``dialect`` forces the config file's format (detected from the file when ``None``).

    The bridge's exit is shielded, so the servers stop even when the app ends by an error; the
    terminal is restored by the app before that.
    """
    quiet_logging(log_dir)
    return_code = 0

    async def main() -> None:
        nonlocal return_code
        store = ConfigStore(config_path, dialect=dialect)
        async with Bridge(store, log_dir=log_dir) as bridge:
            app = PickerApp(bridge, freeze_heap=True)
            await app.run_async()
            return_code = app.return_code or 0

    anyio.run(main, backend="asyncio")
    return return_code
