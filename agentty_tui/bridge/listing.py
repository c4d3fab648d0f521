"""A server's tool listing: every page read, each tool screened, re-read on ``list_changed``.

A server may advertise tools that break the MCP rules. Those are dropped one by one, each with
the reason, so that one bad tool never costs the server its valid ones.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.abc
import mcp_types as types
from mcp import Client
from mcp.client.subscriptions import ListenNotSupportedError, SubscriptionLost
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import PromptsListChanged, ResourcesListChanged, ToolsListChanged
from mcp_types import METHOD_NOT_FOUND
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agentty_tui.bridge._sdk import absorb_tool_listing, send_raw_request
from agentty_tui.bridge.http import HttpTransport
from agentty_tui.bridge.logs import ServerLog
from agentty_tui.bridge.notice_rate import NoticeRate
from agentty_tui.bridge.offers import OfferKind
from agentty_tui.bridge.stdio import TOO_DEEP, StdioTransport
from agentty_tui.model import AdvertisedTool, DroppedTool, ToolHints

__all__ = [
    "BURST_MAX_WAIT",
    "BURST_QUIET",
    "FREE_RELISTS",
    "MAX_RELIST_INTERVAL",
    "MAX_TOOL_NAME",
    "MAX_TOOL_PAGES",
    "RELIST_QUIET_RESET",
    "LenientToolsPage",
    "Listing",
    "Relister",
    "follow_listen_stream",
    "list_all_tools",
    "noisy_warning",
    "screen_raw_tools",
    "screen_tools",
    "tool_hints",
]


class LenientToolsPage(BaseModel):
    """A ``tools/list`` page whose tools are not validated yet (for one-by-one screening)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    tools: list[Any] = []
    """The advertised tools, as the server sent them."""
    next_cursor: str | None = Field(default=None, alias="nextCursor")
    """Where the next page starts, if any."""


def screen_raw_tools(raw: Sequence[Any]) -> tuple[list[types.Tool], list[DroppedTool]]:
    """Validate advertised tools one at a time, so that a malformed one costs only itself."""
    valid: list[types.Tool] = []
    dropped: list[DroppedTool] = []
    for item in raw:
        try:
            valid.append(types.Tool.model_validate(item))
        except ValidationError as error:
            name = item.get("name") if isinstance(item, dict) else None
            problem = error.errors()[0]
            where = ".".join(str(part) for part in problem["loc"])
            dropped.append(
                DroppedTool(
                    name=str(name) if name is not None else "?",
                    reason=f"the tool does not follow the MCP schema ({where}: {problem['msg']})",
                )
            )
    return valid, dropped


MAX_TOOL_NAME = 128
"""MCP tool names are 1 to 128 characters (spec 2025-11-25)."""

_NAME = re.compile(r"[A-Za-z0-9_.-]+")


def _problem(tool: types.Tool, seen: set[str]) -> str | None:
    name = tool.name
    if not name:
        return "the name is empty"
    if len(name) > MAX_TOOL_NAME:
        return f"the name is {len(name)} characters long; MCP allows at most {MAX_TOOL_NAME}"
    if not _NAME.fullmatch(name):
        return "the name has characters MCP does not allow (only A-Z a-z 0-9 _ . -)"
    if name in seen:
        return "the name is advertised more than once; the first one is kept"
    if tool.input_schema.get("type") != "object":
        return "the input schema's root is not an object"
    return None


