"""One server's supervised session: connect, list, follow list_changed, notice death, stop.

A ``ServerSession`` owns one connection to one server for its whole life. Its ``run`` task
enters and exits the mcp ``Client`` (anyio requires both in one task) and never raises: every
failure becomes a ``failed`` state with an error a user can act on. What the session knows is
one frozen ``SessionState``, replaced whole on every change and handed to ``on_change(state)``.
Nobody writes into a session: its config is the one it started with (a reload that changes the
``connection_key`` starts a new session; the tool filter is applied above it). Change notices
come by the message handler (2025 handshake) or the ``listen`` stream (2026-07-28); bursts are
coalesced by ``bridge/listing.py``.

The frozen state, what the session connects through and the lease accounting of the step
runtimes that may still call through a retired session are here too, after the session.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

import anyio
import anyio.abc
import mcp_types as types
from mcp import Client
from mcp.client.session import ElicitationFnT
from mcp.client.subscriptions import ResourceUpdated
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from agentty_tui import __version__
from agentty_tui.bridge import listing
from agentty_tui.bridge._sdk import keep_mismatched_results, refuse_sampling
from agentty_tui.bridge.auth import AgenttyOAuthProvider, LoginUI, auth_state, connect_provider
from agentty_tui.bridge.call_hooks import CallHooks, CallRouter, answer_elicitation, answer_roots
from agentty_tui.bridge.call_logging import CallLogs, call_log
from agentty_tui.bridge.early import EarlyStarts
from agentty_tui.bridge.expand import ExpansionError, expand_spec, redactor_for
from agentty_tui.bridge.failures import (
    authorization_failure,
    call_failed,
    connect_timeout,
    exit_message,
    failure_text,
    login_hint,
    missing_cwd,
    not_connected,
    observed_failure,
    see_exit,
)
from agentty_tui.bridge.http import HttpTransport
from agentty_tui.bridge.inherited import Inherited
from agentty_tui.bridge.listing import (
    Listing,
    Relister,
    follow_listen_stream,
    list_all_tools,
    noisy_warning,
)
from agentty_tui.bridge.logs import ServerLog
from agentty_tui.bridge.offers import (
    OfferChange,
    OfferKind,
    OfferListener,
    ServerOffers,
    all_pages,
    offers_of,
)
from agentty_tui.bridge.resource_subscriptions import ResourceUpdate, ResourceUpdateListener
from agentty_tui.bridge.server_logging import (
    LogListener,
    ServerLogMessage,
    bounded_data,
)
from agentty_tui.bridge.stdio import StdioTransport
from agentty_tui.errors import OperationError
from agentty_tui.model import (
    AdvertisedTool,
    AuthState,
    DroppedTool,
    HttpSpec,
    ServerConfig,
    ServerInfo,
    ServerStatus,
    StdioSpec,
)
from agentty_tui.secrets import Redactor

Answer = TypeVar("Answer")

__all__ = [
    "SAMPLING_REFUSED",
    "SAMPLING_WARNING",
    "ServerSession",
    "SessionState",
    "http_connection",
    "login_needed",
    "oauth_state",
    "server_info",
    "session_warnings",
    "spawned",
]


class ServerSession:
    """The one live connection to one configured server.

    Read ``state`` (or the value ``on_change`` receives); wait on ``settled`` and ``closed``.
    Step runtimes hold leases on a session (``acquire``): a retired one stops after the last.
    """

    def __init__(
        self,
        config: ServerConfig,
        log: ServerLog,
        on_change: Callable[[SessionState], None],
        elicitation: ElicitationFnT | None = None,
        login_ui: LoginUI | None = None,
        roots: Callable[[], Awaitable[tuple[types.Root, ...]]] | None = None,
        *,
        on_offer: OfferListener | None = None,
        on_log: LogListener | None = None,
        log_level: Callable[[], types.LoggingLevel | None] = lambda: None,
        on_resource_updated: ResourceUpdateListener | None = None,
        resource_uris: Callable[[], tuple[str, ...]] = tuple,
        inherited: Inherited | None = None,
        early: EarlyStarts | None = None,
        elicitation_complete: Callable[[str], Awaitable[None]] | None = None,
    ) -> None:
        """``elicitation``: answers a server's forms where no call's hooks do (without one,
        and without ``roots``, the session offers neither), and ``elicitation_complete`` is
        told the id of a URL request it accepted once the server says it completed;
        ``login_ui``: where a step-up (``403 insufficient_scope``) shows its browser login,
        without one such a server turns ``needs_login`` with the reason; ``roots``: the roots
        a server gets when it asks outside a call that answers them (``None``: roots are not
        offered). ``on_offer``
        hears each change of what the server offers besides tools, ``on_log`` each of its log
        messages; ``log_level`` is the level to ask a server for when it connects;
        ``on_resource_updated`` hears each update of a subscribed resource, and
        ``resource_uris`` names the resources to subscribe to when it connects;
        ``inherited``: the environment and folder the server starts from (default: this
        process's); ``early``: where its process may already have been started (before the
        SDK was imported)."""
        self._config = config
        self._inherited = inherited or Inherited()
        self._early = early
        self.log = log
        self.closed = anyio.Event()
        """Set once ``run`` has returned and the server process is gone."""
        self.settled = anyio.Event()
        """Set once the session has connected, failed or ended: no longer ``connecting``."""
        self._state = SessionState()
        self._on_change = on_change
        self._elicitation = elicitation
        """Answers a server's form requests; without one the session does not offer them."""
        self._elicitation_complete = elicitation_complete
        self._roots = roots
        self._router = CallRouter()
        """Which call in flight a server's request (a form, ``roots/list``) is for."""
        self._client: Client | None = None
        self._transport: StdioTransport | None = None
        self._http: HttpTransport | None = None
        self._auth: AgenttyOAuthProvider | None = None
        self._auth_spec: HttpSpec | None = None
        self._login_ui = login_ui
        self._scope: anyio.CancelScope | None = None
        self._stopping = False
        self._pages_cut = False
        self._redactor = Redactor()
        """Removes what ``${VAR}`` expansion put in (and URL credentials) from shown text."""
        self._relister = Relister(log, self._note)
        self._leases = 0
        self._retired = False
        self._on_offer = on_offer
        self._on_log = on_log
        self._log_level = log_level
        self._on_resource_updated = on_resource_updated
        self._resource_uris = resource_uris
        self._group: anyio.abc.TaskGroup | None = None
        """The connection's task group while it is connected (2026-07-28 subscriptions)."""
        self._resource_listens: dict[str, anyio.CancelScope] = {}
        """The listen stream of each subscribed resource (2026-07-28), by URI."""
        self._call_logs = CallLogs()
        """The calls in flight that opted into their log messages (2026-07-28)."""
        self._was_connected = False
        self._sampling_asked = False
        """Whether the server asked for sampling (refused: not offered), noted in warnings."""

    # --- what it publishes ----------------------------------------------------------

    @property
    def name(self) -> str:
        """The server's config key."""
        return self._config.name

    @property
    def config(self) -> ServerConfig:
        """The config entry the session was started with (fixed for its life)."""
        return self._config

    @property
    def state(self) -> SessionState:
        """The latest state; the same object the last ``on_change`` received."""
        return self._state

    def _publish(self, **changes: Any) -> None:
        """Replace the state (with the current warnings and pid) and tell the listener."""
        pid = None
        if self._transport is not None and not self.closed.is_set():
            pid = self._transport.pid
        warnings = session_warnings(
            self.log.problem,
            self._pages_cut,
            self._relister.noisy,
            sampling_asked=self._sampling_asked,
        )
        self._state = dataclasses.replace(self._state, **changes, warnings=warnings, pid=pid)
        self._on_change(self._state)

    # --- life cycle -----------------------------------------------------------------

    async def run(self) -> None:
        """The session's task: connect and serve until stopped or failed. Never raises."""
        try:
            await self._supervise()
        except Exception as exc:  # a server's failure must never reach the bridge's task group
            try:
                message = self._describe(exc)
            except Exception as describing:  # the description must not fail the bridge either
                message = self._redactor.scrub(
                    f"{type(exc).__name__} ({describing!r} while describing it)"
                )
            self._fail(message, "needs_login" if login_needed(self._http, self._auth) else "failed")
        finally:
            self._client = None
            self._group = None
            self._resource_listens.clear()
            self.closed.set()
            self.settled.set()
            self._publish()
            if self._was_connected:  # what it offered is gone with it
                self._offer_changed("connection")

    def stop(self) -> None:
        """Ask the session to close its connection and stop the server process."""
        self._stopping = True
        if self._scope is None:  # not started yet: it starts cancelled
            self._scope = anyio.CancelScope()
        self._scope.cancel()

    # --- leases ---------------------------------------------------------------------
    # A step pins the sessions whose tools it advertised; a reload that replaces a server
    # retires the old session, which must then stay open until the last step that holds it
    # has finished.

    def retire(self) -> None:
        """Stop once no step runtime holds the session any more."""
        self._retired = True
        if self._leases == 0:
            self.stop()

    def acquire(self) -> None:
        """Take a lease: the session stays open while a step that advertised it runs."""
        self._leases += 1

    def release(self) -> None:
        """Give a lease back; the last one stops a retired session."""
        self._leases -= 1
        if self._retired and self._leases == 0:
            self.stop()

    async def _supervise(self) -> None:
        if self._config.spec is None:  # the bridge never starts an invalid entry
            self._fail(self._config.problem or "the config entry is invalid")
            return
        try:
            spec = expand_spec(self._config.spec, self._inherited.environ)
        except ExpansionError as exc:
            self._fail(str(exc))
            return
        self._redactor = redactor_for(self._config.spec, spec, self._inherited.environ)
        if isinstance(spec, StdioSpec):
            spec = self._inherited.placed(spec)
            if spec.cwd is not None and not await anyio.Path(spec.cwd).is_dir():
                self._fail(missing_cwd(spec.cwd))
                return
            assert isinstance(self._config.spec, StdioSpec)
            self._transport = StdioTransport(
                spec,
                self.log,
                shown=self._config.spec,
                redactor=self._redactor,
                notices=self._relister.rate,
                environment=self._inherited.server_environment(),
                early=self._early,
                name=self.name,
            )
            transport: Any = spawned(self._transport, self._publish)
        else:
            transport = self._http_transport(spec)
        client = Client(
            transport,
            mode="auto",
            message_handler=self._on_message,
            elicitation_callback=(
                None
                if self._elicitation is None
                else answer_elicitation(self._router, self._elicitation, self._elicitation_complete)
            ),
            list_roots_callback=None
            if self._roots is None
            else answer_roots(self._router, self._roots),
            read_timeout_seconds=self._config.request_timeout,
            cache=None,
            client_info=types.Implementation(name="agentty-tui", version=__version__),
            logging_callback=self._on_log_message,
        )
        if self._scope is None:
            self._scope = anyio.CancelScope()
        timeout = self._config.connect_timeout
        self._scope.deadline = anyio.current_time() + timeout
        failure: str | None = None
        with self._scope:
            async with client, anyio.create_task_group() as group:
                # Before anything awaits: no request of the server is answered before these.
                keep_mismatched_results(client)
                refuse_sampling(client, self._sampling_refused)
                self._client = client
                self._group = group
                if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
                    # Subscribe before listing, so no change between the two is missed.
                    relister, offer = self._relister, self._offer_changed
                    await group.start(follow_listen_stream, client, relister, self._note, offer)
                listing = await self._list_all(client)
                self._scope.deadline = math.inf
                self._connected(client, listing)
                group.start_soon(self._relister.run, lambda: self._list_all(client), self._relisted)
                # Beside the session's work: a server slow to answer it delays nothing.
                group.start_soon(self._ask_log_level, client, self._log_level())
                group.start_soon(self._resubscribe, client)
                failure = await self._until_gone()
                group.cancel_scope.cancel()
        if failure is not None:
            self._fail(failure)
        elif self._scope.cancelled_caught and not self._stopping:
            self._fail(self._with_tail(connect_timeout(timeout)))

    def _http_transport(self, spec: HttpSpec) -> HttpTransport:
        self._http, self._auth = http_connection(spec, self._config, self._login_ui)
        self._auth_spec = spec
        return self._http

    async def _until_gone(self) -> str | None:
        """Wait until the server goes away by itself, and say why (stdio only; else forever)."""
        if self._transport is None:
            await anyio.sleep_forever()
        assert self._transport is not None
        await self._transport.ended.wait()
        return self._with_tail(await exit_message(self._transport))

    def _connected(self, client: Client, listing: Listing) -> None:
        self.log.note(f"connected ({client.protocol_version}), {len(listing.tools)} tools")
        self.settled.set()
        self._publish(
            status="connected",
            error=None,
            info=server_info(client),
            tools=listing.tools,
            dropped_tools=listing.dropped,
            auth=oauth_state(self._auth_spec, self._auth),
        )
        self._was_connected = True
        self._offer_changed("connection")

    def _fail(self, message: str, status: ServerStatus = "failed") -> None:
        if self._stopping:
            return
        self.log.note(f"failed: {message}")
        self.settled.set()
        self._publish(status=status, error=message, auth=oauth_state(self._auth_spec, self._auth))

    # --- tools ----------------------------------------------------------------------

    async def _list_all(self, client: Client) -> Listing:
        """Every page of ``tools/list``, screened; remembers whether it was cut."""
        timeout = self._config.request_timeout
        transport = self._transport or self._http  # either may have cut too-deep messages
        listing = await list_all_tools(client, self.log, timeout, transport, self._pages_cut)
        self._pages_cut = listing.pages_cut
        return listing

    def _relisted(self, listing: Listing | None) -> None:
        """Publish a re-list's tools (or, with ``None``, that the server calmed down)."""
        if listing is None:
            return self._publish()
        relists = self._state.relists + 1
        self._publish(tools=listing.tools, dropped_tools=listing.dropped, relists=relists)

    def _sampling_refused(self) -> types.ErrorData:
        """The answer to the server's ``sampling/createMessage``: not offered; noted once."""
        if not self._sampling_asked:
            self._sampling_asked = True
            self.log.note("the server asked for sampling: refused (not offered)")
            self._publish()
        return types.ErrorData(code=types.METHOD_NOT_FOUND, message=SAMPLING_REFUSED)

    def _note(self, message: str) -> None:
        """Log ``message``, scrubbed of what the expansion put in."""
        self.log.note(self._redactor.scrub(message))

    async def _on_message(self, message: types.ServerNotification | Exception) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self._relister.notice()
        elif isinstance(
            message, types.ResourceListChangedNotification | types.PromptListChangedNotification
        ):
            # In the 2026-07-28 era the SDK also hands the listen stream's events here: the
            # stream's follower already told (``follow_listen_stream``).
            client = self._client
            if client is None or client.protocol_version not in MODERN_PROTOCOL_VERSIONS:
                resources = isinstance(message, types.ResourceListChangedNotification)
                self._offer_changed("resources" if resources else "prompts")
        elif isinstance(message, types.ResourceUpdatedNotification):
            # 2026-07-28: the subscribed resource's listen stream tells (``_follow_resource``).
            client = self._client
            if client is None or client.protocol_version not in MODERN_PROTOCOL_VERSIONS:
                self._resource_updated(message.params.uri)
        elif isinstance(message, types.ElicitCompleteNotification):
            hooks = self._router.completed(message.params.elicitation_id)
            if hooks is not None and hooks.elicitation_complete is not None:
                await hooks.elicitation_complete(message.params.elicitation_id)
        elif isinstance(message, Exception):
            self._note(f"transport error: {message!r}")

    # --- what it offers besides tools: resources, prompts, log messages -------------

    def _offer_changed(self, kind: OfferKind) -> None:
        if self._on_offer is not None:
            self._on_offer(OfferChange(self.name, kind))

    async def _on_log_message(self, params: types.LoggingMessageNotificationParams) -> None:
        message = ServerLogMessage(
            server=self.name,
            level=params.level,
            data=bounded_data(params.data),
            logger=params.logger,
        )
        client = self._client
        if client is not None and client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            # 2026-07-28: a message is for a request that opted in (``bridge/call_logging``).
            await self._call_logged(message)
        elif self._on_log is not None:
            self._on_log(message)

    async def _call_logged(self, message: ServerLogMessage) -> None:
        """Pass a 2026-07-28 server's ``message`` to the call it is for: the one call in
        flight that opted in, or the newest of one owner's; with two owners' calls in flight
        it is nobody's, counted and said in the server's log (``CallLogs.deliver`` bounds a
        slow caller)."""
        target = self._call_logs.target()
        if target is None:
            if self._call_logs.open:
                self._call_logs.unattributed += 1
                count = self._call_logs.unattributed
                if count == 1 or count % 100 == 0:
                    self._note(
                        f"{count} log message(s) not passed on: calls of two hosts that asked "
                        "for their log messages were in flight, and a message does not say "
                        "which call it is for"
                    )
            return
        await self._call_logs.deliver(target, message)

    @property
    def offers(self) -> ServerOffers | None:
        """What the server declared besides tools; ``None`` while it is not connected."""
        client = self._client
        if client is None or self._state.status != "connected":
            return None
        return offers_of(client.server_capabilities)

    def _live_client(self) -> Client:
        client, state = self._client, self._state
        if client is None or state.status != "connected":
            raise OperationError(not_connected(self.name, state.status, state.error))
        return client

    async def list_resources(self) -> tuple[types.Resource, ...]:
        """Every resource the server lists (bounded: ``offers.all_pages``)."""
        client = self._live_client()

        async def page(cursor: str | None) -> tuple[list[types.Resource], str | None]:
            found = await client.list_resources(cursor=cursor, cache_mode="bypass")
            return found.resources, found.next_cursor

        return await self._offer_request(all_pages(page))

    async def list_resource_templates(self) -> tuple[types.ResourceTemplate, ...]:
        """Every resource template the server lists (bounded: ``offers.all_pages``)."""
        client = self._live_client()

        async def page(cursor: str | None) -> tuple[list[types.ResourceTemplate], str | None]:
            found = await client.list_resource_templates(cursor=cursor, cache_mode="bypass")
            return found.resource_templates, found.next_cursor

        return await self._offer_request(all_pages(page))

    async def read_resource(self, uri: str) -> types.ReadResourceResult:
        """Read one resource of the server."""
        client = self._live_client()
        return await self._offer_request(client.read_resource(uri, cache_mode="bypass"))

    async def list_prompts(self) -> tuple[types.Prompt, ...]:
        """Every prompt the server lists (bounded: ``offers.all_pages``)."""
        client = self._live_client()

        async def page(cursor: str | None) -> tuple[list[types.Prompt], str | None]:
            found = await client.list_prompts(cursor=cursor, cache_mode="bypass")
            return found.prompts, found.next_cursor

        return await self._offer_request(all_pages(page))

    async def get_prompt(
        self, name: str, arguments: dict[str, str] | None
    ) -> types.GetPromptResult:
        """Get one prompt of the server, filled in with ``arguments``."""
        client = self._live_client()
        return await self._offer_request(client.get_prompt(name, arguments))

    async def _offer_request(self, request: Awaitable[Answer]) -> Answer:
        """``request``'s answer; the server's own refusal (``MCPError``: an unknown URI, a
        prompt's missing argument) is passed on as it is, any other failure is an
        ``OperationError`` that says what happened."""
        try:
            return await request
        except OperationError:  # said already
            raise
        except MCPError as exc:
            if exc.code != types.CONNECTION_CLOSED:
                raise
            if self._transport is not None:
                await see_exit(self._transport)
            raise OperationError(self._describe(exc)) from exc
        except Exception as exc:
            raise OperationError(self._describe(exc)) from exc

    async def set_log_level(self, level: types.LoggingLevel | None) -> None:
        """Ask the server for its log messages at ``level`` and above (nothing for ``None``,
        or when it is not connected)."""
        client = self._client
        if client is not None and self._state.status == "connected":
            await self._ask_log_level(client, level)

    async def _ask_log_level(self, client: Client, level: types.LoggingLevel | None) -> None:
        """``logging/setLevel`` to a 2025 handshake server that declared ``logging``; a
        server that refuses it is noted in its log, no more."""
        if level is None or client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return
        if not offers_of(client.server_capabilities).logging:
            return
        request = types.SetLevelRequest(params=types.SetLevelRequestParams(level=level))
        try:
            # The typed helper is marked deprecated (2026-07-28); the request itself is the
            # 2025 era's own.
            await client.session.send_request(request, types.EmptyResult)
        except Exception as exc:
            self._note(f"logging/setLevel {level} was refused: {exc!r}")

    # --- resource subscriptions -----------------------------------------------------
    # The bridge subscribes each resource once (``bridge/resource_subscriptions.py``); the
    # session speaks its server's era: ``resources/subscribe`` and ``resources/unsubscribe``
    # on a 2025 handshake connection, one ``subscriptions/listen`` stream a resource on a
    # 2026-07-28 one (a stream's filter is fixed when it opens).

    def _resource_updated(self, uri: str) -> None:
        if self._on_resource_updated is not None:
            self._on_resource_updated(ResourceUpdate(self.name, uri))

    async def subscribe_resource(self, uri: str) -> None:
        """Subscribe to the server's resource ``uri``; an ``OperationError`` says why not
        (not connected, no ``subscribe`` declared, the server refused)."""
        client = self._live_client()
        if not offers_of(client.server_capabilities).subscribe:
            raise OperationError(
                f"server {self.name} does not offer resource subscriptions (its resources "
                "capability does not declare subscribe): read the resource again instead"
            )
        if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            group = self._group
            if uri in self._resource_listens or group is None:
                return
            await self._offer_request(group.start(self._follow_resource, client, uri))
            return
        request = types.SubscribeRequest(params=types.SubscribeRequestParams(uri=uri))
        # The typed helper is marked deprecated (2026-07-28); the request is the 2025 era's own.
        await self._offer_request(client.session.send_request(request, types.EmptyResult))

    async def unsubscribe_resource(self, uri: str) -> None:
        """Unsubscribe from the server's resource ``uri`` (a refusal is noted in its log, no
        more; nothing when it is not connected)."""
        client = self._client
        if client is None or self._state.status != "connected":
            return
        if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            scope = self._resource_listens.pop(uri, None)
            if scope is not None:
                scope.cancel()
            return
        request = types.UnsubscribeRequest(params=types.UnsubscribeRequestParams(uri=uri))
        try:
            await client.session.send_request(request, types.EmptyResult)
        except Exception as exc:
            self._note(f"resources/unsubscribe {uri} was refused: {exc!r}")

    async def _resubscribe(self, client: Client) -> None:
        """Subscribe again, on a new connection, to what the bridge's consumers hold."""
        for uri in self._resource_uris():
            if self._client is not client:
                return
            try:
                await self.subscribe_resource(uri)
            except Exception as exc:
                self._note(f"subscribing again to {uri} failed: {exc!r}")

    async def _follow_resource(
        self,
        client: Client,
        uri: str,
        *,
        task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        """One resource's ``subscriptions/listen`` stream (2026-07-28), until cancelled;
        reports started once the server acknowledged it (an error before is the caller's)."""
        scope = anyio.CancelScope()
        self._resource_listens[uri] = scope
        started = False
        try:
            with scope:
                async with client.listen(resource_subscriptions=[uri]) as subscription:
                    if uri not in (subscription.honored.resource_subscriptions or ()):
                        raise OperationError(
                            f"server {self.name} did not take a subscription to {uri}"
                        )
                    task_status.started()
                    started = True
                    async for event in subscription:
                        if isinstance(event, ResourceUpdated):
                            self._resource_updated(event.uri)
        except Exception as exc:
            if not started:
                raise
            self._note(f"the subscription to {uri} ended: {exc!r}")
        finally:
            if self._resource_listens.get(uri) is scope:
                del self._resource_listens[uri]

    # --- calls ----------------------------------------------------------------------

    async def call_tool(
        self, bare: str, arguments: dict[str, Any] | None, hooks: CallHooks | None = None
    ) -> types.CallToolResult:
        """Call one tool on this server's live connection; ``hooks``: where its progress goes
        and who answers what the server asks during it (``bridge/call_hooks.py``). Cancelling
        the caller cancels the request (the server hears ``notifications/cancelled``)."""
        client, state = self._client, self._state
        if client is None or state.status != "connected":
            raise OperationError(not_connected(self.name, state.status, state.error))
        progress = hooks.progress if hooks is not None else None
        # A caller that opted into the call's log messages: the opt-in goes with the call
        # to a 2026-07-28 server (a 2025 one logs for its connection, not for a request).
        log = call_log() if client.protocol_version in MODERN_PROTOCOL_VERSIONS else None
        meta: types.RequestParamsMeta | None = None
        if log is not None:
            # An open map (``extra_items``): mypy takes no constant key in its literal.
            meta = cast(types.RequestParamsMeta, {types.LOG_LEVEL_META_KEY: log.level})
        try:
            with self._router.calling(hooks), self._call_logs.calling(log):
                result = await client.call_tool(
                    bare, arguments, progress_callback=progress, meta=meta
                )
            if log is not None:  # its messages before its result
                await self._call_logs.drained(log)
            return result
        except Exception as exc:
            self._router.refused_for_urls(exc, hooks)
            closed = isinstance(exc, MCPError) and exc.code == types.CONNECTION_CLOSED
            if closed and self._transport is not None:
                await see_exit(self._transport)
            message = self._describe(exc)
            self._after_failed_call(message)
            raise OperationError(call_failed(bare, self.name, message)) from exc

    async def roots_changed(self) -> None:
        """Tell the server its roots changed (``notifications/roots/list_changed``), so it asks
        again: a 2025 handshake connection only (2026-07-28 has no such notification: a
        server asks for roots within each call). Nothing when not connected."""
        client = self._client
        if client is None or self._roots is None or self._state.status != "connected":
            return
        if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return
        # The SDK's own helper is marked deprecated (for 2026-07-28); the notification is not.
        await client.session.send_notification(types.RootsListChangedNotification())

    def _after_failed_call(self, message: str) -> None:
        """What a failed call says about the whole session: refused for want of a login (a
        step-up nobody is there to complete) is ``needs_login`` until ``L`` logs in again; a
        URL server that refuses connections is gone, ``failed`` until ``R``."""
        if login_needed(self._http, self._auth):
            self._fail(message, "needs_login")
        elif self._http is not None and self._http.unreachable is not None:
            self._fail(message)

    # --- error text -----------------------------------------------------------------

    def _describe(self, exc: BaseException) -> str:
        observed = observed_failure(self._transport, self._http)
        if observed is None and login_needed(self._http, self._auth):
            return login_hint(self.name, self._auth.login_reason if self._auth else None)
        if observed is None and self._auth is not None and self._auth.failure is not None:
            return self._redactor.scrub(authorization_failure(self._auth.failure))
        cause = self._http.unreachable if self._http is not None else None
        return self._with_tail(observed or failure_text(cause or exc, self._config, self._http))

    def _with_tail(self, message: str) -> str:
        """``message`` plus the stderr tail, scrubbed: every error text of the session passes
        here (an exception may quote the expanded URL, a server echo its arguments)."""
        tail = self.log.tail() if self._transport is not None else ""
        return self._redactor.scrub(f"{message}\n{tail}" if tail else message)


# --- What one server's session publishes: a frozen ``SessionState``, replaced whole on change.
#
# The session is the only writer; the bridge (and the one-shot probe) only read the value, either
# the one handed to ``on_change(state)`` or ``ServerSession.state``, which is the same object.
# Nothing here is mutable, so a reader may keep a state as long as it likes.


@dataclass(frozen=True, slots=True)
class SessionState:
    """One session's live state at one instant (compare two with ``==``: the re-list counter
    is left out, so a re-list that found the same tools is no change)."""

    status: ServerStatus = "connecting"
    """``connecting`` until the first listing; then ``connected``, ``failed`` or
    ``needs_login`` (a session is never ``disabled`` or ``untrusted``: it is not started)."""
    error: str | None = None
    """Why the session is not connected, scrubbed of expanded secrets; ``None`` when it is."""
    info: ServerInfo | None = None
    """What the server said about itself in the handshake, once connected."""
    tools: tuple[AdvertisedTool, ...] = ()
    """The advertised tools of the latest complete listing (replaced, never merged)."""
    dropped_tools: tuple[DroppedTool, ...] = ()
    """Tools of that listing that break the MCP rules, each with the reason."""
    pid: int | None = None
    """Process id of the stdio server from its handshake until the session has closed."""
    warnings: tuple[str, ...] = ()
    """What the user should know about a server that otherwise works, one line each."""
    auth: AuthState | None = None
    """The server's OAuth login state (URL servers that use OAuth); ``None`` otherwise."""
    relists: int = field(default=0, compare=False)
    """How many re-lists ``tools/list_changed`` has caused so far (diagnostics and tests)."""


SAMPLING_REFUSED = (
    "sampling is not offered by this client (agentty-tui declares no sampling capability; "
    "sampling is deprecated from 2026-07-28): go on without it"
)
"""The error message a server's ``sampling/createMessage`` gets (code ``-32601``)."""

SAMPLING_WARNING = "it asked for sampling, which agentty-tui does not offer (it was refused)"
"""The server's warning line once it has asked for sampling."""


def session_warnings(
    log_problem: str | None, pages_cut: bool, noisy: bool, *, sampling_asked: bool = False
) -> tuple[str, ...]:
    """What the user should know about a server that otherwise works, one line each."""
    found: list[str] = []
    if log_problem is not None:
        found.append(f"{log_problem}; the server runs without its log")
    if pages_cut:
        found.append(
            f"its tool list did not end after {listing.MAX_TOOL_PAGES:,} pages; "
            "only those pages are shown"
        )
    if noisy:
        found.append(noisy_warning())
    if sampling_asked:
        found.append(SAMPLING_WARNING)
    return tuple(found)


def server_info(client: Client) -> ServerInfo:
    """What a connected server said about itself in the handshake."""
    found = client.server_info
    return ServerInfo(
        name=found.name if found else None,
        version=found.version if found else None,
        protocol_version=client.protocol_version,
    )


# --- What a server session connects through, made and read outside its state machine.
#
# A URL server's transport and OAuth provider (and what they say about a login), and a stdio
# transport that reports the moment its process runs. ``ServerSession`` holds the objects; the
# helpers here only build them or read them.


def http_connection(
    spec: HttpSpec, config: ServerConfig, login_ui: LoginUI | None
) -> tuple[HttpTransport, AgenttyOAuthProvider | None]:
    """The transport to URL server ``spec`` (expanded) and the OAuth provider it signs with
    (``None`` when it uses none); ``login_ui`` is where a step-up shows its browser login."""
    auth = connect_provider(spec, ui=login_ui)
    http = HttpTransport(spec, config.request_timeout, config.max_response_bytes, auth=auth)
    return http, auth


@asynccontextmanager
async def spawned(transport: StdioTransport, on_start: Callable[[], None]) -> AsyncIterator[Any]:
    """``transport``, calling ``on_start`` as soon as the process runs (to publish its pid)."""
    async with transport as streams:
        on_start()
        yield streams


def oauth_state(spec: HttpSpec | None, auth: AgenttyOAuthProvider | None) -> AuthState | None:
    """The OAuth login state as it is now (URL servers that use OAuth)."""
    if spec is not None and auth is not None:
        return auth_state(spec)
    return None


def login_needed(http: HttpTransport | None, auth: AgenttyOAuthProvider | None) -> bool:
    """Whether the server turned us away for want of an OAuth login."""
    if http is None or auth is None:
        return False
    return auth.login_required or (http.error_status == 401 and http.bearer_challenge)
