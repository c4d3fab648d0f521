"""Run the picker on a config file: start the bridge, run the app, stop every server."""

from __future__ import annotations

import logging
from pathlib import Path

import anyio

from agentty_tui.bridge import Bridge
from agentty_tui.bridge.logs import default_log_dir
from agentty_tui.config import ConfigStore
from agentty_tui.ui.app import PickerApp

__all__ = ["quiet_logging", "run_picker"]

LOG_FILE_NAME = "agentty.log"
"""The app's own log, next to the servers' logs."""


def quiet_logging(log_dir: Path | None) -> Path | None:
    """Send every log record to a file (or nowhere), never to the terminal under the TUI.

    Removes the handlers that imports put on the root logger (mcp adds a Rich one) and turns
    Python warnings into log records. Returns the log file's path, or ``None`` if it could not
    be opened (then records are dropped).
    """
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
        old.close()
    path: Path | None = (log_dir if log_dir is not None else default_log_dir()) / LOG_FILE_NAME
    handler: logging.Handler
    try:
        assert path is not None
        path.parent.mkdir(parents=True, exist_ok=True)
        handler = logging.FileHandler(path, encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    except OSError:
        handler, path = logging.NullHandler(), None
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    logging.captureWarnings(True)
    return path


def run_picker(config_path: Path, *, log_dir: Path | None = None) -> int:
    """Open the picker on ``config_path``; returns the exit code once every server is stopped.

    The bridge's exit is shielded, so the servers stop even when the app ends by an error; the
    terminal is restored by the app before that.
    """
    quiet_logging(log_dir)
    return_code = 0

    async def main() -> None:
        nonlocal return_code
        async with Bridge(ConfigStore(config_path), log_dir=log_dir) as bridge:
            app = PickerApp(bridge)
            await app.run_async()
            return_code = app.return_code or 0

    anyio.run(main, backend="asyncio")
    return return_code
