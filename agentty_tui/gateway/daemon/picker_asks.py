"""What servers ask a picker attached to the daemon: forms and pages, asked over its link.

In the daemon nobody sits at a terminal: a server's form or URL request goes to a person only
through an attached picker. ``PickerAsks`` knows the daemon's attached pickers (one
``PickerChannel`` each, newest last) and asks the newest one of the request's workspace:

- a request no call owns (no call in flight, or an ambiguous one) on a bridge of that
  workspace: the bridge's ``ServerElicitation`` (``for_bridge``); an ambiguous one (a 2025
  server's request during calls of several hosts at once) says which hosts' calls were in
  flight (``"during"``: at most ``MAX_DURING`` of them, with how many more);
- a request during a host's call when the host cannot answer it (it did not declare
  elicitation, or not that mode): the host's ``HostRequests`` asks ``for_host``, which says
  which host's call asks (its name and project);
- a request during the picker's own call through the daemon: the call's hooks ask its channel
  (``PickerChannel.ask`` with the call's tool), in ``daemon.picker_service``.

On the link (``picker.link``) the daemon says ``{"ask": n, "server", "params", "by"}`` and the
picker answers ``{"answer": n, "result": ElicitResult}``; ``{"withdrawn": n}`` tells it the
daemon no longer waits (the server withdrew it, or its time ran out). No picker, the picker
leaving meanwhile, no answer in ``ASK_TIMEOUT``, a request over ``MAX_ASK`` bytes, ``MAX_ASKS``
requests of that picker waiting already, or an answer that is not an ``ElicitResult``: the
server hears a decline, never an error. A page the picker accepted is remembered by its id (at
most ``MAX_PAGES``): the server's ``notifications/elicitation/complete`` for it goes to that
picker as ``{"completed": id, "server": name}``.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import logging
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from typing import Any

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectSendStream
from mcp.client.session import ClientRequestContext
from pydantic import ValidationError

from agentty_tui.bridge.call_hooks import calls_during
from agentty_tui.bridge.elicit import ServerElicitation, ServerElicitationComplete
from agentty_tui.gateway.host.requests import HostRequests
from agentty_tui.gateway.picker.link import LINK_ENDED, LineWriter
from agentty_tui.gateway.picker.view import MAX_DURING

__all__ = [
    "ASK_TIMEOUT",
    "MAX_ASK",
    "MAX_ASKS",
    "MAX_PAGES",
    "HostAsks",
    "PickerAsks",
    "PickerChannel",
]

_log = logging.getLogger(__name__)

ASK_TIMEOUT = 900.0
"""Seconds the daemon waits for a picker's answer: longer than the picker's own wait (which
declines, and says so, first), short of a server left waiting for good."""

MAX_ASK = 1024 * 1024
"""The largest request (its JSON) the daemon shows a picker; a larger one is declined."""

MAX_ASKS = 32
"""Requests that may wait for one picker's answer; more are declined at once."""

MAX_PAGES = 64
"""Pages a picker accepted that are remembered until the server says each is done."""

_DECLINE = types.ElicitResult(action="decline")

Key = tuple[str, str, bool]
"""A workspace as the daemon keys it (``Attachment.key``)."""


class PickerChannel:
    """One attached picker's side of what servers ask: its requests waiting for an answer."""

    def __init__(self, writer: LineWriter, key: Key, timeout: float = ASK_TIMEOUT) -> None:
        """``writer``: the picker's link; ``key``: its workspace; ``timeout``: seconds an
        answer may take."""
        self.key = key
        """The workspace the picker is attached for."""
        self._writer = writer
        self._timeout = timeout
        self._ids = itertools.count(1)
        self._waiting: dict[int, MemoryObjectSendStream[types.ElicitResult]] = {}
        self._pages: OrderedDict[tuple[str, str], None] = OrderedDict()
        self._closed = False

    @property
    def waiting(self) -> int:
        """Requests waiting for the picker's answer."""
        return len(self._waiting)

    async def ask(
        self,
        server: str,
        params: types.ElicitRequestParams,
        by: Mapping[str, Any] | None = None,
    ) -> types.ElicitResult:
        """Ask the picker ``params`` of ``server``; ``by``: who asks (the call's tool, the host
        and project of a host's call); its answer, or a decline."""
        if self._closed or len(self._waiting) >= MAX_ASKS:
            return _DECLINE
        ident = next(self._ids)
        said = {
            "ask": ident,
            "server": server,
            "params": params.model_dump(mode="json", by_alias=True, exclude_none=True),
            "by": dict(by or {}),
        }
        text = json.dumps(said, separators=(",", ":"))
        if len(text.encode()) > MAX_ASK:
            _log.info("a request of %d bytes was not asked of the picker: declined", len(text))
            return _DECLINE
        answer, answered = anyio.create_memory_object_stream[types.ElicitResult](1)
        self._waiting[ident] = answer
        result: types.ElicitResult | None = None
        try:
            await self._writer.send_text(text)
            with anyio.move_on_after(self._timeout), answered:
                result = await answered.receive()
        except LINK_ENDED:
            pass  # the picker left (or never got it): a decline
        finally:
            if self._waiting.pop(ident, None) is not None and not self._closed:
                # No answer came (time ran out, or the server withdrew it): its dialog goes.
                with anyio.CancelScope(shield=True), contextlib.suppress(*LINK_ENDED):
                    await self._writer.send({"withdrawn": ident})
        if result is None:
            return _DECLINE
        url = params.elicitation_id if isinstance(params, types.ElicitRequestURLParams) else None
        if result.action == "accept" and url is not None:
            self._pages[(server, url)] = None
            self._pages.move_to_end((server, url))
            while len(self._pages) > MAX_PAGES:
                self._pages.popitem(last=False)
        return result

    def answered(self, message: Mapping[str, Any]) -> None:
        """The picker's ``{"answer": n, "result": ...}``: the request ``n`` gets it (one that
        is not an ``ElicitResult`` is a decline; one nobody waits for is dropped)."""
        ident = message.get("answer")
        waiting = self._waiting.pop(ident, None) if isinstance(ident, int) else None
        if waiting is None:
            return
        try:
            result = types.ElicitResult.model_validate(message.get("result"))
        except ValidationError:
            result = _DECLINE
        with waiting, contextlib.suppress(anyio.WouldBlock, anyio.BrokenResourceError):
            waiting.send_nowait(result)

    def accepted(self, server: str, elicitation_id: str) -> bool:
        """Whether this picker accepted the page ``elicitation_id`` of ``server`` (and it is
        not yet done)."""
        return (server, elicitation_id) in self._pages

    async def completed(self, server: str, elicitation_id: str) -> None:
        """``server`` says the page ``elicitation_id`` is done: tell the picker."""
        self._pages.pop((server, elicitation_id), None)
        with contextlib.suppress(*LINK_ENDED):
            await self._writer.send({"completed": elicitation_id, "server": server})

    def close(self) -> None:
        """The picker left: every request waiting for it is declined."""
        self._closed = True
        for waiting in list(self._waiting.values()):
            waiting.close()
        self._waiting.clear()


