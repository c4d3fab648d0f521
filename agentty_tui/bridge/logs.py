"""Log files: a server's stderr in its own file, the app's records in another, none on the terminal.

Each server appends to ``<log dir>/<name>-<hash>.log``: a readable prefix of the server's name
plus a short hash of the full name and the config file's path, so two servers never share a
log (``a/b`` and ``a_b``, or servers of one name in two configs) and a long name still fits a
file name. A header line marks every spawn, and every line says when it was written: the
server's stderr lines begin with the time of day (``12:34:56 …``), our own notes with
``[agentty]`` and the time (``[agentty] 12:34:56 …``).

The child's stderr is a pipe that we drain into the log, so the log can be capped: before it
would grow past ``LOG_MAX_BYTES`` it is renamed to ``<name>.log.1`` (replacing the previous
one) and a fresh file is begun, so a server's logs take at most about twice the cap. The last
stderr bytes of the current spawn are also kept in memory for error text, so the tail works
even when the log cannot be written. Logging is best effort: a folder that cannot be written
costs the server its log, never its start (``problem`` says why).

A server may echo what it was given (its environment, its arguments), and some of that is
what ``${VAR}`` expanded to: a secret. So stderr is written a line at a time, each line passed
through the session's ``Redactor`` first, and the tail is scrubbed the same way; our notes are
too, and every URL a note quotes is masked (``secrets.mask_urls``). A line without an end is
held back until its newline, the end of the spawn, or ``PARTIAL_MAX`` bytes.

A log is read in a terminal (``cat``, ``less``, ``tail -f``; every error points to it), so it
holds no control a terminal obeys: each line is written through the project's one
terminal-text rule (``terminal_text.safe_block``: newlines and tabs kept, ``ESC`` as ``␛``, a C1
control as ``\\x9b``, a bidi override as ``<U+202E>``), and a byte that is not UTF-8 as
``\\xNN``. What the server wrote raw is gone; the picker's ``l`` shows the same text.

Where logs go by default, and the app's own log (every record to a file), are at the end.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
import time
from pathlib import Path
from typing import IO

from agentty_tui.secrets import Redactor, mask_urls
from agentty_tui.specs import StdioSpec
from agentty_tui.terminal_text import safe_block, safe_line

__all__ = [
    "LOG_FILE_NAME",
    "SafeFormatter",
    "ServerLog",
    "default_log_dir",
    "log_file_name",
    "pointing_to_log",
    "quiet_logging",
]


TAIL_LINES = 8
"""How many stderr lines go into the error text of a server that failed."""

TAIL_BYTES = 16 * 1024
"""How much of the end of the current spawn's stderr is kept to find those lines."""

LOG_MAX_BYTES = 5 * 1024 * 1024
"""A log file that would grow past this size is rotated once (to ``.log.1``) and begun afresh."""

NAME_PREFIX = 40
"""How many characters of the (sanitized) server name a log file name keeps."""

PARTIAL_MAX = 64 * 1024
"""A stderr line without a newline is written once it holds this many bytes (not kept
forever)."""

NOTES_PER_SECOND = 5
"""Notes of one kind (e.g. skipped stdout lines) logged per second; the rest are counted."""


