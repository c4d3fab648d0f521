"""The tool names a host gets from the gateway: ``<server>__<tool>``, fitted under its prefix.

A host names an MCP server's tools itself: Claude Code sends ``mcp__<its server>__<tool>`` to
the model, and providers accept at most 64 characters of ``[A-Za-z0-9_-]``. Through the
gateway a host has one server, ``agentty``, so ``mcp__agentty__`` (14 characters) comes first
and a gateway name has ``GATEWAY_NAME_LIMIT`` (50) characters of room. Within it each tool is
named by the wire catalog's own rule (``catalog.allocation.fit_names``, with no prefix): its
plain ``<server>__<tool>`` when that fits and is nobody else's; a long server's name shortened
first, with a hash of it (``<server, cut>_<hex>__<tool>``), so the tool keeps its own name; an
identity's hash on a clash. The result depends only on the set of tools and reserved names.

Pure: no I/O, no state.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from agentty_tui.catalog.allocation import fit_names
from agentty_tui.catalog.names import ToolRef, WireNames, sanitize

__all__ = ["GATEWAY_NAME_LIMIT", "HOST_PREFIX", "gateway_names", "plain_gateway_name"]

HOST_PREFIX = "mcp__agentty__"
"""What a host puts before a gateway name (Claude Code's ``mcp__<server>__``, the longest
prefix among the hosts, for the entry ``agentty``)."""

GATEWAY_NAME_LIMIT = 64 - len(HOST_PREFIX)
"""The longest gateway name: with ``HOST_PREFIX`` before it, 64 characters, what providers
accept."""

_SEPARATOR = "__"


def plain_gateway_name(server: str, tool: str) -> str:
    """``<server>__<tool>``, every character outside ``[A-Za-z0-9_-]`` made ``_``."""
    return f"{sanitize(server)}{_SEPARATOR}{sanitize(tool)}"


def gateway_names(
    refs: Iterable[ToolRef], *, reserved: Collection[str] = (), limit: int = GATEWAY_NAME_LIMIT
) -> WireNames:
    """A distinct gateway name for every tool of ``refs`` (a repeated one named once), each
    at most ``limit`` characters of ``[A-Za-z0-9_-]`` and none in ``reserved``."""
    unique = list(dict.fromkeys(ToolRef(*ref) for ref in refs))
    return fit_names(unique, prefix="", limit=limit, reserved=reserved)
