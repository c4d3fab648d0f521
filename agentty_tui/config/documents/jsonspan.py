"""Where one value sits in a plain JSON text, found without building a tree of the whole file.

``value_span(text, ("projects", "/x"))`` walks down a path of object keys and gives the span of
the value found there. Values off the path are skipped by the standard library's C decoder, so a
file of megabytes (Claude Code's ``~/.claude.json``) is crossed in milliseconds, where the JSONC
parser (``jsonc.py``, which records a span for every value) would take a good part of a second.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Member", "members", "value_span"]

_DECODER = json.JSONDecoder()
_WHITESPACE = " \t\n\r"


def _skip(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _WHITESPACE:
        pos += 1
    return pos


def _expect(text: str, pos: int, char: str) -> int:
    if not text.startswith(char, pos):
        raise ValueError(f"expected {char!r} at offset {pos}")
    return _skip(text, pos + 1)


def _member(text: str, pos: int, key: str) -> tuple[int, int] | None:
    """The span of member ``key``'s value in the object starting at ``pos`` (the last one, as
    a reader keeps the last of repeated keys); ``None`` when absent or not an object."""
    if not text.startswith("{", pos):
        return None
    pos = _skip(text, pos + 1)
    found = None
    while not text.startswith("}", pos):
        name, pos = _DECODER.raw_decode(text, pos)
        if not isinstance(name, str):
            raise ValueError(f"an object key must be a string (offset {pos})")
        pos = _expect(text, _skip(text, pos), ":")
        start = pos
        _, pos = _DECODER.raw_decode(text, pos)
        if name == key:
            found = (start, pos)
        pos = _skip(text, pos)
        if text.startswith(",", pos):
            pos = _skip(text, pos + 1)
        elif not text.startswith("}", pos):
            raise ValueError(f"expected ',' or '}}' at offset {pos}")
    return found


def value_span(text: str, keys: tuple[str, ...]) -> tuple[int, int] | None:
    """The span ``(start, end)`` in ``text`` of the value at the path ``keys`` of object keys;
    ``None`` when a key on the way is missing or holds no object. Raises ``ValueError`` for
    text that is not plain JSON."""
    span = (_skip(text, 0), len(text))
    for key in keys:
        found = _member(text, span[0], key)
        if found is None:
            return None
        span = found
    return span


@dataclass(frozen=True, slots=True)
class Member:
    """One member of an object in a JSON text: its key and where its key and value sit."""

    key: str
    at: int
    """Offset of the key's opening quote (for a message's line)."""
    start: int
    """Where the value begins."""
    end: int
    """Where the value ends."""


def _skip_value(text: str, key: str, pos: int) -> int:
    """The end of the value at ``pos``: decoded by the C decoder and dropped at once."""
    end: int = _DECODER.raw_decode(text, pos)[1]
    return end


def members(
    text: str, pos: int, skip: Callable[[str, str, int], int] = _skip_value
) -> tuple[list[Member], int]:
    """The members of the object that starts at ``pos``, in text order (repeated keys each
    listed), and where the object ends. Every value is checked as strict JSON by ``skip``
    (``skip(text, key, start)`` gives the value's end; by default the C decoder's, which
    builds the value and drops it, so memory holds one value at a time, never the whole
    document). Raises ``ValueError`` (or ``RecursionError``, from the decoder) for text that
    is not plain JSON; the caller parses such text the usual way for its exact message."""
    pos = _expect(text, pos, "{")
    found: list[Member] = []
    if text.startswith("}", pos):
        return found, pos + 1
    while True:
        if not text.startswith('"', pos):
            raise ValueError(f"expected a key at offset {pos}")
        at = pos
        name, pos = _DECODER.raw_decode(text, pos)
        pos = _expect(text, _skip(text, pos), ":")
        end = skip(text, name, pos)
        found.append(Member(name, at, pos, end))
        pos = _skip(text, end)
        if text.startswith("}", pos):
            return found, pos + 1
        pos = _expect(text, pos, ",")
