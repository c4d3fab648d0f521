"""One host's resource subscriptions through the gateway, in both protocol eras.

A host subscribes to a gateway URI (``agentty://<server>/<uri>``, ``host.resources``); the
gateway subscribes the server through the bridge, which does so once however many hosts
(and listen streams) hold the same resource, and lets it go with the last
(``bridge/resource_subscriptions.py``). A server's ``notifications/resources/updated`` comes
back as a ``ResourceUpdate`` and reaches each host that holds that URI, under the gateway URI.

- A 2025 handshake host sends ``resources/subscribe`` and ``resources/unsubscribe`` (the
  gateway then declares ``subscribe`` in its resources capability) and is sent
  ``notifications/resources/updated`` on its connection. A URI of no served server, or of a
  server that does not declare ``subscribe``, is refused with a protocol error that says why.
- A 2026-07-28 host names the URIs in its ``subscriptions/listen`` filter
  (``resourceSubscriptions``; the SDK declares ``subscribe`` whenever listen is served): each
  URI is subscribed for as long as that stream is open, and the stream's acknowledgment
  honours only the URIs that could be subscribed (the spec's way of saying no; why is in
  agentty's log). Updates are ``ResourceUpdated`` events on the host's listen streams, which
  the SDK's ``ListenHandler`` delivers to the streams whose filter names the URI.

Bounded: a host holds at most ``MAX_HOST_SUBSCRIPTIONS`` URIs at once (over its subscriptions
and all its listen streams); updates wait in a bounded queue (``BACKLOG``), and a host that
does not keep up loses the newest (a resource update is a level trigger: the host reads the
resource again anyway). An update of a URI the host does not hold exactly (a sub-resource of a
subscribed one) is not passed on: the SDK's listen streams match URIs exactly, and the 2025
era is kept the same.
"""

from __future__ import annotations

import contextlib
import logging
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.subscriptions import ResourceUpdated, ServerEvent
from mcp.shared.exceptions import MCPError

from agentty_tui.bridge.resource_subscriptions import ResourceUpdate
from agentty_tui.errors import AgenttyError
from agentty_tui.gateway.host.offers import OfferSource, absent, offering, refused
from agentty_tui.gateway.host.resources import (
    GATEWAY_URI_PREFIX,
    gateway_uri,
    parse_gateway_uri,
)
from agentty_tui.gateway.host.tools import served_lens
from agentty_tui.terminal_text import clip, safe_message

__all__ = ["BACKLOG", "MAX_HOST_SUBSCRIPTIONS", "HostSubscriptions", "ListenServer"]

_log = logging.getLogger(__name__)

MAX_HOST_SUBSCRIPTIONS = 64
"""The most resources one host holds subscriptions to at once."""

BACKLOG = 256
"""Resource updates that may wait for one host; more are dropped."""

ListenServer = Callable[
    [ServerRequestContext[Any, Any], types.SubscriptionsListenRequestParams],
    Awaitable[types.SubscriptionsListenResult],
]
"""A ``subscriptions/listen`` handler (the SDK's ``ListenHandler``, or one wrapping it)."""


