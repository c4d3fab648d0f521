"""The MCP server one attached host talks to: its tools, their calls, their changes.

A ``HostServer`` serves one host over one stream pair, whatever the streams are (stdio, the
daemon's socket, an HTTP session's) and wherever the bridge lives: it reads the plugin state
only through a ``GatewaySource`` (the snapshot, its updates, a tool call), which ``Bridge`` is.
A transport that drives the SDK server itself (the 2026-07-28 era over HTTP, one request at a
time) uses its parts: ``settle``, ``build``, ``follow``.

- The host's first request is read once every server of its lens connected or failed, at
  most ``wait`` seconds: so the first ``tools/list`` is never an empty success while servers
  are still starting, and ``initialize``'s ``instructions`` (``server/discover``'s in the
  2026-07-28 era) name the servers that failed, wait for a login or for trust, or are still
  connecting (those arrive later by ``tools/list_changed``).
- ``tools/list`` is ``HostTools``: the wire catalog of the snapshot through the host's lens,
  under gateway names.
- ``tools/call`` forwards to the server through the source (result, ``isError`` and content
  as the server gave them); a name that is not in the current list is refused with an
  ``isError`` result that says why and what to do (``host.tools.refusal``). The call's
  progress, cancellation, forms and roots pass between server and host
  (``host.requests.py``), and so do the host's roots outside calls; a 2026-07-28 host's call
  that opts into its log messages gets them with it (``HostLogging.call_log``).
- Every change of that list (a toggle, a reload, an outside edit, a server's own
  ``list_changed``, a server that connects late or fails) is announced once: a snapshot that
  leaves the host's list as it was announces nothing. Both protocol eras: a 2025 handshake
  client gets ``notifications/tools/list_changed`` on its connection, a 2026-07-28 client on
  its ``subscriptions/listen`` stream.
- Given an ``OfferSource`` (``offers``), the host's resources (and their subscriptions),
  prompts and log messages pass through too (``host.passthrough.Passthrough``); without one, only
  tools are declared.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial
from typing import Any, Protocol

import anyio
import anyio.abc
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.session import ServerSession
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp.shared.message import SessionMessage

from agentty_tui import __version__
from agentty_tui.bridge.call_hooks import CallHooks
from agentty_tui.bridge.call_logging import logging_to
from agentty_tui.catalog.names import ToolRef
from agentty_tui.errors import AgenttyError
from agentty_tui.gateway.attachment import DEFAULT_WAIT
from agentty_tui.gateway.host.offers import OfferSource
from agentty_tui.gateway.host.passthrough import Passthrough
from agentty_tui.gateway.host.requests import AskElsewhere, HostRequests, RootsSource
from agentty_tui.gateway.host.rounds import HostRounds
from agentty_tui.gateway.host.tools import (
    HostTools,
    ToolsMaker,
    instructions,
    refusal,
    served_lens,
)
from agentty_tui.model import PluginModel
from agentty_tui.terminal_text import safe_message

__all__ = ["DEFAULT_WAIT", "SERVER_NAME", "GatewaySource", "HostServer", "refused"]


SERVER_NAME = "agentty"
"""The gateway's name in ``initialize`` (and the entry a host is given)."""


class GatewaySource(RootsSource, Protocol):
    """What serving a host needs of the plugin state (a ``Bridge`` in this process)."""

    @property
    def snapshot(self) -> PluginModel:
        """The current model."""
        ...

    def updates(self) -> AsyncIterator[PluginModel]:
        """The current model, then every newer one (a slow reader skips to the latest)."""
        ...

    async def wait_for(
        self, predicate: Callable[[PluginModel], bool], timeout: float | None = None
    ) -> PluginModel:
        """The first model, now or later, for which ``predicate`` holds."""
        ...

    async def call_tool(
        self,
        server: str,
        tool: str,
        arguments: dict[str, Any] | None = None,
        hooks: CallHooks | None = None,
    ) -> types.CallToolResult:
        """Call one tool of one server (``hooks``: its progress and what it asks)."""
        ...


