"""Per-server log files: where a server's stderr goes instead of the terminal.

Each server appends to ``<log dir>/<server>.log``. A header line marks every spawn, so the
tail used in error text only ever shows what the current process wrote.
"""

from __future__ import annotations

import logging
import os
import re
import time
from pathlib import Path
from typing import IO

from agentty_tui.model import StdioSpec

__all__ = ["LOG_FILE_NAME", "ServerLog", "default_log_dir", "quiet_logging"]

TAIL_LINES = 8
"""How many stderr lines go into the error text of a server that failed."""

TAIL_BYTES = 16 * 1024
"""How much of the end of the log is read to find those lines."""


def default_log_dir() -> Path:
    """``$XDG_STATE_HOME/agentty/logs``, else ``~/.local/state/agentty/logs``."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "agentty" / "logs"


class ServerLog:
    """The log file of one server: the child's stderr plus our own notes about its life."""

    def __init__(self, directory: Path, server: str) -> None:
        safe = re.sub(r"[^A-Za-z0-9_.-]", "_", server) or "_"
        self.path = directory / f"{safe}.log"
        self._spawn_offset = 0

    def open_for_child(self, spec: StdioSpec) -> IO[bytes]:
        """Open the log for appending, mark a new spawn, and return it for the child's stderr.

        ``spec`` is the spec as the config writes it (the template): the spawn line shows its
        ``${VAR}`` references, never what they expanded to (a secret passed as an argument).
        """
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "ab")  # noqa: SIM115 - handed to the child, closed by the caller
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        handle.write(f"--- {stamp} spawn {spec.command} ({len(spec.args)} args)\n".encode())
        handle.flush()
        self._spawn_offset = handle.tell()
        return handle

    def note(self, text: str) -> None:
        """Append one line of our own (prefixed, so it is told apart from the server's stderr)."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "ab") as handle:
                handle.write(f"[agentty] {text}\n".encode(errors="replace"))
        except OSError:
            pass  # a log that cannot be written must never take the server down with it

    def tail(self, lines: int = TAIL_LINES) -> str:
        """The last lines the current process wrote to stderr (our own notes left out)."""
        try:
            with open(self.path, "rb") as handle:
                handle.seek(0, os.SEEK_END)
                size = handle.tell()
                start = max(self._spawn_offset, size - TAIL_BYTES)
                handle.seek(start)
                data = handle.read()
        except OSError:
            return ""
        text = data.decode(errors="replace")
        kept = [
            line.rstrip()
            for line in text.splitlines()
            if line.strip() and not line.startswith("[agentty]")
        ]
        return "\n".join(kept[-lines:])


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
