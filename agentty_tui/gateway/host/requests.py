"""What a server sends or asks during a host's call, relayed to that host; and the host's roots.

A host's ``tools/call`` reaches the server through the bridge with ``CallHooks`` made here
from the host's request (``HostRequests.hooks``):

- **Progress**: a call whose ``_meta`` carries a ``progressToken`` gets the server's
  ``notifications/progress`` for it, under the host's own token (the bridge's request to the
  server carries a token of its own), on that call's channel.
- **Elicitation**: a form the server asks during the call goes to the host when the host
  declared elicitation (form mode: ``form``, or a bare ``elicitation: {}``; URL mode: ``url``)
  and its connection can carry a request (a 2025 handshake host); its answer goes back as
  given. A host that did not declare elicitation (or not the mode asked), or whose connection
  cannot carry a request, has it asked elsewhere when there is an ``AskElsewhere`` (the
  daemon's attached picker, told which host's call asks: ``daemon.picker_asks``). Otherwise, or when
  the host's answer fails, the server hears a decline, never a protocol error. The request
  goes out tied to the host's call (``related_request_id``: on HTTP it rides that call's
  stream). The server's ``-32042`` error (URL elicitation required)
  reaches a host that declared URL mode as that error (``passed_on``), and the server's
  ``notifications/elicitation/complete`` for a URL the host accepted or was given so reaches
  that host.
- **Roots**: ``roots/list`` during the call is answered with the host's roots when it declared
  roots; else with the bridge's (``bridge/roots.py``).
- **Cancellation** needs nothing here: the host's ``notifications/cancelled`` cancels the
  handler of its call, which cancels the bridge's request, and the server hears
  ``notifications/cancelled``; the host gets no result.

Which upstream call a server's request belongs to is the bridge's part (``bridge/call_hooks``):
exact from 2026-07-28, the session's one call (or one host's calls) in flight up to 2025-11-25.

Outside calls, a host that declared roots offers them to the bridge once it is initialized and
again on each ``notifications/roots/list_changed`` (``run``), and the servers of its view are
told ``roots/list_changed``; leaving withdraws the offer.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, Protocol

import anyio
import mcp_types as types
from mcp.client.session import ClientRequestContext, ElicitationFnT, ListRootsFnT
from mcp.server.context import ServerRequestContext
from mcp.server.session import ServerSession
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError
from mcp.shared.message import ServerMessageMetadata

from agentty_tui.bridge.call_hooks import CallHooks, url_elicitations
from agentty_tui.bridge.roots import RootsBoard

__all__ = ["ROOTS_TIMEOUT", "AskElsewhere", "HostRequests", "RootsSource", "progress_token"]

_log = logging.getLogger(__name__)

ROOTS_TIMEOUT = 10.0
"""Seconds a host has to answer ``roots/list`` (a host that never answers keeps no call)."""


class RootsSource(Protocol):
    """What relaying a host's roots needs of the bridge."""

    @property
    def roots(self) -> RootsBoard:
        """The roots the bridge's servers get outside a call."""
        ...

    async def roots_changed(self, servers: Iterable[str] | None = None) -> None:
        """Tell the servers among ``servers`` that the roots changed."""
        ...


