"""Provider-safe wire names for MCP tools, and the way back from a wire name to its tool.

Anthropic and OpenAI accept a tool name only if it matches ``^[a-zA-Z0-9_-]{1,64}$``. An MCP
tool name may contain ``.`` and be up to 128 characters long, and a server name is whatever key
the config uses. So each MCP tool, identified by ``(server, bare tool name)``, gets a wire name:

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

import hashlib
import re
from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from types import MappingProxyType
from typing import Any, NamedTuple

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema

from agentty_tui.errors import AgenttyError, UnknownToolError

__all__ = [
    "MAX_WIRE_NAME_LENGTH",
    "SUFFIX_HEX_DIGITS",
    "WIRE_NAME_PATTERN",
    "ToolRef",
    "WireNames",
    "allocate_wire_names",
    "identity_digest",
    "is_provider_safe",
    "qualified_name",
    "sanitize",
]

MAX_WIRE_NAME_LENGTH = 64
"""The longest tool name Anthropic and OpenAI accept."""

SUFFIX_HEX_DIGITS = 8
"""Hex digits of the identity hash in a suffixed wire name (more only on a clash)."""

WIRE_NAME_PATTERN = re.compile(r"[a-zA-Z0-9_-]{1,64}")
"""What providers accept as a tool name (use ``fullmatch``)."""

_UNSAFE_CHAR = re.compile(r"[^a-zA-Z0-9_-]")
_MAX_HEX_DIGITS = MAX_WIRE_NAME_LENGTH - 1  # "_" + digits; sha256 gives 64, one must go


class ToolRef(NamedTuple):
    """The identity of an MCP tool: the server's config name and the tool's bare name.

    A named tuple, so it is immutable, hashable, cheap to build, and equal to the plain tuple
    ``(server, tool)``.
    """

    server: str
    """Config name of the server."""
    tool: str
    """The tool's name as the server advertises it."""


def is_provider_safe(name: str) -> bool:
    """Whether ``name`` is a tool name that Anthropic and OpenAI accept."""
    return WIRE_NAME_PATTERN.fullmatch(name) is not None


def sanitize(text: str) -> str:
    """``text`` with every character outside ``[A-Za-z0-9_-]`` replaced by ``_``."""
    return _UNSAFE_CHAR.sub("_", text)


@lru_cache(maxsize=1 << 16)
def qualified_name(server: str, tool: str) -> str:
    """The sanitized ``mcp__<server>__<tool>``, before any length cap or collision suffix.

    Cached: every snapshot projects every tool again, and the names rarely change.
    """
    return sanitize(f"mcp__{server}__{tool}")


def identity_digest(server: str, tool: str) -> str:
    """Hex sha256 of the raw identity ``server + "\\0" + tool``; suffixes are taken from it."""
    raw = f"{server}\0{tool}".encode("utf-8", "surrogatepass")
    return hashlib.sha256(raw).hexdigest()


def _suffixed(base: str, digest: str, digits: int) -> str:
    return f"{base[: MAX_WIRE_NAME_LENGTH - 1 - digits]}_{digest[:digits]}"


