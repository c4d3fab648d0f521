"""How each MCP tool gets a distinct provider-safe name: one rule for every prefix.

A name is ``<prefix><server>__<tool>`` with every character outside ``[A-Za-z0-9_-]`` made
``_`` (one per code point): the wire catalog's prefix is ``mcp__`` under 64 characters; the
gateway's is empty under the room a host's own prefix leaves (``gateway.host.naming``). Each tool
(server, bare tool name) gets:

1. its **plain name**, when it fits and no other tool of the set, nor a reserved name (a
   native tool's), has the same one;
2. when it does not fit, the **server is shortened first**: ``<server, cut>_<8 hex>__<tool>``,
   the hex digits the start of ``sha256(server)``, so every tool of one long server shares one
   stem and the tool's own name stays whole; only a tool whose own name leaves no room for a
   stem is cut: ``<server, cut to 8>__<tool, cut>_<8 hex>``, the hex digits then the start of
   ``sha256(server + "\0" + tool)``;
3. every tool of a **clash** (two tools sanitized alike, ``a.b`` and ``a_b``; a name equal to a
   reserved one; two shortened names alike) gets its identity's hash after the server part
   instead, ``<server, cut>_<8 hex of sha256(server NUL tool)>__<tool>`` (the tool's name still
   whole where it fits); a name that still clashes gets one more hex digit, everyone in the
   clash, until all are distinct.

The result depends only on the set of tools and reserved names, never on their order; a
tool's name changes only when a tool it clashes with comes or goes.

Pure: no I/O, no state.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from functools import lru_cache

from agentty_tui.catalog.names import (
    MAX_WIRE_NAME_LENGTH,
    SUFFIX_HEX_DIGITS,
    ToolRef,
    WireNames,
    identity_digest,
    qualified_name,
    sanitize,
)
from agentty_tui.errors import AgenttyError

__all__ = [
    "WIRE_PREFIX",
    "allocate_distinct",
    "allocate_wire_names",
    "fit_names",
    "plain_names",
    "server_digest",
]

WIRE_PREFIX = "mcp__"
"""What the wire catalog puts before ``<server>__<tool>``."""

_SEPARATOR = "__"
_CUT_SERVER = 8
"""What is kept of the server's name when the tool's own name is too long to keep whole."""


@lru_cache(maxsize=1 << 12)
def server_digest(server: str) -> str:
    """Hex sha256 of the raw server name (UTF-8): the stem of a shortened server part."""
    return hashlib.sha256(server.encode("utf-8", "surrogatepass")).hexdigest()


def _fitted(prefix: str, server: str, tool: str, tag: str, limit: int) -> str | None:
    """``<prefix><server, cut><tag>__<tool>`` within ``limit``, the tool whole; ``None`` when
    not even one character of the server fits."""
    room = limit - len(prefix) - len(tool) - len(_SEPARATOR) - len(tag)
    if room < 1:
        return None
    return f"{prefix}{server[:room]}{tag}{_SEPARATOR}{tool}"


def _tool_cut(prefix: str, server: str, tool: str, tag: str, limit: int) -> str:
    """``<prefix><server, cut to 8>__<tool, cut><tag>`` within ``limit``."""
    base = f"{prefix}{server[:_CUT_SERVER]}{_SEPARATOR}{tool}"
    return f"{base[: limit - len(tag)]}{tag}"


def _name(ref: ToolRef, prefix: str, limit: int, digits: int) -> str:
    """The name of ``ref`` at clash level ``digits`` (0: plain or server-shortened; more: that
    many hex digits of the identity's hash)."""
    server, tool = sanitize(ref.server), sanitize(ref.tool)
    if digits == 0:
        plain = f"{prefix}{server}{_SEPARATOR}{tool}"
        if len(plain) <= limit:
            return plain
        stem = f"_{server_digest(ref.server)[:SUFFIX_HEX_DIGITS]}"
        shortened = _fitted(prefix, server, tool, stem, limit)
        if shortened is not None:
            return shortened
        digits = SUFFIX_HEX_DIGITS  # the tool alone does not fit: it is cut, and tagged
    tag = f"_{identity_digest(ref.server, ref.tool)[:digits]}"
    return _fitted(prefix, server, tool, tag, limit) or _tool_cut(prefix, server, tool, tag, limit)


def fit_names(
    refs: Sequence[ToolRef],
    *,
    prefix: str,
    limit: int,
    reserved: Collection[str] = (),
    bases: Sequence[str] | None = None,
) -> WireNames:
    """A distinct name for every tool of ``refs`` (distinct ``ToolRef`` values): at most
    ``limit`` characters of ``[A-Za-z0-9_-]`` starting with ``prefix``, none in ``reserved``
    (the module docstring has the rule). ``bases``, when given, are the plain names in order."""
    if limit - len(prefix) < len(_SEPARATOR) + 2 + SUFFIX_HEX_DIGITS + _CUT_SERVER:
        raise ValueError(f"a name needs more room than {limit - len(prefix)} characters")
    if bases is None:
        bases = [f"{prefix}{sanitize(ref.server)}{_SEPARATOR}{sanitize(ref.tool)}" for ref in refs]
    count = Counter(bases)
    # 0: the plain (or server-shortened) name; otherwise hex digits of the identity's hash.
    digits = [SUFFIX_HEX_DIGITS if count[base] > 1 or base in reserved else 0 for base in bases]
    names = list(bases)
    pending = [i for i, base in enumerate(bases) if digits[i] or len(base) > limit]
    while pending:
        for i in pending:
            names[i] = _name(refs[i], prefix, limit, digits[i])
        owners = Counter(names)
        pending = [i for i, name in enumerate(names) if owners[name] > 1 or name in reserved]
        for i in pending:
            if digits[i] >= (limit - len(prefix)) // 2:  # a sha256 prefix collision: never
                ref = refs[i]
                raise AgenttyError(
                    f"cannot give tool {ref.tool!r} of server {ref.server!r} a unique name"
                )
            digits[i] = digits[i] + 1 if digits[i] else SUFFIX_HEX_DIGITS
    by_ref = dict(zip(refs, names, strict=True))
    return WireNames.unchecked(by_ref, dict(zip(names, refs, strict=True)))


def allocate_wire_names(
    identities: Iterable[tuple[str, str]], reserved: Collection[str] = ()
) -> WireNames:
    """Give every ``(server, tool)`` identity a distinct provider-safe wire name.

    ``reserved`` names (the native tools') are never handed out. Duplicate identities are
    allocated once. The result depends only on the set of identities and reserved names (see
    the module docstring for the scheme). Linear in the number of identities.
    """
    refs = list(dict.fromkeys(ToolRef(server, tool) for server, tool in identities))
    reserved_set = reserved if isinstance(reserved, frozenset | set) else frozenset(reserved)
    return allocate_distinct(refs, reserved_set)


def allocate_distinct(
    refs: Sequence[ToolRef],
    reserved: Collection[str],
    bases: Sequence[str] | None = None,
) -> WireNames:
    """:func:`allocate_wire_names` for identities known to be distinct ``ToolRef`` values.

    ``bases``, when given, are the identities' :func:`qualified_name`, in the same order (a
    caller that keeps them per server saves computing them again).
    """
    if bases is None:
        bases = [qualified_name(server, tool) for server, tool in refs]
    by_ref = dict(zip(refs, bases, strict=True))
    longest = max(map(len, bases), default=0)
    plain = plain_names([(by_ref, dict(zip(bases, refs, strict=True)), longest)], reserved)
    if plain is not None:
        return plain  # the common case, and the one a toggle hits: no name needs a suffix
    return fit_names(
        refs, prefix=WIRE_PREFIX, limit=MAX_WIRE_NAME_LENGTH, reserved=reserved, bases=bases
    )


def plain_names(
    groups: Iterable[tuple[Mapping[ToolRef, str], Mapping[str, ToolRef], int]],
    reserved: Collection[str],
) -> WireNames | None:
    """The wire names when every identity keeps its qualified name, else ``None``.

    That is the case when every qualified name is short enough, distinct from the others and
    not reserved. ``groups`` are ``(ref -> qualified name, qualified name -> ref, length of the
    longest name)`` over distinct refs (the projector keeps one per server): they are merged,
    and no single tool is looked at.
    """
    groups = list(groups)
    if any(longest > MAX_WIRE_NAME_LENGTH for _, _, longest in groups):
        return None
    by_wire: dict[str, ToolRef] = {}
    count = 0
    for by_ref_part, by_base, _ in groups:
        by_wire.update(by_base)
        count += len(by_ref_part)
    # Fewer names than refs: two refs sanitize alike. Built-ins only past this point: it runs
    # over every requested tool on every snapshot.
    if len(by_wire) != count or any(map(by_wire.__contains__, reserved)):
        return None
    by_ref: dict[ToolRef, str] = {}
    for by_ref_part, _, _ in groups:
        by_ref.update(by_ref_part)
    return WireNames.unchecked(by_ref, by_wire)