class HostAsks:
    """The ``AskElsewhere`` of one attached host: its calls' requests asked of a picker."""

    def __init__(self, asks: PickerAsks, key: Key, host: str | None, project: str) -> None:
        """``host`` (``None``: every host's view) attached for the project ``project``."""
        self._asks = asks
        self._key = key
        self.host: dict[str, str | None] = {"host": host, "project": project}
        """The host as the link names it: its name (``None``: every host's view), its
        project."""
        self._by = {**self.host, "by_host": True}

    async def ask(
        self, server: str, tool: str, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        """Ask the newest picker of the host's workspace, saying which host's call asks."""
        return await self._asks.ask(self._key, server, params, {**self._by, "tool": tool})

    async def completed(self, server: str, elicitation_id: str) -> bool:
        """Tell the picker that accepted the page that it is done; whether one did."""
        return await self._asks.completed(server, elicitation_id)


class PickerAsks:
    """The daemon's attached pickers, and which of them a server's request is asked of."""

    def __init__(self) -> None:
        self._channels: list[PickerChannel] = []

    @contextlib.contextmanager
    def attached(self, channel: PickerChannel) -> Iterator[None]:
        """``channel``'s picker may be asked while the block runs; leaving declines what it
        was asked and did not answer."""
        self._channels.append(channel)
        try:
            yield
        finally:
            self._channels.remove(channel)
            channel.close()

    def newest(self, key: Key) -> PickerChannel | None:
        """The picker attached last for the workspace ``key``; ``None``: none."""
        return next((c for c in reversed(self._channels) if c.key == key), None)

    async def ask(
        self, key: Key, server: str, params: types.ElicitRequestParams, by: Mapping[str, Any]
    ) -> types.ElicitResult:
        """Ask the newest picker of ``key``; a decline when none is attached."""
        channel = self.newest(key)
        if channel is None:
            return _DECLINE
        return await channel.ask(server, params, by)

    async def completed(self, server: str, elicitation_id: str) -> bool:
        """Tell the picker that accepted the page ``elicitation_id`` of ``server`` that it is
        done; whether one did."""
        for channel in self._channels:
            if channel.accepted(server, elicitation_id):
                await channel.completed(server, elicitation_id)
                return True
        return False

    def for_bridge(self, key: Key) -> tuple[ServerElicitation, ServerElicitationComplete]:
        """A bridge of ``key``'s handler of requests no call owns, and of their completions."""

        async def handler(
            server: str, context: ClientRequestContext, params: types.ElicitRequestParams
        ) -> types.ElicitResult:
            return await self.ask(key, server, params, _during(calls_during()))

        async def completed(server: str, elicitation_id: str) -> None:
            await self.completed(server, elicitation_id)

        return handler, completed

    def for_host(self, key: Key, host: str | None, project: str) -> HostAsks:
        """How a request during a call of the host ``host`` (of the project ``project``) is
        asked of a picker when the host cannot answer it."""
        return HostAsks(self, key, host, project)


def _during(owners: tuple[object, ...]) -> dict[str, Any]:
    """Who asks, for a request no call owns: whose calls were in flight when it came
    (``owners``, the calls' ``CallHooks.owner``): the attached hosts (at most ``MAX_DURING``
    named, ``during_more`` counts the rest) and how many other callers (a picker's own call);
    ``{}`` when no call was (outside any call)."""
    hosts = [
        owner.elsewhere.host
        for owner in owners
        if isinstance(owner, HostRequests) and isinstance(owner.elsewhere, HostAsks)
    ]
    if not owners:
        return {}
    return {
        "during": hosts[:MAX_DURING],
        "during_more": max(0, len(hosts) - MAX_DURING),
        "during_others": len(owners) - len(hosts),
    }
