"""The 2025-era HTTP sessions of ``serve --http --shared``, kept by the serve process across
daemons, so that a daemon that replaces a dead one takes its hosts' sessions up again.

A 2025-era host holds its ``Mcp-Session-Id`` for as long as it runs. The spec has a host that
gets 404 for it start a new session, but the mcp SDK's client does not: it keeps the id, and
every later request fails (with the 404's "Session not found") until the host restarts. So the
session must outlive the daemon that opened it, and the one process that does is the
``serve --http --shared`` that holds the listening socket (``http.shared``):

- the daemon says each session it opens, with the params of the host's ``initialize`` (at
  most ``MAX_INITIALIZE`` bytes of JSON, else it is not kept), and each one that ends for good, as
  lines on the attachment's connection after ``listening`` (``opened_line``, ``ended_line``);
- the serve process keeps them (``KeptSessions``: at most ``MAX_KEPT``, the oldest dropped
  first) and hands them, in its ``Attachment``, to the daemon it starts when this one went
  away (``Attachment.http_sessions``);
- that daemon takes a session up when the host's next request names it: the host's
  ``initialize`` is replayed to a new ``HostServer`` of that id (``http.endpoint``), so its
  capabilities are known again, and its first GET stream is ``tools/list_changed`` alone
  (whatever changed while no daemon ran), after which its client opens the session's own.

A session is kept until its host ends it (DELETE) or it is the oldest beyond ``MAX_KEPT``; a
session that ends otherwise (idle for ``http.endpoint.SESSION_IDLE``, a failure, the gateway's
stop) stays takeable: the gateway frees its server but keeps its id and ``initialize``.

The book is also a file (``sessions_path``: ``http-sessions-PORT.json`` next to the token, 0600,
in the user's 0700 state folder), rewritten whole (a temporary file, then ``os.replace``) at each
session opened or ended and read by the next ``serve --http`` on that port, with or without a
daemon: a restarted gateway takes its hosts' sessions up as a new daemon does. A session id is
no secret beyond the bearer token every request needs, and none is ever logged.

Nothing here imports the SDK: the serve process reads these lines. The lines pass over the
user's own uid-checked socket only.
"""

from __future__ import annotations

import json
import logging
import os
import re
import stat
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agentty_tui.atomic_file import replace_file
from agentty_tui.gateway.http.token import token_path

__all__ = [
    "MAX_FILE",
    "MAX_INITIALIZE",
    "MAX_KEPT",
    "MAX_LINE",
    "KeptSessions",
    "ended_line",
    "keepable",
    "kept_sessions",
    "opened_line",
    "sessions_path",
]

MAX_KEPT = 64
"""Sessions kept (as many as a daemon serves at once: ``http.endpoint.MAX_SESSIONS``)."""

MAX_INITIALIZE = 8 * 1024
"""The largest ``initialize`` params (their JSON) kept: capabilities and client info take
well under 1 KiB; 64 of these fit in an attachment line."""

MAX_LINE = MAX_INITIALIZE + 256
"""The longest line the daemon says of a session."""

MAX_FILE = MAX_KEPT * MAX_LINE
"""The largest sessions file read (a larger one is not ours: nothing is taken from it)."""

_SESSION_ID = re.compile(r"[0-9a-f]{32}")
"""A session id as the gateway makes them (``uuid4().hex``)."""

_log = logging.getLogger(__name__)


def sessions_path(env: Mapping[str, str], port: int) -> Path:
    """The file of the sessions of the gateway on ``port``: next to the token's
    (``http.token.token_path``), so in the user's own state folder."""
    return token_path(env).parent / f"http-sessions-{port}.json"


def keepable(session_id: str, initialize: Mapping[str, Any]) -> bool:
    """Whether a session may be kept: an id of ours, params of at most ``MAX_INITIALIZE``."""
    if _SESSION_ID.fullmatch(session_id) is None:
        return False
    return len(json.dumps(initialize, separators=(",", ":")).encode()) <= MAX_INITIALIZE


