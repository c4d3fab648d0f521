"""One server's supervised session: connect, list, follow list_changed, notice death, stop.

A ``ServerSession`` owns exactly one connection to one server for its whole life. Its ``run``
method is the task that enters and exits the mcp ``Client`` (anyio requires both in the same
task) and never raises: every failure becomes ``status == "failed"`` with an ``error`` a user
can act on. The bridge reads the session's plain attributes to build model snapshots and is
told through ``on_change`` whenever they change.

Both protocol eras deliver ``notifications/tools/list_changed``: a 2025-handshake server sends
it to the message handler, a 2026-07-28 server only to an open ``listen`` stream; the session
handles both and coalesces bursts into one re-list at a time.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import Any

import anyio
import anyio.abc
import mcp_types as types
from mcp import Client
from mcp.client.session import ElicitationFnT
from mcp.client.subscriptions import ListenNotSupportedError, SubscriptionLost
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from agentty_tui import __version__
from agentty_tui.bridge import stdio
from agentty_tui.bridge.auth import AgenttyOAuthProvider, auth_state, connect_provider
from agentty_tui.bridge.errors import describe_failure, login_hint
from agentty_tui.bridge.expand import ExpansionError, expand_spec, redactor_for
from agentty_tui.bridge.http import HttpTransport
from agentty_tui.bridge.listing import LenientToolsPage, screen_raw_tools, screen_tools
from agentty_tui.bridge.logs import ServerLog
from agentty_tui.bridge.stdio import TOO_DEEP, StdioTransport
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

__all__ = ["MAX_TOOL_PAGES", "ServerSession"]

MAX_TOOL_PAGES = 1000
"""A paginator that never ends must not hang a listing."""

BURST_QUIET = 0.05
"""Seconds without a change notice that end a burst of them (then one re-list follows)."""

BURST_MAX_WAIT = 0.5
"""A burst that never pauses still gets a re-list this often (for its first few re-lists)."""

FREE_RELISTS = 3
"""Re-lists in a row (no quiet second between them) before the interval starts to grow."""

MAX_RELIST_INTERVAL = 1.0
"""The longest wait between re-lists of a server whose notices never stop."""

NOISY_RELISTS = 8
"""Re-lists in a row that make a server noisy (a warning in its row)."""

RELIST_QUIET_RESET = 2.0
"""Seconds without a change notice after which a server counts as quiet again."""

EXIT_STATUS_WAIT = 0.5
"""After stdout ends, how long to wait for the exit status before reporting without it."""


class ServerSession:
    """The one live connection to one configured server.

    Attributes read by the bridge: ``status``, ``error``, ``info``, ``tools`` and ``pid``.
    Step runtimes hold leases on a session; a retired session stops once no lease is left.
    """

    def __init__(
        self,
        config: ServerConfig,
        log: ServerLog,
        on_change: Callable[[], None],
        elicitation: ElicitationFnT | None = None,
    ) -> None:
        self.config = config
        self.log = log
        self.status: ServerStatus = "connecting"
        self.error: str | None = None
        self.info: ServerInfo | None = None
        self.tools: tuple[AdvertisedTool, ...] = ()
        """The advertised tools of the latest complete listing (replaced, never merged)."""
        self.dropped_tools: tuple[DroppedTool, ...] = ()
        """Tools of that listing that break the MCP rules, with the reason."""
        self.relists = 0
        """How many re-lists list_changed caused (diagnostics and tests)."""
        self.noisy = False
        """True while the server sends change notices without pause (re-lists are slowed)."""
        self.pages_cut = False
        """True when the latest listing stopped at ``MAX_TOOL_PAGES`` with pages still to come."""
        self.closed = anyio.Event()
        """Set once ``run`` has returned and the server process is gone."""
        self.settled = anyio.Event()
        """Set once the session has connected, failed or ended: no longer ``connecting``."""
        self._on_change = on_change
        self._elicitation = elicitation
        """Answers a server's form requests; without one the session does not offer them."""
        self._client: Client | None = None
        self._transport: StdioTransport | None = None
        self._http: HttpTransport | None = None
        self._auth: AgenttyOAuthProvider | None = None
        self._auth_spec: HttpSpec | None = None
        self.auth: AuthState | None = None
        """The server's OAuth login state (URL servers that use OAuth)."""
        self._scope: anyio.CancelScope | None = None
        self._stopping = False
        self._relist_wanted = anyio.Event()
        self._leases = 0
        self._retired = False
        self._redactor = Redactor()
        """Removes what ``${VAR}`` expansion put in (and URL credentials) from shown text."""

    # --- identity -------------------------------------------------------------------

    @property
    def name(self) -> str:
        """The server's config key."""
        return self.config.name

    @property
    def warnings(self) -> tuple[str, ...]:
        """What the user should know about a server that otherwise works, one line each."""
        found: list[str] = []
        if self.log.problem is not None:
            found.append(f"{self.log.problem}; the server runs without its log")
        if self.pages_cut:
            found.append(
                f"its tool list did not end after {MAX_TOOL_PAGES:,} pages; "
                "only those pages are shown"
            )
        if self.noisy:
            found.append(
                "noisy: it announces tool changes without pause; "
                f"re-listed at most every {MAX_RELIST_INTERVAL:g} s"
            )
        return tuple(found)

    @property
    def pid(self) -> int | None:
        """Process id of a running stdio server."""
        if self._transport is None or self.closed.is_set():
            return None
        return self._transport.pid

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
            self._fail(message, "needs_login" if self._needs_login() else "failed")
        finally:
            self._client = None
            self.closed.set()
            self.settled.set()
            self._on_change()

    def stop(self) -> None:
        """Ask the session to close its connection and stop the server process."""
        self._stopping = True
        if self._scope is None:  # not started yet: it starts cancelled
            self._scope = anyio.CancelScope()
        self._scope.cancel()

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
        if self.config.spec is None:  # the bridge never starts an invalid entry
            self._fail(self.config.problem or "the config entry is invalid")
            return
        try:
            spec = expand_spec(self.config.spec, os.environ)
        except ExpansionError as exc:
            self._fail(str(exc))
            return
        self._redactor = redactor_for(self.config.spec, spec, os.environ)
        if isinstance(spec, StdioSpec):
            if spec.cwd is not None and not await anyio.Path(spec.cwd).is_dir():
                self._fail(f"working directory {spec.cwd!r} does not exist")
                return
            assert isinstance(self.config.spec, StdioSpec)
            self._transport = StdioTransport(spec, self.log, shown=self.config.spec)
            transport: Any = self._transport
        else:
            self._auth = connect_provider(spec)
            self._http = HttpTransport(
                spec,
                self.config.request_timeout,
                self.config.max_response_bytes,
                auth=self._auth,
            )
            self._auth_spec = spec
            self.auth = auth_state(spec) if self._auth is not None else None
            transport = self._http
        client = Client(
            transport,
            mode="auto",
            message_handler=self._on_message,
            elicitation_callback=self._elicitation,
            read_timeout_seconds=self.config.request_timeout,
            cache=None,
            client_info=types.Implementation(name="agentty-tui", version=__version__),
        )
        if self._scope is None:
            self._scope = anyio.CancelScope()
        timeout = self.config.connect_timeout
        self._scope.deadline = anyio.current_time() + timeout
        failure: str | None = None
        with self._scope:
            async with client, anyio.create_task_group() as group:
                self._client = client
                if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
                    # Subscribe before listing, so no change between the two is missed.
                    await group.start(self._listen, client)
                tools = await self._list_all(client)
                self._scope.deadline = math.inf
                self._connected(client, tools)
                group.start_soon(self._relister, client)
                failure = await self._until_gone()
                group.cancel_scope.cancel()
        if failure is not None:
            self._fail(failure)
        elif self._scope.cancelled_caught and not self._stopping:
            self._fail(self._with_tail(f"timed out after {timeout:g} s while connecting"))

    async def _until_gone(self) -> str | None:
        """Wait until the server goes away by itself, and say why (stdio only; else forever)."""
        if self._transport is None:
            await anyio.sleep_forever()
        assert self._transport is not None
        await self._transport.ended.wait()
        return await self._exit_message()

    def _connected(self, client: Client, tools: tuple[AdvertisedTool, ...]) -> None:
        server_info = client.server_info
        self.info = ServerInfo(
            name=server_info.name if server_info else None,
            version=server_info.version if server_info else None,
            protocol_version=client.protocol_version,
        )
        self.tools = tools
        self._read_auth()
        self.status = "connected"
        self.error = None
        self.log.note(f"connected ({client.protocol_version}), {len(tools)} tools")
        self.settled.set()
        self._on_change()

    def _fail(self, message: str, status: ServerStatus = "failed") -> None:
        if self._stopping:
            return
        self._read_auth()
        self.status = status
        self.error = message
        self.log.note(f"failed: {message}")
        self.settled.set()
        self._on_change()

    # --- tools ----------------------------------------------------------------------

    async def _list_all(self, client: Client) -> tuple[AdvertisedTool, ...]:
        """Every page of ``tools/list``, screened: invalid tools go to ``dropped_tools``."""
        pages: list[types.Tool] = []
        malformed: list[DroppedTool] = []
        cursor: str | None = None
        deep_cuts = self._transport.deep_cuts if self._transport is not None else 0
        for _ in range(MAX_TOOL_PAGES):
            try:
                page = await client.list_tools(cursor=cursor)
                pages.extend(page.tools)
                cursor = page.next_cursor
            except ValidationError:
                # One malformed tool fails the SDK's whole page: ask again and check each tool
                # on its own, so the valid ones are kept.
                raw = await self._raw_tools_page(client, cursor)
                valid, bad = screen_raw_tools(raw.tools)
                # The SDK looks a called tool up in its own listing cache (to check results
                # against the output schema); hand it the valid tools, or every call would
                # re-list and fail on the malformed ones again.
                client.session._absorb_tool_listing(
                    types.ListToolsResult(tools=valid), complete=False
                )
                pages.extend(valid)
                malformed.extend(bad)
                cursor = raw.next_cursor
            if not cursor:
                break
        if cursor and not self.pages_cut:
            self.log.note(f"tools/list did not end after {MAX_TOOL_PAGES} pages; stopped there")
        self.pages_cut = bool(cursor)
        # Only a listing whose messages had too-deep parts cut out needs to look for them.
        cut = self._transport is not None and self._transport.deep_cuts > deep_cuts
        marker = TOO_DEEP if cut else None
        tools, self.dropped_tools = screen_tools(pages, malformed, cut_marker=marker)
        for dropped in self.dropped_tools:
            self.log.note(f"dropped tool {dropped.name[:80]!r}: {dropped.reason}")
        return tools

    async def _raw_tools_page(self, client: Client, cursor: str | None) -> LenientToolsPage:
        """One ``tools/list`` page, unvalidated: the SDK's typed requests validate the whole
        result, and there is no public way around that, hence the dispatcher."""
        dispatcher = client.session._dispatcher
        params = {"cursor": cursor} if cursor else None
        raw = await dispatcher.send_raw_request(
            "tools/list", params, {"timeout": self.config.request_timeout}
        )
        return LenientToolsPage.model_validate(raw)

    async def _on_message(self, message: types.ServerNotification | Exception) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self._relist_wanted.set()
        elif isinstance(message, Exception):
            self.log.note(self._redactor.scrub(f"transport error: {message!r}"))

    async def _listen(
        self, client: Client, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """Follow the 2026-07-28 subscription stream; each event asks for one re-list."""
        # Not gated on the advertised ``listChanged`` capability: servers that change their
        # tools without advertising it exist, and a server that cannot listen just says so.
        started = False
        try:
            async with client.listen(tools_list_changed=True) as subscription:
                task_status.started()
                started = True
                async for _event in subscription:
                    self._relist_wanted.set()
        except (ListenNotSupportedError, SubscriptionLost, MCPError, TimeoutError) as exc:
            self.log.note(self._redactor.scrub(f"tools/list_changed subscription ended: {exc}"))
        finally:
            if not started:
                task_status.started()

    async def _relister(self, client: Client) -> None:
        """Re-list on change notices: the first at once, a burst only once it has passed.

        A lone notice is answered immediately (a new tool shows within milliseconds). Notices
        that keep arriving while a re-list runs mean a burst: wait until the server has been
        quiet for ``BURST_QUIET`` seconds (at most ``BURST_MAX_WAIT``), then re-list once.
        A server that never stops gets ever longer intervals, up to ``MAX_RELIST_INTERVAL``,
        and is marked noisy until it has been quiet for ``RELIST_QUIET_RESET`` seconds.
        """
        streak = 0  # re-lists since the server was last quiet
        last = -math.inf
        while True:
            with anyio.move_on_after(RELIST_QUIET_RESET if self.noisy else math.inf):
                await self._relist_wanted.wait()
            if not self._relist_wanted.is_set():  # a noisy server has calmed down
                self.noisy = False
                self._on_change()
                continue
            if anyio.current_time() - last > RELIST_QUIET_RESET:
                streak = 0
            while True:
                wait = last + _relist_interval(streak) - anyio.current_time()
                if wait > 0:
                    await anyio.sleep(wait)
                self._relist_wanted = anyio.Event()
                try:
                    tools = await self._list_all(client)
                except Exception as exc:
                    self.log.note(self._redactor.scrub(f"re-listing tools failed: {exc!r}"))
                    break
                last = anyio.current_time()
                streak += 1
                self.tools = tools
                self.relists += 1
                if streak >= NOISY_RELISTS and not self.noisy:
                    self.noisy = True
                    self.log.note(f"tools/list_changed without pause: {streak} re-lists in a row")
                self._on_change()
                if not self._relist_wanted.is_set():
                    break
                await self._wait_for_quiet()

    async def _wait_for_quiet(self) -> None:
        """Return once no change notice has come for ``BURST_QUIET`` s, or ``BURST_MAX_WAIT``."""
        deadline = anyio.current_time() + BURST_MAX_WAIT
        while (left := deadline - anyio.current_time()) > 0:
            notice = anyio.Event()
            self._relist_wanted = notice
            with anyio.move_on_after(min(BURST_QUIET, left)) as window:
                await notice.wait()
            if window.cancelled_caught:
                return

    # --- calls ----------------------------------------------------------------------

    async def call_tool(self, bare: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
        """Call one tool on this server's live connection."""
        client = self._client
        if client is None or self.status != "connected":
            why = f": {self.error}" if self.error else ""
            raise OperationError(f"server {self.name!r} is not connected ({self.status}{why})")
        try:
            return await client.call_tool(bare, arguments)
        except Exception as exc:
            if isinstance(exc, MCPError) and exc.code == types.CONNECTION_CLOSED:
                await self._see_exit()
            raise OperationError(
                f"calling {bare!r} on {self.name!r} failed: {self._describe(exc)}"
            ) from exc

    async def _see_exit(self) -> None:
        """Give a stdio server whose connection closed under a call a moment to be reaped.

        Its exit status says why far better than "Connection closed", and it is known only
        once the end of its output has been read and the process waited for.
        """
        transport = self._transport
        if transport is None:
            return
        with anyio.move_on_after(EXIT_STATUS_WAIT):
            await transport.ended.wait()
            while transport.returncode is None:  # noqa: ASYNC110 - no event fires on exit
                await anyio.sleep(0.01)

    # --- error text -----------------------------------------------------------------

    def _describe(self, exc: BaseException) -> str:
        if self._transport is not None and self._transport.line_too_long:
            return self._with_tail(_line_too_long())
        if self._transport is not None and self._transport.gone_by_itself:
            code = self._transport.returncode
            if code is not None:
                return self._with_tail(_exit_text(code))
        if self._http is not None and self._http.refused is not None:
            return self._with_tail(self._http.refused)
        if self._needs_login():
            return login_hint(self.name)
        status = self._http.error_status if self._http is not None else None
        bearer = self._http is not None and self._http.bearer_challenge
        return self._with_tail(
            describe_failure(exc, self.config, http_status=status, bearer_challenge=bearer)
        )

    def _read_auth(self) -> None:
        if self._auth_spec is not None and self._auth is not None:
            self.auth = auth_state(self._auth_spec)

    def _needs_login(self) -> bool:
        """Whether the server turned us away for want of an OAuth login."""
        http, auth = self._http, self._auth
        if http is None or auth is None:
            return False
        return auth.login_required or (http.error_status == 401 and http.bearer_challenge)

    async def _exit_message(self) -> str:
        assert self._transport is not None
        if self._transport.line_too_long:
            return self._with_tail(_line_too_long())
        with anyio.move_on_after(EXIT_STATUS_WAIT):
            # No event fires on exit; the exit status is only observable by polling.
            while self._transport.returncode is None:  # noqa: ASYNC110
                await anyio.sleep(0.01)
        code = self._transport.returncode
        text = _exit_text(code) if code is not None else "closed its output and stopped answering"
        await self._transport.stderr_drained(EXIT_STATUS_WAIT)
        return self._with_tail(text)

    def _with_tail(self, message: str) -> str:
        """``message`` plus the stderr tail, as shown and logged: every error text of the
        session passes here, so this is where what the expansion put in is scrubbed (an
        exception may quote the expanded URL, a server may echo its arguments to stderr)."""
        tail = self.log.tail() if self._transport is not None else ""
        return self._redactor.scrub(f"{message}\n{tail}" if tail else message)


def _relist_interval(streak: int) -> float:
    """The least time between two re-lists after ``streak`` of them in a row."""
    if streak < FREE_RELISTS:
        return 0.0
    return min(BURST_MAX_WAIT * 2.0 ** (streak - FREE_RELISTS), MAX_RELIST_INTERVAL)


def _line_too_long() -> str:
    limit = stdio.MAX_LINE  # read now: a test may lower it
    size = f"{limit / 2**20:g} MiB" if limit >= 2**20 else f"{limit} bytes"
    return f"the server sent a line of more than {size}; the connection was closed"


def _exit_text(code: int) -> str:
    if code < 0:
        return f"the server was killed by signal {-code}"
    return f"the server exited with status {code}"
