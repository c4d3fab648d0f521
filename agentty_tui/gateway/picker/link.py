"""The line protocol between the gateway daemon and a picker attached to it.

A picker attaches as a host does (``attach``): over the user's socket, whose peer's uid the
daemon checks, it sends one ``Attachment`` line with ``"picker": true`` and reads ``ok`` (or
``error ...``). From then on both sides send JSON objects, one a line, each at most
``MAX_MESSAGE`` bytes (a longer one ends the link: nothing unbounded is read):

- the daemon says ``{"hello": {...}}`` first (its pid, the files a new server may go to, the
  import target, the config's files), then ``{"snapshot": PluginModel}`` for every snapshot of
  the workspace's bridge (a server state it sent before unchanged as ``{"same": revision}``),
  ``{"hosts": [AttachedHost]}`` whenever the attached hosts or what they list changed,
  ``{"reloaded": ReloadReport}`` after an outside edit's reload, and
  ``{"reply": id, "result": ...}`` or ``{"reply": id, "error": {"kind", "message"}}`` (the
  result of a change is ``{"revision": n}``: the picker takes that snapshot, or a later one,
  from the snapshot stream);
- the picker says ``{"id": n, "op": NAME, "args": {...}}``, ``NAME`` one of ``OPERATIONS``.

An error comes back as the ``AgenttyError`` kind it was, with its message (``error_of``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import anyio
import anyio.abc
from anyio.streams.buffered import BufferedByteReceiveStream

from agentty_tui.bridge.reload_report import ReloadReport
from agentty_tui.errors import (
    AgenttyError,
    ConfigError,
    EntryChangedError,
    OperationError,
    ReadOnlyFileError,
    UnknownServerError,
    UnknownToolError,
    UsageError,
)
from agentty_tui.model import PluginModel

__all__ = [
    "LINK_ENDED",
    "MAX_MESSAGE",
    "OPERATIONS",
    "LineReader",
    "LineWriter",
    "error_json",
    "error_of",
    "report_json",
    "report_of",
]

MAX_MESSAGE = 64 * 1024 * 1024
"""The longest line either side reads (a snapshot of thousands of tools with their schemas)."""

OPERATIONS = frozenset(
    {
        "tool_set_enabled",
        "tools_set_enabled",
        "server_set_disabled",
        "tool_set_pinned",
        "server_set_priority",
        "plugin_add",
        "plugin_update",
        "plugin_remove",
        "reload",
        "restart",
        "trust_config",
        "trust_servers",
        "login_target",
        "logout",
        "call_tool",
    }
)
"""What an attached picker may ask the daemon to do on its workspace's bridge."""

LINK_ENDED: tuple[type[Exception], ...] = (
    anyio.EndOfStream,
    anyio.IncompleteRead,
    anyio.DelimiterNotFound,
    anyio.BrokenResourceError,
    anyio.ClosedResourceError,
    OSError,
    ValueError,
    TypeError,
    KeyError,
)
"""What ends a link: its end, a line over the limit, a message that is not ours to read."""

_KINDS: dict[str, type[AgenttyError]] = {
    kind.__name__: kind
    for kind in (
        AgenttyError,
        ConfigError,
        OperationError,
        EntryChangedError,
        ReadOnlyFileError,
        UnknownServerError,
        UnknownToolError,
        UsageError,
    )
}
"""The errors that cross the link as themselves; any other is an ``AgenttyError``."""


class LineReader:
    """JSON objects from a byte stream, one a line, none longer than ``MAX_MESSAGE``."""

    def __init__(self, stream: anyio.abc.ByteReceiveStream, limit: int = MAX_MESSAGE) -> None:
        self._buffered = BufferedByteReceiveStream(stream)
        self._limit = limit

    async def line(self) -> bytes:
        """The next line, without its newline; ``anyio.EndOfStream`` (or ``IncompleteRead``)
        at the end, ``anyio.DelimiterNotFound`` for one longer than the limit."""
        return await self._buffered.receive_until(b"\n", self._limit)

    async def message(self) -> dict[str, Any]:
        """The next line as a JSON object; ``ValueError`` for one that is not."""
        value = json.loads(await self.line())
        if not isinstance(value, dict):
            raise ValueError("a message of the picker's link is a JSON object")
        return value


class LineWriter:
    """Whole lines to a byte stream, one writer at a time (several tasks send)."""

    def __init__(self, stream: anyio.abc.ByteSendStream, limit: int = MAX_MESSAGE) -> None:
        self._stream = stream
        self._limit = limit
        self._lock = anyio.Lock()

    async def send(self, message: Mapping[str, Any]) -> None:
        """Send ``message`` as one line; a ``ValueError`` for one longer than the limit (the
        other side would end the link on it)."""
        await self.send_text(json.dumps(message, separators=(",", ":")))

    async def send_text(self, text: str) -> None:
        """Send one line of JSON text already made (a snapshot dumped by pydantic)."""
        data = text.encode() + b"\n"
        if len(data) > self._limit:
            raise ValueError(f"a message of {len(data)} bytes, over the link's {self._limit}")
        async with self._lock:
            await self._stream.send(data)


def error_json(error: AgenttyError) -> dict[str, Any]:
    """An error as the link sends it: its kind and its message (and, for a trust refused on
    changed entries, their names)."""
    kind = type(error).__name__ if type(error).__name__ in _KINDS else "AgenttyError"
    found: dict[str, Any] = {"kind": kind, "message": str(error)}
    if isinstance(error, EntryChangedError):
        found["names"] = list(error.names)
    return found


def error_of(value: Mapping[str, Any]) -> AgenttyError:
    """The error the link said, as the kind it was with the same message."""
    message = str(value.get("message") or "the gateway daemon refused the operation")
    kind = _KINDS.get(str(value.get("kind")), AgenttyError)
    if kind is EntryChangedError:
        names = value.get("names")
        return EntryChangedError([str(n) for n in names] if isinstance(names, list) else [])
    # Made without its constructor (which composes the message from parts): the message is
    # already composed, and the kind is what the picker tells apart.
    error = kind.__new__(kind)
    Exception.__init__(error, message)
    if isinstance(error, ConfigError):
        error.path = error.line = error.column = error.server = error.field = None
        error.detail = message
    return error


_REPORT_FIELDS = ("added", "removed", "restarted", "retried", "started", "stopped")


def report_json(report: ReloadReport) -> dict[str, Any]:
    """A reload's report as the link sends it (its snapshot as pydantic dumps it)."""
    found: dict[str, Any] = {name: list(getattr(report, name)) for name in _REPORT_FIELDS}
    found["error"] = report.error
    found["snapshot"] = report.snapshot.model_dump(mode="json")
    return found


def report_of(value: Mapping[str, Any], snapshot: PluginModel) -> ReloadReport:
    """The report the link said, with ``snapshot`` (the picker's copy of the one it names)."""
    names = {
        name: tuple(str(n) for n in value.get(name) or () if isinstance(n, str))
        for name in _REPORT_FIELDS
    }
    error = value.get("error")
    return ReloadReport(snapshot=snapshot, error=error if isinstance(error, str) else None, **names)