ROUND_GONE = (
    "this answers a question the gateway no longer waits for (answered already, or too late); "
    "call the tool again"
)
"""The refusal of an ``input_required`` round whose ``requestState`` is unknown."""


def refused(message: str) -> types.CallToolResult:
    """A call's ``isError`` result saying ``message``."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)], is_error=True
    )


class HostServer:
    """The gateway as one attached host sees it: one connection, one host's lens."""

    def __init__(
        self,
        source: GatewaySource,
        host: str | None = None,
        *,
        wait: float = DEFAULT_WAIT,
        offers: OfferSource | None = None,
        elsewhere: AskElsewhere | None = None,
    ) -> None:
        """``host``: whose lens (``None``: every host's servers); ``wait``: seconds the first
        request waits for servers still connecting; ``offers``: where the servers' resources,
        prompts and log messages come from (``None``: tools only); ``elsewhere``: who is asked
        a server's form or page during the host's call when the host cannot answer it (the
        daemon's attached picker; ``None``: declined)."""
        self._source = source
        self._host = host
        self._wait = wait
        self._tools = ToolsMaker(host)
        self._given: dict[str, ToolRef] = {}  # every name this host was given, for refusals
        self._announced: object = None  # the key of the list the host was last told of
        self._bus = InMemorySubscriptionBus()
        self._listen = ListenHandler(self._bus)
        self._handshake: ServerSession | None = None
        self._requests = HostRequests(source, self._view_servers, elsewhere)
        self._rounds = HostRounds()
        self.announced = 0
        """How many ``tools/list_changed`` were sent (diagnostics, tests)."""
        self.passthrough = (
            None
            if offers is None
            else Passthrough(offers, host, lambda: self._handshake, self._bus.publish)
        )
        """Resources, prompts and log messages, when they are served."""

    async def serve(
        self,
        read_stream: anyio.abc.ObjectReceiveStream[SessionMessage | Exception],
        write_stream: anyio.abc.ObjectSendStream[SessionMessage],
    ) -> None:
        """Serve the host until its side of the streams ends."""
        await self.settle()
        server = self.build()
        served = self.passthrough is not None
        changes = NotificationOptions(
            tools_changed=True, resources_changed=served, prompts_changed=served
        )
        options = server.create_initialization_options(changes)
        async with anyio.create_task_group() as group:
            await group.start(self.follow)
            await server.run(read_stream, write_stream, options)
            group.cancel_scope.cancel()

    async def settle(self) -> None:
        """Until every server the host is served connected or failed, at most ``wait`` s."""
        host = self._host
        with anyio.move_on_after(self._wait):
            await self._source.wait_for(lambda model: served_lens(model, host).settled)

    def build(self) -> Server[Any]:
        """The SDK server of this host, its instructions from the current snapshot (so after
        ``settle``); ``follow`` announces the changes from here on. A transport that drives
        the SDK server itself (HTTP: ``gateway/http``) uses these three instead of ``serve``."""
        now = self._now()
        self._announced = now.key
        passthrough = self.passthrough
        with warnings.catch_warnings():
            # logging/setLevel is a 2025 handshake request (deprecated in 2026-07-28): served
            # for the hosts that send it, without a warning on the host's stderr.
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            server: Server[Any] = Server(
                SERVER_NAME,
                version=__version__,
                instructions=instructions(now),
                on_list_tools=self._list,
                on_call_tool=self._call,
                on_subscriptions_listen=self._listen
                if passthrough is None
                else passthrough.listening(self._listen),
                get_tool_input_schema=self._input_schema,
                **(passthrough.handlers() if passthrough is not None else {}),
            )
        # The SDK's tracing middleware exports nothing here; it would only cost every call.
        server.middleware.clear()
        server.add_notification_handler(
            "notifications/initialized", types.NotificationParams, self._initialized
        )
        server.add_notification_handler(
            "notifications/roots/list_changed", types.NotificationParams, self._roots_changed
        )
        return server

    async def follow(
        self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """Announce every change of the host's list, once; relay what the servers ask the host
        during its calls; pass the servers' resources, prompts and log messages through when
        they are served (until cancelled). Started once calls can be taken."""
        async with anyio.create_task_group() as group:
            group.start_soon(self._follow_tools)
            group.start_soon(self._requests.run)
            await group.start(self._rounds.run)
            if self.passthrough is not None:
                group.start_soon(self.passthrough.run)
            task_status.started()

    def end_listens(self) -> None:
        """End every open ``subscriptions/listen`` stream, each with its final result (the
        spec's graceful close): a server going away, so the streams do not hold it up."""
        self._listen.close()

    def _now(self) -> HostTools:
        return self._tools.of(self._source.snapshot)

    async def _initialized(
        self, ctx: ServerRequestContext[Any, Any], params: types.NotificationParams
    ) -> None:
        """A 2025 handshake client: its connection is where list changes are sent."""
        self._handshake = ctx.session
        self._requests.initialized(ctx.session)

    async def _roots_changed(
        self, ctx: ServerRequestContext[Any, Any], params: types.NotificationParams | None
    ) -> None:
        self._requests.roots_changed()

    def _view_servers(self) -> tuple[str, ...]:
        """The servers of the host's view now (told when the host's roots change)."""
        return tuple(state.name for state in served_lens(self._source.snapshot, self._host).servers)

    async def _list(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        now = self._now()
        self._given.update(now.refs)
        return types.ListToolsResult(tools=list(now.tools))

    def _input_schema(self, name: str) -> dict[str, Any] | None:
        """A served tool's input schema: what the 2026-07-28 HTTP era checks a call's
        ``Mcp-Param-*`` headers against (without it, the SDK lists every tool per call)."""
        for tool in self._now().tools:
            if tool.name == name:
                return tool.input_schema
        return None

    async def _call(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        now = self._now()
        ref = now.refs.get(params.name)
        if ref is None:
            return refused(refusal(params.name, self._given.get(params.name), now))
        forward = partial(
            self._source.call_tool, ref.server, ref.tool, dict(params.arguments or {})
        )
        passthrough = self.passthrough
        log = None if passthrough is None else passthrough.logging.call_log(ctx)
        with logging_to(log):  # a 2026-07-28 host's opt-in: the call's log messages
            return await self._forward(
                ctx, params, forward, self._requests.hooks(ctx, ref.server, ref.tool)
            )

    async def _forward(
        self,
        ctx: ServerRequestContext[Any, Any],
        params: types.CallToolRequestParams,
        forward: Callable[[CallHooks], Awaitable[types.CallToolResult]],
        hooks: CallHooks,
    ) -> types.CallToolResult | types.InputRequiredResult:
        try:
            if HostRounds.wanted(ctx):  # a 2026-07-28 host is asked in input_required rounds
                answer = await self._rounds.call(ctx, params, hooks, forward)
                return refused(ROUND_GONE) if answer is None else answer
            return await forward(hooks)
        except AgenttyError as exc:  # the server went down or the call failed: said, not raised
            passed = self._requests.passed_on(ctx, exc)  # but a -32042 a host can act on
            if passed is not None:
                raise passed from None
            return refused(safe_message(str(exc)))

    async def _follow_tools(self) -> None:
        """Announce every change of the host's tool list, once."""
        async for snapshot in self._source.updates():
            now = self._tools.of(snapshot)
            if now.key != self._announced:
                self._announced = now.key
                await self._announce()

    async def _announce(self) -> None:
        self.announced += 1
        await self._bus.publish(ToolsListChanged())  # 2026-07-28: the listen streams
        session = self._handshake
        if session is not None:
            # A host that went away meanwhile: its connection ends the serving anyway.
            with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                await session.send_tool_list_changed()
