"""The tool names a host gets from the gateway: ``<server>__<tool>``, fitted under its prefix.

A host names an MCP server's tools itself: Claude Code sends ``mcp__<its server>__<tool>`` to
the model, and providers accept at most 64 characters of ``[A-Za-z0-9_-]``. Through the
gateway a host has one server, ``agentty``, so ``mcp__agentty__`` (14 characters) comes first
and a gateway name has ``GATEWAY_NAME_LIMIT`` (50) characters of room. Each tool, a
``ToolRef`` (server, bare tool name), gets:

1. its plain name, ``sanitize(server) + "__" + sanitize(tool)``, when that fits and no other
   tool of the set, nor a reserved name, has the same one;
2. otherwise (and for every tool of such a clash) a suffixed name that keeps the tool's own
   name whole: ``<server, cut>_<hex>__<tool>``, where the hex digits are the start of
   ``sha256(server + "\\0" + tool)``; a tool whose own name leaves no room is cut instead:
   ``<server, cut to 8>__<tool, cut>_<hex>``;
3. a suffixed name that still clashes gets one more hex digit (everyone in the clash), until
   all are distinct.

As in ``catalog/allocation.py`` (whose scheme this follows, for another prefix), the result
depends only on the set of tools and reserved names, never on their order, and a name changes
only when a tool it clashes with comes or goes.

Pure: no I/O, no state.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable

from agentty_tui.catalog.names import ToolRef, WireNames, identity_digest, sanitize
from agentty_tui.errors import AgenttyError

__all__ = ["GATEWAY_NAME_LIMIT", "HOST_PREFIX", "gateway_names", "plain_gateway_name"]

HOST_PREFIX = "mcp__agentty__"
"""What a host puts before a gateway name (Claude Code's ``mcp__<server>__``, the longest
prefix among the hosts, for the entry ``agentty``)."""

GATEWAY_NAME_LIMIT = 64 - len(HOST_PREFIX)
"""The longest gateway name: with ``HOST_PREFIX`` before it, 64 characters, what providers
accept."""

SUFFIX_HEX_DIGITS = 8
"""Hex digits of the identity hash in a suffixed name (more only on a clash)."""

_SEPARATOR = "__"
_CUT_SERVER = 8
"""What is kept of the server's name when the tool's own name is too long to keep whole."""


def plain_gateway_name(server: str, tool: str) -> str:
    """``<server>__<tool>``, every character outside ``[A-Za-z0-9_-]`` made ``_``."""
    return f"{sanitize(server)}{_SEPARATOR}{sanitize(tool)}"


def _suffixed(ref: ToolRef, digest: str, digits: int, limit: int) -> str:
    """The name of ``ref`` with ``digits`` hex digits of its ``digest``, at most ``limit`` long."""
    server, tool = sanitize(ref.server), sanitize(ref.tool)
    tag = f"_{digest[:digits]}"
    room = limit - len(tool) - len(_SEPARATOR) - len(tag)
    if room >= 1:
        return f"{server[:room]}{tag}{_SEPARATOR}{tool}"  # the tool's own name whole
    base = f"{server[:_CUT_SERVER]}{_SEPARATOR}{tool}"
    return f"{base[: limit - len(tag)]}{tag}"


def gateway_names(
    refs: Iterable[ToolRef], *, reserved: Collection[str] = (), limit: int = GATEWAY_NAME_LIMIT
) -> WireNames:
    """A distinct gateway name for every tool of ``refs`` (a repeated one named once), each
    at most ``limit`` characters of ``[A-Za-z0-9_-]`` and none in ``reserved``."""
    if limit < len(_SEPARATOR) + 2 + SUFFIX_HEX_DIGITS + 2:
        raise ValueError(f"a gateway name needs more room than {limit} characters")
    unique = list(dict.fromkeys(ToolRef(*ref) for ref in refs))
    bases = [plain_gateway_name(ref.server, ref.tool) for ref in unique]
    count = Counter(bases)
    # 0: the plain name; otherwise how many hex digits its suffix has.
    digits = [
        SUFFIX_HEX_DIGITS if len(base) > limit or count[base] > 1 or base in reserved else 0
        for base in bases
    ]
    names = list(bases)
    digests: dict[int, str] = {}
    clashing = [i for i, d in enumerate(digits) if d]
    while clashing:
        for i in clashing:
            digest = digests.get(i)
            if digest is None:
                digest = digests[i] = identity_digest(*unique[i])
            names[i] = _suffixed(unique[i], digest, digits[i], limit)
        owners = Counter(names)
        clashing = [i for i, name in enumerate(names) if owners[name] > 1 or name in reserved]
        for i in clashing:
            if digits[i] >= limit // 2:  # a sha256 prefix collision: not going to happen
                ref = unique[i]
                raise AgenttyError(
                    f"cannot give tool {ref.tool!r} of server {ref.server!r} a unique name"
                )
            digits[i] = digits[i] + 1 if digits[i] else SUFFIX_HEX_DIGITS
    by_ref = dict(zip(unique, names, strict=True))
    return WireNames.unchecked(by_ref, dict(zip(names, unique, strict=True)))
