"""The 2025-era HTTP sessions of ``serve --http --shared``, kept by the serve process across
daemons, so that a daemon that replaces a dead one takes its hosts' sessions up again.

A 2025-era host holds its ``Mcp-Session-Id`` for as long as it runs. The spec has a host that
gets 404 for it start a new session, but the mcp SDK's client does not: it keeps the id, and
every later request fails (with the 404's "Session not found") until the host restarts. So the
session must outlive the daemon that opened it, and the one process that does is the
``serve --http --shared`` that holds the listening socket (``http.shared``):

- the daemon says each session it opens, with the params of the host's ``initialize`` (at
  most ``MAX_INITIALIZE`` bytes of JSON, else it is not kept), and each one that ends, as
  lines on the attachment's connection after ``listening`` (``opened_line``, ``ended_line``);
- the serve process keeps them (``KeptSessions``: at most ``MAX_KEPT``, the oldest dropped
  first) and hands them, in its ``Attachment``, to the daemon it starts when this one went
  away (``Attachment.http_sessions``);
- that daemon takes a session up when the host's next request names it: the host's
  ``initialize`` is replayed to a new ``HostServer`` of that id (``http.endpoint``), so its
  capabilities are known again, and its first GET stream is ``tools/list_changed`` alone
  (whatever changed while no daemon ran), after which its client opens the session's own.

Nothing here imports the SDK: the serve process reads these lines. The lines pass over the
user's own uid-checked socket only.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

__all__ = [
    "MAX_INITIALIZE",
    "MAX_KEPT",
    "MAX_LINE",
    "KeptSessions",
    "ended_line",
    "kept_sessions",
    "opened_line",
]

MAX_KEPT = 64
"""Sessions kept (as many as a daemon serves at once: ``http.endpoint.MAX_SESSIONS``)."""

MAX_INITIALIZE = 8 * 1024
"""The largest ``initialize`` params (their JSON) kept: capabilities and client info take
well under 1 KiB; 64 of these fit in an attachment line."""

MAX_LINE = MAX_INITIALIZE + 256
"""The longest line the daemon says of a session."""

_SESSION_ID = re.compile(r"[0-9a-f]{32}")
"""A session id as the gateway makes them (``uuid4().hex``)."""


def opened_line(session_id: str, initialize: Mapping[str, Any]) -> bytes | None:
    """The daemon's line for a session opened with ``initialize`` params (``None``: too large
    to keep, or not an id of ours)."""
    params = json.dumps(initialize, separators=(",", ":"))
    if len(params.encode()) > MAX_INITIALIZE or _SESSION_ID.fullmatch(session_id) is None:
        return None
    return f'{{"session":"{session_id}","initialize":{params}}}\n'.encode()


def ended_line(session_id: str) -> bytes:
    """The daemon's line for a session that ended (the host's DELETE, idle, an error)."""
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
    """The serve process's book of its daemon's sessions."""

    def __init__(self) -> None:
        self._sessions: OrderedDict[str, dict[str, Any]] = OrderedDict()

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
            self._sessions.pop(ended, None)
            return
        session, params = said.get("session"), said.get("initialize")
        if isinstance(session, str) and _SESSION_ID.fullmatch(session) and isinstance(params, dict):
            self._sessions[session] = params
            self._sessions.move_to_end(session)
            while len(self._sessions) > MAX_KEPT:
                self._sessions.popitem(last=False)

    def table(self) -> dict[str, dict[str, Any]]:
        """The sessions kept, oldest first: what the next daemon is handed."""
        return dict(self._sessions)

    def __len__(self) -> int:
        """How many sessions are kept."""
        return len(self._sessions)