def _holds(value: Any, marker: str) -> bool:
    """Whether ``marker`` is a string anywhere inside the JSON value (no recursion)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if item == marker:
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return False


def tool_hints(annotations: types.ToolAnnotations | None) -> ToolHints | None:
    """A tool's annotations as the model keeps them; ``None`` when it gave none (or only
    fields this client does not know)."""
    if annotations is None:
        return None
    hints = ToolHints(
        title=annotations.title,
        read_only=annotations.read_only_hint,
        destructive=annotations.destructive_hint,
        idempotent=annotations.idempotent_hint,
        open_world=annotations.open_world_hint,
    )
    return hints if hints.given else None


def screen_tools(
    advertised: Iterable[types.Tool],
    already_dropped: Iterable[DroppedTool] = (),
    *,
    cut_marker: str | None = None,
) -> tuple[tuple[AdvertisedTool, ...], tuple[DroppedTool, ...]]:
    """Split advertised tools into the valid ones (in order) and the dropped ones (with why).

    ``cut_marker`` is what replaced the parts of the listing that were nested too deep to
    read; a tool whose input or output schema holds it is dropped.
    """
    kept: list[AdvertisedTool] = []
    dropped: list[DroppedTool] = list(already_dropped)
    seen: set[str] = set()
    for tool in advertised:
        problem = _problem(tool, seen)
        if problem is None and cut_marker is not None:
            # Either schema goes on to the hosts through the gateway: neither may hold a cut.
            if _holds(tool.input_schema, cut_marker):
                problem = "the input schema is nested too deep to read"
            elif tool.output_schema is not None and _holds(tool.output_schema, cut_marker):
                problem = "the output schema is nested too deep to read"
        if problem is not None:
            dropped.append(DroppedTool(name=tool.name, reason=problem))
            continue
        seen.add(tool.name)
        title = tool.title or (tool.annotations.title if tool.annotations else None)
        kept.append(
            AdvertisedTool(
                name=tool.name,
                title=title,
                description=tool.description,
                input_schema=tool.input_schema,
                needs_tasks=tool.execution is not None
                and tool.execution.task_support == "required",
                hints=tool_hints(tool.annotations),
                output_schema=tool.output_schema,
            )
        )
    return tuple(kept), tuple(dropped)


# --- One complete ``tools/list`` of a connected server: every page, each tool screened alone.
#
# A page the SDK cannot validate (one malformed tool fails a whole page) is asked for again
# unvalidated and screened tool by tool (``bridge/listing.py``), so the valid ones are kept.

MAX_TOOL_PAGES = 1000
"""A paginator that never ends must not hang a listing."""


@dataclass(frozen=True, slots=True)
class Listing:
    """What one complete listing found."""

    tools: tuple[AdvertisedTool, ...]
    """The valid tools, in advertised order."""
    dropped: tuple[DroppedTool, ...]
    """The tools that break the MCP rules, each with the reason."""
    pages_cut: bool
    """True when the listing stopped at ``MAX_TOOL_PAGES`` with pages still to come."""


async def list_all_tools(
    client: Client,
    log: ServerLog,
    request_timeout: float,
    transport: StdioTransport | HttpTransport | None,
    was_cut: bool,
) -> Listing:
    """Every page of ``tools/list``, screened.

    Only a listing during which the ``transport`` (stdio or HTTP) cut too-deep parts out of a
    message looks for the cut marker; ``was_cut`` says whether the previous listing was cut at
    ``MAX_TOOL_PAGES`` (noted in the log only the first time).
    """
    pages: list[types.Tool] = []
    malformed: list[DroppedTool] = []
    cursor: str | None = None
    cuts_before = transport.deep_cuts if transport is not None else 0
    for _ in range(MAX_TOOL_PAGES):
        try:
            page = await client.list_tools(cursor=cursor)
            pages.extend(page.tools)
            cursor = page.next_cursor
        except ValidationError:
            params = {"cursor": cursor} if cursor else None
            raw = LenientToolsPage.model_validate(
                await send_raw_request(client, "tools/list", params, request_timeout)
            )
            valid, bad = screen_raw_tools(raw.tools)
            # The SDK looks a called tool up in its own listing cache (to check results
            # against the output schema); hand it the valid tools, or every call would
            # re-list and fail on the malformed ones again.
            absorb_tool_listing(client, valid)
            pages.extend(valid)
            malformed.extend(bad)
            cursor = raw.next_cursor
        if not cursor:
            break
    if cursor and not was_cut:
        log.note(f"tools/list did not end after {MAX_TOOL_PAGES} pages; stopped there")
    cut = transport is not None and transport.deep_cuts > cuts_before
    marker = TOO_DEEP if cut else None
    tools, dropped = screen_tools(pages, malformed, cut_marker=marker)
    for tool in dropped:
        log.note(f"dropped tool {tool.name[:80]!r}: {tool.reason}")
    return Listing(tools, tuple(dropped), bool(cursor))


# --- Turning a server's ``tools/list_changed`` notices into re-lists, bursts coalesced.
#
# A lone notice is answered at once (a new tool shows within milliseconds). Notices that keep
# arriving while a re-list runs mean a burst: wait until the server has been quiet for
# ``BURST_QUIET`` seconds (at most ``BURST_MAX_WAIT``), then re-list once. A server that never
# stops gets ever longer intervals, up to ``MAX_RELIST_INTERVAL``. It is marked noisy by the rate
# of its notices (``notice_rate``: a few seconds of them, however slowly its re-lists are answered)
# until it has been quiet for ``RELIST_QUIET_RESET`` seconds.

log = logging.getLogger(__name__)

BURST_QUIET = 0.05
"""Seconds without a change notice that end a burst of them (then one re-list follows)."""

BURST_MAX_WAIT = 0.5
"""A burst that never pauses still gets a re-list this often (for its first few re-lists)."""

FREE_RELISTS = 3
"""Re-lists in a row (no quiet second between them) before the interval starts to grow."""

MAX_RELIST_INTERVAL = 1.0
"""The longest wait between re-lists of a server whose notices never stop."""

RELIST_QUIET_RESET = 2.0
"""Seconds without a change notice after which a server counts as quiet again."""


def noisy_warning() -> str:
    """The warning line of a server marked noisy."""
    return (
        "noisy: it announces tool changes without pause; "
        f"re-listed at most every {MAX_RELIST_INTERVAL:g} s"
    )


class Relister:
    """One session's re-list loop: ``notice()`` asks for a re-list, ``run`` answers."""

    def __init__(self, log: ServerLog, note: Callable[[str], None]) -> None:
        """``note`` logs a text that may quote the server (scrubbed by the session)."""
        self.noisy = False
        """True while the server sends change notices without pause (re-lists are slowed)."""
        self.rate = NoticeRate()
        """Counts the notices (the stdio transport counts the repeats it holds back too)."""
        self._log = log
        self._note = note
        self._wanted = anyio.Event()
        self._publish: Callable[[Listing | None], None] = lambda _listing: None

    def notice(self) -> None:
        """A change notice arrived (from the message handler or the listen stream)."""
        self._wanted.set()
        if self.rate.notice(anyio.current_time()) and not self.noisy:
            self.noisy = True
            self._log.note("tools/list_changed without pause: re-listing it at a slower pace")
            self._publish(None)

    async def run(
        self, relist: Callable[[], Awaitable[Listing]], publish: Callable[[Listing | None], None]
    ) -> None:
        """Re-list on notices until cancelled.

        ``relist`` lists every page; ``publish`` gets each new listing (with ``noisy`` already
        updated), or ``None`` when only ``noisy`` changed. A failed re-list is logged and
        waits for the next notice.
        """
        self._publish = publish
        streak = 0  # re-lists since the server was last quiet
        last = -math.inf
        while True:
            with anyio.move_on_after(RELIST_QUIET_RESET if self.noisy else math.inf):
                await self._wanted.wait()
            if not self._wanted.is_set():  # a noisy server has calmed down
                self.noisy = False
                publish(None)
                continue
            if anyio.current_time() - last > RELIST_QUIET_RESET:
                streak = 0
            while True:
                wait = last + relist_interval(streak) - anyio.current_time()
                if wait > 0:
                    await anyio.sleep(wait)
                self._wanted = anyio.Event()
                try:
                    listing = await relist()
                except Exception as exc:
                    self._note(f"re-listing tools failed: {exc!r}")
                    break
                last = anyio.current_time()
                streak += 1
                publish(listing)
                if not self._wanted.is_set():
                    break
                await self._wait_for_quiet()

    async def _wait_for_quiet(self) -> None:
        """Return once no change notice has come for ``BURST_QUIET`` s, or ``BURST_MAX_WAIT``."""
        deadline = anyio.current_time() + BURST_MAX_WAIT
        while (left := deadline - anyio.current_time()) > 0:
            notice = anyio.Event()
            self._wanted = notice
            with anyio.move_on_after(min(BURST_QUIET, left)) as window:
                await notice.wait()
            if window.cancelled_caught:
                return