def opened_line(session_id: str, initialize: Mapping[str, Any]) -> bytes | None:
    """The daemon's line for a session opened with ``initialize`` params (``None``: too large
    to keep, or not an id of ours)."""
    if not keepable(session_id, initialize):
        return None
    params = _json(initialize)
    return f'{{"session":"{session_id}","initialize":{params}}}\n'.encode()


def ended_line(session_id: str) -> bytes:
    """The daemon's line for a session that ended for good (the host's DELETE, or the oldest
    kept beyond ``MAX_KEPT``)."""
    return (json.dumps({"ended": session_id}) + "\n").encode()


def kept_sessions(value: object) -> dict[str, dict[str, Any]]:
    """The sessions an attachment carries (anything of the wrong shape, or beyond ``MAX_KEPT``,
    left out)."""
    if not isinstance(value, Mapping):
        return {}
    kept = {
        key: dict(params)
        for key, params in value.items()
        if isinstance(key, str) and _SESSION_ID.fullmatch(key) and isinstance(params, Mapping)
    }
    return dict(list(kept.items())[-MAX_KEPT:])


class KeptSessions:
    """The sessions a gateway may take up, oldest first (``MAX_KEPT`` at most): the serve
    process's book of its daemon's sessions, and the ``SessionBook`` of a gateway of its own
    (``http.endpoint``). With a ``file``, it starts from the file and rewrites it at each
    change."""

    def __init__(self, file: Path | None = None) -> None:
        """``file``: where the book is kept across processes (``sessions_path``); a file that
        is missing, unreadable or not the user's own starts it empty."""
        self._file = file
        self._sessions: OrderedDict[str, dict[str, Any]] = OrderedDict(
            kept_sessions(_read(file)) if file is not None else {}
        )

    def heard(self, line: bytes) -> None:
        """Apply one line of the daemon's (an opened or an ended session; anything else, or a
        malformed one, changes nothing)."""
        try:
            said = json.loads(line)
        except ValueError:
            return
        if not isinstance(said, dict):
            return
        ended = said.get("ended")
        if isinstance(ended, str):
            self.ended(ended)
            return
        session, params = said.get("session"), said.get("initialize")
        if isinstance(session, str) and isinstance(params, dict):
            self.opened(session, params)

    def opened(self, session_id: str, initialize: dict[str, Any]) -> None:
        """A session opened (or taken up) with these ``initialize`` params: kept, the newest."""
        if not keepable(session_id, initialize):
            return
        self._sessions[session_id] = initialize
        self._sessions.move_to_end(session_id)
        while len(self._sessions) > MAX_KEPT:
            self._sessions.popitem(last=False)
        self._save()

    def ended(self, session_id: str) -> None:
        """A session ended for good (its host's DELETE, or dropped beyond a gateway's bound): no
        longer kept."""
        if self._sessions.pop(session_id, None) is not None:
            self._save()

    def table(self) -> dict[str, dict[str, Any]]:
        """The sessions kept, oldest first: what the next daemon is handed."""
        return dict(self._sessions)

    def __len__(self) -> int:
        """How many sessions are kept."""
        return len(self._sessions)

    def _save(self) -> None:
        """The file rewritten whole, atomically (a reader sees the old book or the new); a
        failure to write loses the book for the next process only, and is logged."""
        if self._file is None:
            return
        try:
            content = _json({"sessions": self._sessions}).encode()
            self._file.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            replace_file(self._file, content, prefix=".http-sessions-")
        except OSError as exc:
            _log.warning("cannot keep the HTTP sessions in %s: %s", self._file, exc.strerror)


def _read(path: Path) -> object:
    """What the sessions file holds (``None``: no file, or one that is not the user's own
    regular file of at most ``MAX_FILE`` bytes, or not JSON)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
            return None
        data = os.read(descriptor, MAX_FILE + 1)
    except OSError:
        return None
    finally:
        os.close(descriptor)
    if len(data) > MAX_FILE:
        return None
    try:
        said = json.loads(data)
    except ValueError:
        return None
    return said.get("sessions") if isinstance(said, dict) else None


def _json(params: Mapping[str, Any]) -> str:
    """``params`` as compact JSON."""
    return json.dumps(params, separators=(",", ":"))