class HostSubscriptions:
    """The resource subscriptions of one attached host and the updates it is sent."""

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
        self._direct: set[str] = set()
        """The gateway URIs the host subscribed to with ``resources/subscribe`` (2025)."""
        self._holds: Counter[str] = Counter()
        """Each gateway URI the host holds: once for ``resources/subscribe``, once for each
        listen stream that names it."""
        self.sent = 0
        """Resource updates passed to the host (diagnostics, tests)."""
        self.dropped = 0
        """Updates dropped because the host did not keep up."""
        self._send, self._receive = anyio.create_memory_object_stream[ResourceUpdate](BACKLOG)

    @property
    def held(self) -> tuple[str, ...]:
        """The gateway URIs the host holds subscriptions to now."""
        return tuple(self._holds)

    # --- subscribing ----------------------------------------------------------------

    async def _take(self, owner: object, uri: str) -> None:
        """Subscribe ``owner`` (this host, or one of its listen streams) to gateway URI
        ``uri`` through the bridge; an ``MCPError`` says why not."""
        parsed = parse_gateway_uri(uri)
        if parsed is None:
            shown = safe_message(clip(uri, 200))
            raise refused(
                f"{shown} is not a resource of agentty: its resources are named "
                f"{GATEWAY_URI_PREFIX}<server>/<uri>; list the resources again"
            )
        if uri not in self._holds and len(self._holds) >= MAX_HOST_SUBSCRIPTIONS:
            raise refused(
                f"a host may hold at most {MAX_HOST_SUBSCRIPTIONS} resource subscriptions "
                "through agentty; unsubscribe from some first"
            )
        server, own = parsed
        if server not in offering(self._source, self._host, "resources"):
            raise refused(absent(self._source, self._host, server, "resources"))
        try:
            await self._source.subscribe_resource(owner, server, own)
        except AgenttyError as exc:
            raise refused(safe_message(str(exc))) from exc
        self._holds[uri] += 1

    async def _let_go(self, owner: object, uri: str) -> None:
        parsed = parse_gateway_uri(uri)
        self._holds[uri] -= 1
        if self._holds[uri] <= 0:
            del self._holds[uri]
        if parsed is not None:
            await self._source.unsubscribe_resource(owner, *parsed)

    async def subscribe(
        self, ctx: ServerRequestContext[Any, Any], params: types.SubscribeRequestParams
    ) -> types.EmptyResult:
        """``resources/subscribe`` (2025 handshake): refused with why when the resource
        cannot be subscribed to; a second subscription to the same URI changes nothing."""
        if params.uri not in self._direct:
            await self._take(self, params.uri)
            self._direct.add(params.uri)
        return types.EmptyResult()

    async def unsubscribe(
        self, ctx: ServerRequestContext[Any, Any], params: types.UnsubscribeRequestParams
    ) -> types.EmptyResult:
        """``resources/unsubscribe`` (2025 handshake); a URI not subscribed to is no error."""
        if params.uri in self._direct:
            self._direct.discard(params.uri)
            await self._let_go(self, params.uri)
        return types.EmptyResult()

    def listening(self, inner: ListenServer) -> ListenServer:
        """``inner`` (the host's ``ListenHandler``) with the stream's resource URIs
        subscribed while it is open, and only those honoured that could be."""

        async def listen(
            ctx: ServerRequestContext[Any, Any], params: types.SubscriptionsListenRequestParams
        ) -> types.SubscriptionsListenResult:
            wanted = params.notifications.resource_subscriptions or []
            stream = object()  # this stream's own hold, let go when it ends
            honored: list[str] = []
            try:
                for uri in dict.fromkeys(wanted):
                    try:
                        await self._take(stream, uri)
                    except MCPError as exc:
                        _log.info("a listen stream's resource was not honoured: %s", exc)
                        continue
                    honored.append(uri)
                notifications = params.notifications.model_copy(
                    update={"resource_subscriptions": honored or None}
                )
                return await inner(ctx, params.model_copy(update={"notifications": notifications}))
            finally:
                with anyio.CancelScope(shield=True):
                    for uri in honored:
                        await self._let_go(stream, uri)

        return listen

    # --- updates --------------------------------------------------------------------

    def _heard(self, update: ResourceUpdate) -> None:
        try:
            self._send.send_nowait(update)
        except anyio.WouldBlock:
            self.dropped += 1
            if self.dropped == 1 or self.dropped % 1000 == 0:
                _log.warning(
                    "a host does not keep up with resource updates: %d dropped", self.dropped
                )

    async def run(self) -> None:
        """Pass the updates of the resources the host holds on until cancelled; then let
        every subscription of the host go."""
        remove = self._source.add_resource_update_listener(self._heard)
        try:
            async for update in self._receive:
                await self._pass(update)
        finally:
            remove()
            await self._source.release_subscriptions(self)

    async def _pass(self, update: ResourceUpdate) -> None:
        uri = gateway_uri(update.server, update.uri)
        if uri not in self._holds:
            return
        if served_lens(self._source.snapshot, self._host).server(update.server) is None:
            return
        self.sent += 1
        await self._publish(ResourceUpdated(uri=uri))  # 2026-07-28: the streams naming it
        session = self._session()
        if session is not None and uri in self._direct:
            # A host that went away meanwhile: its connection ends the serving anyway.
            with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                await session.send_resource_updated(uri)
