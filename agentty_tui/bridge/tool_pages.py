"""One complete ``tools/list`` of a connected server: every page, each tool screened alone.

A page the SDK cannot validate (one malformed tool fails a whole page) is asked for again
unvalidated and screened tool by tool (``bridge/listing.py``), so the valid ones are kept.
"""

from __future__ import annotations

from dataclasses import dataclass

import mcp_types as types
from mcp import Client
from pydantic import ValidationError

from agentty_tui.bridge._sdk import absorb_tool_listing, send_raw_request
from agentty_tui.bridge.http import HttpTransport
from agentty_tui.bridge.listing import LenientToolsPage, screen_raw_tools, screen_tools
from agentty_tui.bridge.logs import ServerLog
from agentty_tui.bridge.stdio import TOO_DEEP, StdioTransport
from agentty_tui.model import AdvertisedTool, DroppedTool

__all__ = ["MAX_TOOL_PAGES", "Listing", "list_all_tools"]

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
