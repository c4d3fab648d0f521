"""Who is attached to the gateway daemon: its hosts and its pickers, each while it stays.

``status`` lists them; an attached picker shows the hosts of its workspace and what each one
lists (``daemon.picker_service``), and hears when one comes or goes (``changed``). The daemon
ends an attachment through its entry (``Attached.end``: its bridge failed, or the host is to be
served by another bridge, ``daemon.process``); a stdio host is ended at a moment none of its
requests is in flight when one comes soon enough (``InFlight``).
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import anyio
import anyio.abc
import mcp_types as types
from mcp.shared.message import SessionMessage

from agentty_tui.bridge import Bridge
from agentty_tui.gateway.attachment import Attachment
from agentty_tui.gateway.daemon.lifetime import until_either

__all__ = ["MOVE_WAIT", "Attached", "HostRegistry", "InFlight"]

MOVE_WAIT = 10.0
"""Seconds an attachment the daemon ends waits for its host's requests in flight to be
answered; what is still in flight then is answered by its ``serve`` as lost (ask again)."""

_STREAMS = ("subscriptions/listen",)
"""Requests that stay open as a stream (2026-07-28): never in flight in that sense, since
their ``serve`` asks them again of the next connection."""

_T = TypeVar("_T")


@dataclass(eq=False)
class Attached:
    """One attached host or picker (compared by identity: two may say the same)."""

    attachment: Attachment
    """What it attached with (its host, whether a picker, its environment and folder: which
    bridge it shares, ``daemon.sharing``); kept in memory only, never shown."""
    key: tuple[str, str, bool]
    """Its ``Attachment.key`` (found once: it looks for the project's root): attachments of
    one key are of one workspace."""
    bridge: Bridge
    """The bridge that serves it."""
    pid: int | None
    """Its process id, as the kernel said."""
    in_flight: InFlight | None = None
    """Its requests not answered yet (a stdio host's; ``None``: not counted)."""
    ended: anyio.Event = field(default_factory=anyio.Event, init=False)
    """Set once the daemon ends the attachment (``end``)."""
    _at_once: anyio.Event = field(default_factory=anyio.Event, init=False, repr=False)
    since: str = field(default_factory=lambda: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    """When it attached (UTC)."""

    @property
    def host(self) -> str | None:
        """The host whose view it is served (``None``: every host's servers)."""
        return self.attachment.host

    @property
    def picker(self) -> bool:
        """A picker rather than a host."""
        return self.attachment.picker

    @property
    def workspace(self) -> str:
        """The project folder or the one file it is served."""
        return self.key[1]

    def end(self, *, at_once: bool = True) -> None:
        """Have the daemon end this attachment's connection (its ``serve`` attaches again):
        ``at_once``, or else at the first moment none of its requests is in flight (at most
        ``MOVE_WAIT`` seconds on)."""
        self.ended.set()
        if at_once:
            self._at_once.set()

    async def until_ended(self) -> None:
        """Return once ``end`` was called and it is time to end the connection."""
        await self.ended.wait()
        if self.in_flight is None:
            return
        with anyio.move_on_after(MOVE_WAIT):
            await until_either(self.in_flight.until_none(), self._at_once.wait())

    def status(self) -> dict[str, Any]:
        """The entry as ``status --json`` shows it."""
        return {
            "host": self.host,
            "workspace": self.workspace,
            "since": self.since,
            "pid": self.pid,
        }


class HostRegistry:
    """The attached hosts and pickers of one daemon."""

    def __init__(self) -> None:
        self._entries: list[Attached] = []
        self._changed = anyio.Event()

    @contextlib.contextmanager
    def listed(self, entry: Attached) -> Iterator[None]:
        """List ``entry`` for as long as the block runs."""
        self._entries.append(entry)
        self._moved()
        try:
            yield
        finally:
            self._entries.remove(entry)
            self._moved()

    def _moved(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    def hosts(self, key: tuple[str, str, bool] | None = None) -> list[Attached]:
        """The attached hosts (of the workspace ``key`` alone, when given), in the order they
        came."""
        return [e for e in self._entries if not e.picker and (key is None or e.key == key)]

    def of_bridge(self, bridge: Bridge) -> list[Attached]:
        """The hosts and pickers ``bridge`` serves."""
        return [entry for entry in self._entries if entry.bridge is bridge]

    def pickers(self) -> list[Attached]:
        """The attached pickers."""
        return [entry for entry in self._entries if entry.picker]

    async def changed(self) -> None:
        """Return once an entry comes or goes."""
        await self._changed.wait()


class InFlight:
    """The requests of one host that the daemon took and has not answered yet: what came on
    its read stream and went back on its write stream (``counted``), but its listen streams;
    a request the host cancelled is not waited for (the SDK sends it no answer)."""

    def __init__(self) -> None:
        self._ids: set[str] = set()
        self._none = anyio.Event()
        self._none.set()

    def counted(
        self,
        read: anyio.abc.ObjectReceiveStream[SessionMessage | Exception],
        write: anyio.abc.ObjectSendStream[SessionMessage],
    ) -> tuple[
        anyio.abc.ObjectReceiveStream[SessionMessage | Exception],
        anyio.abc.ObjectSendStream[SessionMessage],
    ]:
        """``read`` and ``write`` with each message counted as it passes."""
        return _Received(read, self.came), _Sent(write, self.went)

    def came(self, item: SessionMessage | Exception) -> None:
        """A message from the host: a request is in flight, a cancellation ends one."""
        if not isinstance(item, SessionMessage):
            return
        message = item.message
        if isinstance(message, types.JSONRPCRequest) and message.method not in _STREAMS:
            self._ids.add(json.dumps(message.id))
            if self._none.is_set():
                self._none = anyio.Event()
        elif (
            isinstance(message, types.JSONRPCNotification)
            and message.method == "notifications/cancelled"
            and isinstance(message.params, dict)
        ):
            self._answered(message.params.get("requestId"))

    def went(self, item: SessionMessage) -> None:
        """A message to the host: an answer ends its request."""
        message = item.message
        if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
            self._answered(message.id)

    def _answered(self, request: object) -> None:
        self._ids.discard(json.dumps(request))
        if not self._ids:
            self._none.set()

    async def until_none(self) -> None:
        """Return once no request is in flight."""
        while not self._none.is_set():
            await self._none.wait()


class _Received(anyio.abc.ObjectReceiveStream[_T], Generic[_T]):
    """A receive stream that tells ``seen`` of each item it gives."""

    def __init__(
        self, inner: anyio.abc.ObjectReceiveStream[_T], seen: Callable[[_T], None]
    ) -> None:
        self._inner = inner
        self._seen = seen

    async def receive(self) -> _T:
        item = await self._inner.receive()
        self._seen(item)
        return item

    async def aclose(self) -> None:
        await self._inner.aclose()


class _Sent(anyio.abc.ObjectSendStream[_T], Generic[_T]):
    """A send stream that tells ``seen`` of each item it takes."""

    def __init__(self, inner: anyio.abc.ObjectSendStream[_T], seen: Callable[[_T], None]) -> None:
        self._inner = inner
        self._seen = seen

    async def send(self, item: _T) -> None:
        await self._inner.send(item)
        self._seen(item)

    async def aclose(self) -> None:
        await self._inner.aclose()