class WireNames:
    """An immutable, bijective map between tool identities and their wire names.

    Build one with :func:`allocate_wire_names`. Iterating yields the identities in the order they
    were given to the allocator.
    """

    __slots__ = ("_by_ref", "_by_wire")

    _by_ref: Mapping[ToolRef, str]
    _by_wire: Mapping[str, ToolRef]

    def __init__(self, by_ref: Mapping[ToolRef, str] | None = None) -> None:
        """Wrap a finished identity -> wire name map (which must be one-to-one)."""
        by_ref = dict(by_ref or {})
        by_wire = {wire: ref for ref, wire in by_ref.items()}
        if len(by_wire) != len(by_ref):
            raise ValueError("two tool identities share a wire name")
        object.__setattr__(self, "_by_ref", by_ref)
        object.__setattr__(self, "_by_wire", by_wire)

    @classmethod
    def _trusted(cls, by_ref: dict[ToolRef, str], by_wire: dict[str, ToolRef]) -> WireNames:
        self = cls.__new__(cls)
        object.__setattr__(self, "_by_ref", by_ref)
        object.__setattr__(self, "_by_wire", by_wire)
        return self

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def wire(self, server: str, tool: str) -> str:
        """The wire name of ``tool`` on ``server``; ``UnknownToolError`` if it has none."""
        try:
            return self._by_ref[ToolRef(server, tool)]
        except KeyError:
            raise UnknownToolError(server, tool) from None

    def resolve(self, wire_name: str) -> ToolRef:
        """The ``(server, tool)`` behind a wire name; ``UnknownToolError`` if it is not one."""
        try:
            return self._by_wire[wire_name]
        except KeyError:
            raise UnknownToolError(None, wire_name) from None

    def get(self, wire_name: str) -> ToolRef | None:
        """Like :meth:`resolve`, but ``None`` for an unknown wire name."""
        return self._by_wire.get(wire_name)

    @property
    def by_identity(self) -> Mapping[ToolRef, str]:
        """Read-only view: identity -> wire name, in allocation order."""
        return MappingProxyType(self._by_ref)

    @property
    def by_wire(self) -> Mapping[str, ToolRef]:
        """Read-only view: wire name -> identity."""
        return MappingProxyType(self._by_wire)

    def items(self) -> Iterator[tuple[ToolRef, str]]:
        """``(identity, wire name)`` pairs in allocation order."""
        return iter(self._by_ref.items())

    def __contains__(self, wire_name: object) -> bool:
        return wire_name in self._by_wire

    def __iter__(self) -> Iterator[ToolRef]:
        return iter(self._by_ref)

    def __len__(self) -> int:
        return len(self._by_ref)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, WireNames):
            return NotImplemented
        return self._by_ref == other._by_ref

    def __hash__(self) -> int:
        return hash(frozenset(self._by_ref.items()))

    def __repr__(self) -> str:
        return f"WireNames({len(self)} tools)"

    # --- pydantic integration: usable as a field type, serialized as a list of entries -------

    def to_json(self) -> list[dict[str, str]]:
        """Plain JSON: ``[{"name": wire, "server": ..., "tool": ...}, ...]``."""
        return [{"name": wire, "server": s, "tool": t} for (s, t), wire in self._by_ref.items()]

    @classmethod
    def _validate(cls, value: Any) -> WireNames:
        if isinstance(value, WireNames):
            return value
        if isinstance(value, Sequence) and not isinstance(value, str | bytes):
            try:
                entries = {ToolRef(e["server"], e["tool"]): e["name"] for e in value}
            except (KeyError, TypeError) as exc:
                raise ValueError("expected entries of the form {name, server, tool}") from exc
            if not all(isinstance(x, str) for ref, w in entries.items() for x in (*ref, w)):
                raise ValueError("wire name entries must be strings")
            return cls(entries)
        raise ValueError("expected WireNames or a list of {name, server, tool} entries")

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(
            cls._validate,
            serialization=core_schema.plain_serializer_function_ser_schema(cls.to_json),
        )

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        entry = {
            "type": "object",
            "properties": {k: {"type": "string"} for k in ("name", "server", "tool")},
            "required": ["name", "server", "tool"],
        }
        return {"type": "array", "items": entry}


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
    return _allocate_unique(refs, reserved_set)


def _allocate_unique(
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
    if _all_plain(bases, reserved):
        # The common case, and the one a toggle hits: no name needs a suffix.
        return WireNames._trusted(
            dict(zip(refs, bases, strict=True)), dict(zip(bases, refs, strict=True))
        )
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
    return WireNames._trusted(by_ref, by_wire)


def _all_plain(bases: Sequence[str], reserved: Collection[str]) -> bool:
    """Whether every qualified name can be used as it is: short, distinct and not reserved."""
    # Built-ins only: this runs over every requested tool on every snapshot.
    return (
        len(set(bases)) == len(bases)
        and max(map(len, bases), default=0) <= MAX_WIRE_NAME_LENGTH
        and not any(map(reserved.__contains__, bases))
    )