def log_file_name(server: str, config_path: str | os.PathLike[str] | None = None) -> str:
    """The log file name of ``server`` of the config at ``config_path``: unique per pair."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", server)[:NAME_PREFIX].lstrip(".") or "_"
    where = os.path.abspath(config_path) if config_path is not None else ""
    digest = hashlib.sha256(f"{where}\0{server}".encode(errors="surrogatepass")).hexdigest()
    return f"{safe}-{digest[:10]}.log"


class ServerLog:
    """The log file of one server: the child's stderr plus our own notes about its life."""

    def __init__(
        self,
        directory: Path,
        server: str,
        config_path: str | os.PathLike[str] | None = None,
        *,
        max_bytes: int | None = None,
    ) -> None:
        self.path = directory / log_file_name(server, config_path)
        self.max_bytes = max_bytes if max_bytes is not None else LOG_MAX_BYTES
        """The size at which the log is rotated."""
        self.problem: str | None = None
        """Why the log could not be written, when it could not (the server runs without it)."""
        self._handle: IO[bytes] | None = None
        self._live = False  # a child runs: keep the file open between writes
        self._size = 0
        self._recent = bytearray()
        self._recent_cut = False  # the tail's first line lost its beginning
        self._partial = bytearray()  # stderr since its last newline, not written yet
        self._redactor = Redactor()
        self._windows: dict[str, tuple[float, int, int]] = {}

    @property
    def rotated_path(self) -> Path:
        """Where the previous part of a rotated log is kept."""
        return self.path.with_name(self.path.name + ".1")

    # --- writing --------------------------------------------------------------------

    def open_for_child(self, spec: StdioSpec, redactor: Redactor | None = None) -> None:
        """Open the log for a new spawn of ``spec`` and mark it with a header line.

        ``spec`` is the spec as the config writes it (the template): the spawn line shows its
        ``${VAR}`` references, never what they expanded to (a secret passed as an argument).
        The tail starts afresh here: error text only ever shows what the current process wrote.
        ``redactor`` removes the values expansion put into ``spec`` from everything written
        for this spawn, the server's own stderr included.
        """
        self.close()
        self._recent.clear()
        self._recent_cut = False
        self._redactor = redactor if redactor is not None else Redactor()
        self.problem = None
        self._live = True
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        command = safe_line(spec.command)  # the config's text: it may hold controls too
        self._write(f"--- {stamp} spawn {command} ({len(spec.args)} args)\n".encode())

    def write_stderr(self, data: bytes) -> None:
        """Append a chunk of the child's stderr (kept in memory too, for the tail).

        Only whole lines are written, scrubbed: a secret split across two chunks is still
        found.
        """
        self._recent += data
        if len(self._recent) > TAIL_BYTES:
            del self._recent[: len(self._recent) - TAIL_BYTES]
            self._recent_cut = True
        self._partial += data
        end = self._partial.rfind(b"\n")
        if end >= 0:
            self._write_lines(bytes(self._partial[: end + 1]))
            del self._partial[: end + 1]
        if len(self._partial) >= PARTIAL_MAX:
            self._flush_partial()

    def _flush_partial(self) -> None:
        if self._partial:
            self._write_lines(bytes(self._partial) + b"\n")
            self._partial.clear()

    def _write_lines(self, data: bytes) -> None:
        """Write complete stderr lines (``data`` ends with a newline), scrubbed, safe for a
        terminal and each with the time."""
        text = self._redactor.scrub(data.decode(errors="backslashreplace"))
        text = safe_block(text)  # a CR LF becomes a newline; a lone CR is shown
        stamp = time.strftime("%H:%M:%S ")
        self._write((stamp + text[:-1].replace("\n", "\n" + stamp) + text[-1:]).encode())

    def note(self, text: str) -> None:
        """Append one line of our own (prefixed, so it is told apart from the server's stderr).

        A note may quote what a server sent (an error's message): it is scrubbed, its URLs
        masked and its controls shown, like the server's own lines.
        """
        stamp = time.strftime("%H:%M:%S")
        line = safe_block(mask_urls(self._redactor.scrub(f"[agentty] {stamp} {text}")))
        self._write(f"{line}\n".encode(errors="replace"))

    def note_limited(self, kind: str, text: str) -> None:
        """``note``, but at most ``NOTES_PER_SECOND`` of one ``kind`` a second.

        The notes over the limit are counted and summed up in one line when the next second
        begins (or on ``close``), so a flood costs a line a second, not a line per item.
        """
        now = time.monotonic()
        start, logged, skipped = self._windows.get(kind, (now, 0, 0))
        if now - start >= 1.0:
            self._flush_skipped(kind, skipped)
            start, logged, skipped = now, 0, 0
        if logged < NOTES_PER_SECOND:
            self.note(text)
            logged += 1
        else:
            skipped += 1
        self._windows[kind] = (start, logged, skipped)

    def close(self) -> None:
        """Write a last unfinished stderr line, sum up skipped notes and close the file (a later
        note reopens it)."""
        self._flush_partial()
        windows, self._windows = self._windows, {}
        for kind, (_start, _logged, skipped) in windows.items():
            self._flush_skipped(kind, skipped)
        self._live = False
        self._close_file()

    def _close_file(self) -> None:
        if self._handle is not None:
            handle, self._handle = self._handle, None
            with contextlib.suppress(OSError):
                handle.close()

    def _flush_skipped(self, kind: str, skipped: int) -> None:
        if skipped:
            self.note(f"… {skipped} more {kind} not logged")

    def _write(self, data: bytes) -> None:
        if self.problem is not None:
            return  # given up for this spawn: retrying on every chunk would cost a flood dearly
        try:
            if self._handle is None:
                self._open()
            assert self._handle is not None
            if self._size > 0 and self._size + len(data) > self.max_bytes:
                self._rotate()
            self._handle.write(data)
            self._handle.flush()
            self._size += len(data)
            if not self._live:
                self._close_file()
        except OSError as error:
            # A log that cannot be written must never take the server down with it.
            self._give_up(error)

    def _open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._handle = open(self.path, "ab")  # noqa: SIM115 - kept open while the child runs
        self._size = self._handle.tell()

    def _rotate(self) -> None:
        assert self._handle is not None
        self._handle.close()
        self._handle = None
        os.replace(self.path, self.rotated_path)
        self._open()
        assert self._handle is not None
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        cap = f"{self.max_bytes / 2**20:g} MiB"
        header = f"--- {stamp} continued (the log reached {cap}; the part before: .log.1)\n"
        self._handle.write(header.encode())
        self._size = len(header)

    def _give_up(self, error: OSError) -> None:
        if self.problem is None:
            self.problem = f"the log {self.path} could not be written ({error.strerror or error})"
        self._close_file()

    # --- reading --------------------------------------------------------------------

    def tail(self, lines: int = TAIL_LINES) -> str:
        """The last lines the current process wrote to stderr, scrubbed as the log is."""
        text = self._recent.decode(errors="replace")
        found = text.splitlines()
        if self._recent_cut and found:
            del found[0]  # it lost its beginning: a secret's end would not be recognized
        kept = [line.rstrip() for line in found if line.strip()]
        return self._redactor.scrub("\n".join(kept[-lines:]))


