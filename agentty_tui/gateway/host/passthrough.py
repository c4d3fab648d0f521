"""What a host gets through the gateway besides tools: resources (and their subscriptions),
prompts, log messages.

``Passthrough`` holds one attached host's ``HostResources``, ``HostSubscriptions``,
``HostPrompts`` and ``HostLogging``, hands their request handlers to the host's MCP server
(``handlers``: the capabilities the gateway declares are exactly these), and announces each
change of the host's resources or prompts once, in both protocol eras (a 2025 handshake host gets
``notifications/resources/list_changed`` or ``notifications/prompts/list_changed`` on its
connection, a 2026-07-28 host the same events on its ``subscriptions/listen`` stream).

A change is: a served server's own list_changed of that kind (the bridge's ``OfferChange``);
or a change of which servers of the host's view are connected and offer that kind (a server
that connects, restarts, fails, is switched off or leaves the config; the host's view that
changes). Changes that arrive together are announced once.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, Literal

import anyio
from mcp.server.session import ServerSession
from mcp.shared.subscriptions import PromptsListChanged, ResourcesListChanged, ServerEvent

from agentty_tui.bridge.offers import OfferChange
from agentty_tui.gateway.host.log_messages import HostLogging
from agentty_tui.gateway.host.offers import OfferSource, offering
from agentty_tui.gateway.host.prompts import HostPrompts
from agentty_tui.gateway.host.resources import HostResources
from agentty_tui.gateway.host.subscriptions import HostSubscriptions, ListenServer

__all__ = ["Passthrough"]

Kind = Literal["resources", "prompts"]
_KINDS: tuple[Kind, ...] = ("resources", "prompts")


class Passthrough:
    """Resources, prompts and log messages of one attached host."""

    def __init__(
        self,
        source: OfferSource,
        host: str | None,
        session: Callable[[], ServerSession | None],
        publish: Callable[[ServerEvent], Awaitable[None]],
    ) -> None:
        """``session``: the host's 2025 handshake connection, once it has one; ``publish``:
        puts an event on the host's 2026-07-28 ``subscriptions/listen`` streams."""
        self._source = source
        self._host = host
        self._session = session
        self._publish = publish
        self.resources = HostResources(source, host)
        """``resources/list``, ``resources/templates/list``, ``resources/read``."""
        self.subscriptions = HostSubscriptions(source, host, session, publish)
        """``resources/subscribe``, ``resources/unsubscribe``, the resources named by listen
        streams, and the updates of all of them."""
        self.prompts = HostPrompts(source, host)
        """``prompts/list``, ``prompts/get``."""
        self.logging = HostLogging(source, host, session)
        """``logging/setLevel`` and the servers' log messages."""
        self.announced: dict[Kind, int] = dict.fromkeys(_KINDS, 0)
        """How many list_changed of each kind were sent (diagnostics, tests)."""
        self._keys: dict[Kind, tuple[str, ...]] = {kind: () for kind in _KINDS}
        self._dirty: set[Kind] = set()
        self._wake = anyio.Event()

    def handlers(self) -> dict[str, Any]:
        """The request handlers of the host's low-level MCP ``Server``, by keyword."""
        return {
            "on_list_resources": self.resources.list_resources,
            "on_list_resource_templates": self.resources.list_templates,
            "on_read_resource": self.resources.read,
            "on_subscribe_resource": self.subscriptions.subscribe,
            "on_unsubscribe_resource": self.subscriptions.unsubscribe,
            "on_list_prompts": self.prompts.list_prompts,
            "on_get_prompt": self.prompts.get,
            "on_set_logging_level": self.logging.set_level,
        }

    def listening(self, inner: ListenServer) -> ListenServer:
        """The host's ``subscriptions/listen`` handler: ``inner``, with the resources a
        stream names subscribed while it is open (``HostSubscriptions.listening``)."""
        return self.subscriptions.listening(inner)

    async def run(self) -> None:
        """Follow the host's resources, prompts and log messages until cancelled."""
        self._rekey(mark=False)
        remove = self._source.add_offer_listener(self._heard)
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(self.logging.run)
                group.start_soon(self.subscriptions.run)
                group.start_soon(self._announcer)
                async for _snapshot in self._source.updates():
                    self._rekey()
        finally:
            remove()

    def _rekey(self, *, mark: bool = True, server: str | None = None) -> None:
        """Note which served servers offer each kind now; mark a kind whose set changed (or
        that ``server``, which connected or ended, was or is one of)."""
        for kind in _KINDS:
            before, now = self._keys[kind], offering(self._source, self._host, kind)
            self._keys[kind] = now
            if mark and (now != before or (server is not None and server in (*before, *now))):
                self._mark(kind)

    def _heard(self, change: OfferChange) -> None:
        if change.kind == "connection":
            self._rekey(server=change.server)
        elif change.server in self._keys[change.kind]:
            self._mark(change.kind)

    def _mark(self, kind: Kind) -> None:
        if kind == "prompts":
            self.prompts.forget()
        self._dirty.add(kind)
        self._wake.set()

    async def _announcer(self) -> None:
        while True:
            await self._wake.wait()
            self._wake = anyio.Event()
            dirty, self._dirty = self._dirty, set()
            for kind in _KINDS:
                if kind in dirty:
                    await self._announce(kind)

    async def _announce(self, kind: Kind) -> None:
        self.announced[kind] += 1
        resources = kind == "resources"
        await self._publish(ResourcesListChanged() if resources else PromptsListChanged())
        session = self._session()
        if session is not None:
            # A host that went away meanwhile: its connection ends the serving anyway.
            with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                if resources:
                    await session.send_resource_list_changed()
                else:
                    await session.send_prompt_list_changed()
