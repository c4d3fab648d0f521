"""From a server's ``tools/list`` pages to the tools the model keeps, and the ones it drops.

A server may advertise tools that break the MCP rules. Those are dropped one by one, each with
the reason, so that one bad tool never costs the server its valid ones.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

import mcp_types as types
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agentty_tui.model import AdvertisedTool, DroppedTool

__all__ = ["MAX_TOOL_NAME", "LenientToolsPage", "screen_raw_tools", "screen_tools"]


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


def screen_tools(
    advertised: Iterable[types.Tool],
    already_dropped: Iterable[DroppedTool] = (),
    *,
    cut_marker: str | None = None,
) -> tuple[tuple[AdvertisedTool, ...], tuple[DroppedTool, ...]]:
    """Split advertised tools into the valid ones (in order) and the dropped ones (with why).

    ``cut_marker`` is what replaced the parts of the listing that were nested too deep to
    read; a tool whose schema holds it is dropped.
    """
    kept: list[AdvertisedTool] = []
    dropped: list[DroppedTool] = list(already_dropped)
    seen: set[str] = set()
    for tool in advertised:
        problem = _problem(tool, seen)
        if problem is None and cut_marker is not None and _holds(tool.input_schema, cut_marker):
            problem = "the input schema is nested too deep to read"
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
            )
        )
    return tuple(kept), tuple(dropped)
