"""A server's MCP log messages (``notifications/message``) and the level they are asked at.

A session hands each log message its server sends to the bridge as a ``ServerLogMessage``
(the server's name on it: the notification does not say who sent it), with its data bounded
(``MAX_LOG_DATA`` characters of JSON; more is cut to a string). The bridge passes it to its
log listeners (the gateway's attached hosts).

Several consumers share one bridge's servers and each may ask for its own level
(``logging/setLevel`` of a host): ``LogLevels`` keeps each one's and yields the most verbose
of them, which is what the servers are asked for (a consumer filters out what is below its
own). Only servers of the 2025 handshake era that declare ``logging`` are asked: in the
2026-07-28 era logging is a per-request opt-in (SEP-2577, deprecated), sent only with a call
whose caller opted in, and such a server's messages go to that call alone
(``bridge/call_logging.py``), never to the log listeners.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, get_args

import mcp_types as types

__all__ = [
    "LEVELS",
    "MAX_LOG_DATA",
    "LogLevels",
    "LogListener",
    "ServerLogMessage",
    "at_least",
    "bounded_data",
]

LEVELS: tuple[types.LoggingLevel, ...] = get_args(types.LoggingLevel)
"""The MCP log levels, least severe first (RFC 5424's severities)."""

MAX_LOG_DATA = 16 * 1024
"""Characters of a log message's data (as JSON) passed on; a longer one is cut to a string."""


def at_least(level: types.LoggingLevel, floor: types.LoggingLevel | None) -> bool:
    """Whether a message of ``level`` passes a filter set to ``floor`` (``None``: all do)."""
    return floor is None or LEVELS.index(level) >= LEVELS.index(floor)


def bounded_data(data: Any) -> Any:
    """``data`` as it is when its JSON is at most ``MAX_LOG_DATA`` characters, else the start
    of that JSON as a string (marked as cut)."""
    try:
        text = json.dumps(data, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(data)
    if len(text) <= MAX_LOG_DATA:
        return data
    return f"{text[:MAX_LOG_DATA]}… (cut: {len(text):,} characters)"


@dataclass(frozen=True, slots=True)
class ServerLogMessage:
    """One log message of one server."""

    server: str
    """The server's config key."""
    level: types.LoggingLevel
    """The message's severity."""
    data: Any
    """What the server logged (bounded: ``bounded_data``)."""
    logger: str | None = None
    """The server's own name for the logger, if it gave one."""


LogListener = Callable[[ServerLogMessage], None]
"""A synchronous callback run on every server log message, in the session's task."""


class LogLevels:
    """The log level each consumer asked for; ``floor`` is the most verbose of them."""

    def __init__(self) -> None:
        self._asked: dict[int, types.LoggingLevel] = {}

    def ask(self, owner: object, level: types.LoggingLevel | None) -> bool:
        """Record ``owner``'s level (``None``: it asks for none any more); whether ``floor``
        changed."""
        before = self.floor
        if level is None:
            self._asked.pop(id(owner), None)
        else:
            self._asked[id(owner)] = level
        return self.floor != before

    @property
    def floor(self) -> types.LoggingLevel | None:
        """The most verbose level asked for (``None``: nobody asked)."""
        if not self._asked:
            return None
        return min(self._asked.values(), key=LEVELS.index)