class AskElsewhere(Protocol):
    """Who is asked a server's form or page during a host's call when the host cannot answer."""

    async def ask(
        self, server: str, tool: str, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        """The answer to ``params`` of ``server`` during the host's call of ``tool``."""
        ...

    async def completed(self, server: str, elicitation_id: str) -> bool:
        """``server`` says the page ``elicitation_id`` is done: told to whoever accepted it
        here; whether one did."""
        ...


def progress_token(params: Mapping[str, Any] | None) -> str | int | None:
    """The ``progressToken`` of a request's raw params, if the caller asked for progress."""
    meta = params.get("_meta") if params is not None else None
    token = meta.get("progressToken") if isinstance(meta, Mapping) else None
    # bool is an int, and never a token.
    return token if isinstance(token, str | int) and not isinstance(token, bool) else None


class HostRequests:
    """One attached host's side of what servers send and ask: per-call hooks, and its roots."""

    def __init__(
        self,
        source: RootsSource,
        servers: Callable[[], Iterable[str]],
        elsewhere: AskElsewhere | None = None,
    ) -> None:
        """``source``: the bridge; ``servers``: the servers of the host's view now (told when
        the host's roots change); ``elsewhere``: who is asked what the host cannot answer
        (``None``: declined)."""
        self._source = source
        self._elsewhere = elsewhere
        self._servers = servers
        self._connection: ServerSession | None = None
        self._refresh = anyio.Event()
        self.offered = 0
        """How many times the host's roots were offered to the bridge (diagnostics, tests)."""

    @property
    def elsewhere(self) -> AskElsewhere | None:
        """Who is asked what the host cannot answer (the owner of the host's calls names its
        host through it: ``daemon.picker_asks``)."""
        return self._elsewhere

    # --- per call -------------------------------------------------------------------

    def hooks(self, ctx: ServerRequestContext[Any, Any], server: str, tool: str) -> CallHooks:
        """The hooks of the host's call ``ctx`` (of ``tool`` on ``server``): its progress,
        forms and roots relayed."""
        session = ctx.session
        capabilities = session.client_capabilities
        asks = session.can_send_request
        elicitation = capabilities.elicitation if capabilities is not None else None
        roots = capabilities.roots if capabilities is not None else None
        declared = elicitation if asks else None
        relays = declared is not None or self._elsewhere is not None
        return CallHooks(
            progress=self._progress(ctx),
            elicitation=self._elicit(ctx, declared, server, tool) if relays else None,
            roots=self._roots(ctx, server) if asks and roots is not None else None,
            elicitation_complete=self._completed(session, server, elicitation is not None)
            if relays
            else None,
            owner=self,
        )

    def _progress(self, ctx: ServerRequestContext[Any, Any]) -> ProgressFnT | None:
        token = progress_token(ctx.params)
        if token is None:
            return None
        session, request_id = ctx.session, ctx.request_id

        async def relay(progress: float, total: float | None, message: str | None) -> None:
            # A host gone meanwhile: its connection ends the serving anyway.
            with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                await session.send_progress_notification(
                    token,
                    progress,
                    total,
                    message,
                    related_request_id=None if request_id is None else str(request_id),
                )

        return relay

    def _elicit(
        self,
        ctx: ServerRequestContext[Any, Any],
        declared: types.ElicitationCapability | None,
        server: str,
        tool: str,
    ) -> ElicitationFnT:
        # A bare ``elicitation: {}`` (from before modes existed) is form support.
        form = declared is not None and (declared.form is not None or declared.url is None)
        url = declared is not None and declared.url is not None
        session, request_id, elsewhere = ctx.session, ctx.request_id, self._elsewhere

        async def relay(
            context: ClientRequestContext, params: types.ElicitRequestParams
        ) -> types.ElicitResult:
            is_url = isinstance(params, types.ElicitRequestURLParams)
            if not (url if is_url else form):
                if elsewhere is not None:  # the host cannot: whoever is asked instead
                    return await elsewhere.ask(server, tool, params)
                return types.ElicitResult(action="decline")
            request = types.ElicitRequest(params=params)
            try:
                return await session.send_request(
                    request,
                    types.ElicitResult,
                    metadata=ServerMessageMetadata(related_request_id=request_id),
                )
            except (MCPError, anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
                # The host could not answer: the server hears a decline, not our error.
                _log.info("the host's elicitation failed (%s); declined", type(exc).__name__)
                return types.ElicitResult(action="decline")

        return relay

    def _completed(
        self, session: ServerSession, server: str, declared: bool
    ) -> Callable[[str], Awaitable[None]]:
        elsewhere = self._elsewhere

        async def relay(elicitation_id: str) -> None:
            if elsewhere is not None and await elsewhere.completed(server, elicitation_id):
                return  # a page the host could not take, accepted elsewhere: told there
            if not declared:
                return
            # Not tied to the call: it has often ended by now (the host retries it).
            with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                await session.send_elicit_complete(elicitation_id)

        return relay

    def _roots(self, ctx: ServerRequestContext[Any, Any], server: str) -> ListRootsFnT:
        session, request_id = ctx.session, ctx.request_id

        async def relay(context: ClientRequestContext) -> types.ListRootsResult:
            try:
                return await _ask_roots(session, request_id)
            except (MCPError, TimeoutError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                # The host did not answer: what the bridge offers ``server`` (its config's).
                return types.ListRootsResult(roots=list(self._source.roots.current(server)))

        return relay

    def passed_on(
        self, ctx: ServerRequestContext[Any, Any], failure: BaseException
    ) -> MCPError | None:
        """The error to answer the host's call ``ctx`` with when the server's own must reach it:
        ``-32042`` (URL elicitation required, with the URLs to open) to a host that declared URL
        mode; ``None``: the call's failure is said in an ``isError`` result as any other."""
        urls = url_elicitations(failure.__cause__)
        capabilities = ctx.session.client_capabilities
        elicitation = capabilities.elicitation if capabilities is not None else None
        if urls is None or elicitation is None or elicitation.url is None:
            return None
        return UrlElicitationRequiredError(urls)

    # --- the host's roots outside calls -------------------------------------------------

    def initialized(self, session: ServerSession) -> None:
        """The host finished its handshake on ``session``: ask its roots if it declared them."""
        self._connection = session
        self.roots_changed()

    def roots_changed(self) -> None:
        """The host said its roots changed (or just connected): ask them again."""
        self._refresh.set()

    async def run(self) -> None:
        """Offer the host's roots to the bridge whenever they may have changed (a task beside
        the serving; cancelling it withdraws the offer)."""
        try:
            while True:
                await self._refresh.wait()
                self._refresh = anyio.Event()
                await self._offer()
        finally:
            self._source.roots.withdraw(self)
            with anyio.CancelScope(shield=True):
                if self.offered:
                    await self._tell_servers()

    async def _offer(self) -> None:
        session = self._connection
        capabilities = session.client_capabilities if session is not None else None
        if session is None or capabilities is None or capabilities.roots is None:
            return
        try:
            found = await _ask_roots(session, None)
        except (MCPError, TimeoutError) as exc:
            _log.info("the host's roots/list failed (%s); not offered", type(exc).__name__)
            return
        self._source.roots.offer(self, found.roots)
        self.offered += 1
        await self._tell_servers()

    async def _tell_servers(self) -> None:
        with contextlib.suppress(MCPError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await self._source.roots_changed(tuple(self._servers()))


async def _ask_roots(
    session: ServerSession, request_id: types.RequestId | None
) -> types.ListRootsResult:
    """The host's ``roots/list`` (tied to its call ``request_id``, if any), within a timeout."""
    # The SDK's ``list_roots`` helper is marked deprecated (for 2026-07-28); the request is not.
    metadata = None if request_id is None else ServerMessageMetadata(related_request_id=request_id)
    with anyio.fail_after(ROOTS_TIMEOUT):
        return await session.send_request(
            types.ListRootsRequest(), types.ListRootsResult, metadata=metadata
        )