def relist_interval(streak: int) -> float:
    """The least time between two re-lists after ``streak`` of them in a row."""
    if streak < FREE_RELISTS:
        return 0.0
    return min(BURST_MAX_WAIT * 2.0 ** (streak - FREE_RELISTS), MAX_RELIST_INTERVAL)


def _not_offered(exc: BaseException) -> bool:
    """Whether ``exc`` says only that the server does not offer the listen stream."""
    if isinstance(exc, ListenNotSupportedError):
        return True
    return isinstance(exc, MCPError) and exc.code == METHOD_NOT_FOUND


async def follow_listen_stream(
    client: Client,
    relister: Relister,
    note: Callable[[str], None],
    on_offer: Callable[[OfferKind], None] = lambda _kind: None,
    *,
    task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Follow the 2026-07-28 subscription stream; each tools event asks ``relister`` for a
    re-list, each resources or prompts event goes to ``on_offer``.

    Started with ``TaskGroup.start``: it reports started once subscribed (or refused), so the
    first listing comes after the subscription and no change between the two is missed.
    """
    # Not gated on the advertised ``listChanged`` capability: servers that change their
    # tools without advertising it exist, and a server that cannot listen just says so.
    started = False
    try:
        async with client.listen(
            tools_list_changed=True, resources_list_changed=True, prompts_list_changed=True
        ) as subscription:
            task_status.started()
            started = True
            async for event in subscription:
                if isinstance(event, ResourcesListChanged):
                    on_offer("resources")
                elif isinstance(event, PromptsListChanged):
                    on_offer("prompts")
                elif isinstance(event, ToolsListChanged):
                    relister.notice()
    except (ListenNotSupportedError, SubscriptionLost, MCPError, TimeoutError) as exc:
        if _not_offered(exc):
            # Normal: a server without the 2026 subscription (its tools are listed as usual).
            log.debug("no tools/list_changed subscription: %s", exc)
        else:
            note(f"tools/list_changed subscription ended: {exc}")
    finally:
        if not started:
            task_status.started()
