"""Where logs go, and the app's own log: every log record to a file, none to the terminal.

Nothing may write to the terminal under the TUI but the TUI, yet libraries log (mcp puts a Rich
handler on the root logger) and Python warns; ``quiet_logging`` sends all of that to
``LOG_FILE_NAME`` in the log folder, next to the servers' logs (``logs``).

Those records quote what the libraries were given: the mcp SDK logs an OAuth error with its
traceback, whose text holds the server's URL as expanded (a password, a ``?token=``), and a
message a server sent. Every record is written with each URL in it masked (``secrets.mask_urls``,
the one rule for URLs) and its controls shown, not sent (``terminal_text.safe_block``: the log
is read in a terminal, like the servers' logs).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from agentty_tui.secrets import mask_urls
from agentty_tui.terminal_text import safe_block

__all__ = ["LOG_FILE_NAME", "SafeFormatter", "default_log_dir", "quiet_logging"]


def default_log_dir() -> Path:
    """``$XDG_STATE_HOME/agentty/logs``, else ``~/.local/state/agentty/logs``."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "agentty" / "logs"


LOG_FILE_NAME = "agentty.log"
"""The app's own log, next to the servers' logs."""


class SafeFormatter(logging.Formatter):
    """A formatter whose records are safe to read: URLs masked, controls visible."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as ``logging.Formatter`` writes it (its traceback included), each URL
        passed through ``mask_url`` and each control made visible."""
        return safe_block(mask_urls(super().format(record)))


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
        handler.setFormatter(SafeFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    except OSError:
        handler, path = logging.NullHandler(), None
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    logging.captureWarnings(True)
    return path
