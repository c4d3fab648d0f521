"""Immutable values: the base of every model value, and deeply frozen JSON values.

A JSON object becomes a read-only mapping, an array a tuple; scalars stay as they are.
``thaw`` turns such a value back into plain dicts and lists for a wire payload.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    PlainSerializer,
    WithJsonSchema,
)

__all__ = ["Frozen", "FrozenJson", "FrozenStrMap", "freeze", "thaw"]


class Frozen(BaseModel):
    """Base of every model value: immutable, and strict about unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


def freeze(value: Any) -> Any:
    """Return ``value`` with every dict made a read-only mapping and every list a tuple."""
    if isinstance(value, MappingProxyType):
        return value
    if isinstance(value, Mapping):
        return MappingProxyType({str(k): freeze(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """Return a plain, mutable copy of a frozen JSON value (dicts and lists)."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [thaw(v) for v in value]
    return value


FrozenJson = Annotated[
    Any,
    BeforeValidator(freeze),
    PlainSerializer(thaw),
    WithJsonSchema({}),
]
"""A JSON value stored deeply frozen; serialized back to plain JSON."""

FrozenStrMap = Annotated[
    Mapping[str, str],
    AfterValidator(lambda mapping: MappingProxyType(dict(mapping))),
    PlainSerializer(lambda m: dict(m)),
    WithJsonSchema({"type": "object", "additionalProperties": {"type": "string"}}),
]
"""A read-only ``str -> str`` mapping (environment variables, HTTP headers)."""
