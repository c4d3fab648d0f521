"""Turning a server's ``tools/list_changed`` notices into re-lists, bursts coalesced.

A lone notice is answered at once (a new tool shows within milliseconds). Notices that keep
arriving while a re-list runs mean a burst: wait until the server has been quiet for
``BURST_QUIET`` seconds (at most ``BURST_MAX_WAIT``), then re-list once. A server that never
stops gets ever longer intervals, up to ``MAX_RELIST_INTERVAL``. It is marked noisy by the rate
of its notices (``notice_rate``: a few seconds of them, however slowly its re-lists are answered)
until it has been quiet for ``RELIST_QUIET_RESET`` seconds.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable

import anyio
import anyio.abc
from mcp import Client
from mcp.client.subscriptions import ListenNotSupportedError, SubscriptionLost
from mcp.shared.exceptions import MCPError
from mcp_types import METHOD_NOT_FOUND

from agentty_tui.bridge.logs import ServerLog
from agentty_tui.bridge.notice_rate import NoticeRate
from agentty_tui.bridge.tool_pages import Listing

__all__ = [
    "BURST_MAX_WAIT",
    "BURST_QUIET",
    "FREE_RELISTS",
    "MAX_RELIST_INTERVAL",
    "RELIST_QUIET_RESET",
    "Relister",
    "follow_listen_stream",
    "noisy_warning",
]

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
    *,
    task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Follow the 2026-07-28 subscription stream; each event asks ``relister`` for a re-list.

    Started with ``TaskGroup.start``: it reports started once subscribed (or refused), so the
    first listing comes after the subscription and no change between the two is missed.
    """
    # Not gated on the advertised ``listChanged`` capability: servers that change their
    # tools without advertising it exist, and a server that cannot listen just says so.
    started = False
    try:
        async with client.listen(tools_list_changed=True) as subscription:
            task_status.started()
            started = True
            async for _event in subscription:
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
