"""Wire names for MCP tools: the identity of a tool, and the map between identities and names.

Anthropic and OpenAI accept a tool name only if it matches ``^[a-zA-Z0-9_-]{1,64}$``. An MCP
tool name may contain ``.`` and be up to 128 characters long, and a server name is whatever key
the config uses. So each MCP tool, identified by ``(server, bare tool name)`` (a ``ToolRef``),
gets a wire name, starting from its sanitized qualified name ``mcp__<server>__<tool>``
(``qualified_name``); how clashes and long names are resolved is :mod:`.allocation`'s job, and
``WireNames`` holds the result, both ways.

Pure: no I/O, no state."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Mapping, Sequence
from functools import lru_cache
from types import MappingProxyType
from typing import Any, NamedTuple

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema

from agentty_tui.errors import UnknownToolError

__all__ = [
    "MAX_WIRE_NAME_LENGTH",
    "SUFFIX_HEX_DIGITS",
    "WIRE_NAME_PATTERN",
    "ToolRef",
    "WireNames",
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


class WireNames:
    """An immutable, bijective map between tool identities and their wire names.

    Build one with :func:`~agentty_tui.catalog.allocation.allocate_wire_names`. Iterating yields
    the identities in the order they were given to the allocator.
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
    def unchecked(cls, by_ref: dict[ToolRef, str], by_wire: dict[str, ToolRef]) -> WireNames:
        """Adopt two maps the caller built as each other's inverse, without copying or checking
        them (the allocator's and the projector's hot path); the caller gives them up."""
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
