"""Where one value sits in a plain JSON text, found without building a tree of the whole file.

``value_span(text, ("projects", "/x"))`` walks down a path of object keys and gives the span of
the value found there. Values off the path are skipped by the standard library's C decoder, so a
file of megabytes (Claude Code's ``~/.claude.json``) is crossed in milliseconds, where the JSONC
parser (``jsonc.py``, which records a span for every value) would take a good part of a second.
"""

from __future__ import annotations

import json

__all__ = ["value_span"]

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
