"""How each MCP tool gets a distinct provider-safe wire name.

1. The qualified name ``mcp__<server>__<tool>``, with every character outside
   ``[A-Za-z0-9_-]`` replaced by ``_`` (one ``_`` per code point).
2. That name is used as it is unless it is longer than 64 characters, or another identity in the
   same set sanitizes to the same name (``a.b`` and ``a_b``), or it equals a reserved name (a
   native tool's). Then *every* identity involved gets a stable suffix: the qualified name is cut
   so that ``<prefix>_<8 hex>`` fits in 64 characters, where the hex digits are the start of
   ``sha256(server + "\\0" + tool)`` (UTF-8).
3. Should a name produced that way still clash (with another suffixed name, with an unsuffixed
   one, or with a reserved name), every identity in the clash gets one more hex digit (an
   unsuffixed one gets its 8), and this repeats until all names are distinct.

Collisions are resolved over the whole set at once, so the result depends only on the set of
identities and reserved names, never on the order they arrive in; and a name depends only on the
identities it clashes with, so it stays stable when unrelated tools come and go.

Pure: no I/O, no state.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence

from agentty_tui.catalog.names import (
    MAX_WIRE_NAME_LENGTH,
    SUFFIX_HEX_DIGITS,
    ToolRef,
    WireNames,
    identity_digest,
    qualified_name,
)
from agentty_tui.errors import AgenttyError

__all__ = ["allocate_distinct", "allocate_wire_names", "plain_names"]

_MAX_HEX_DIGITS = MAX_WIRE_NAME_LENGTH - 1  # "_" + digits; sha256 gives 64, one must go


def _suffixed(base: str, digest: str, digits: int) -> str:
    return f"{base[: MAX_WIRE_NAME_LENGTH - 1 - digits]}_{digest[:digits]}"


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
    base_count = Counter(bases)

    # 0 = the plain qualified name; otherwise how many hex digits the suffix has.
    digits = [
        SUFFIX_HEX_DIGITS
        if len(base) > MAX_WIRE_NAME_LENGTH or base_count[base] > 1 or base in reserved
        else 0
        for base in bases
    ]
    # Plain names are now distinct from each other and from the reserved ones; suffixed
    # names may still clash with anything, in which case everyone in the clash grows.
    names = list(bases)
    digests: dict[int, str] = {}

    def name_of(i: int) -> str:
        if not digits[i]:
            return bases[i]
        digest = digests.get(i)
        if digest is None:
            digest = digests[i] = identity_digest(*refs[i])
        return _suffixed(bases[i], digest, digits[i])

    clashing = [i for i, d in enumerate(digits) if d]
    while clashing:
        for i in clashing:
            names[i] = name_of(i)
        owners = Counter(names)
        clashing = [i for i, name in enumerate(names) if owners[name] > 1 or name in reserved]
        for i in clashing:
            if digits[i] >= _MAX_HEX_DIGITS:  # a sha256 collision: not going to happen
                ref = refs[i]
                raise AgenttyError(
                    f"cannot give tool {ref.tool!r} of server {ref.server!r} a unique wire name"
                )
            digits[i] = digits[i] + 1 if digits[i] else SUFFIX_HEX_DIGITS

    by_ref = dict(zip(refs, names, strict=True))
    by_wire = dict(zip(names, refs, strict=True))
    return WireNames.unchecked(by_ref, by_wire)


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