def pointing_to_log(message: str, log: ServerLog) -> str:
    """``message`` on one line: the server's stderr lines it carries after its first line (an
    error's tail) are left to ``log``, and the line says where that is.

    Where the log could not be written, the lines are kept, joined on the one line.
    """
    first, _, rest = message.partition("\n")
    lines = [line.strip() for line in rest.splitlines() if line.strip()]
    if not lines:
        return first
    if log.problem is None:
        return f"{first} (its stderr is in {log.path})"
    return f"{first} (its last stderr lines: {' | '.join(lines)})"


# --- Where logs go, and the app's own log: every log record to a file, none to the terminal.
#
# Nothing may write to the terminal under the TUI but the TUI, yet libraries log (mcp puts a Rich
# handler on the root logger) and Python warns; ``quiet_logging`` sends all of that to
# ``LOG_FILE_NAME`` in the log folder, next to the servers' logs (``logs``).
#
# Those records quote what the libraries were given: the mcp SDK logs an OAuth error with its
# traceback, whose text holds the server's URL as expanded (a password, a ``?token=``), and a
# message a server sent. Every record is written with each URL in it masked (``secrets.mask_urls``,
# the one rule for URLs) and its controls shown, not sent (``terminal_text.safe_block``: the log
# is read in a terminal, like the servers' logs).


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
