"""Cutting JSON nested too deep for the parser, without parsing it (and without recursion).

A server may send a message nested deeper than pydantic's JSON parser goes (about 200
levels); rather than lose the whole message, its too-deep parts are replaced by a marker
string that the tool listing knows to drop (``http.DeepCutStream``).
"""

from __future__ import annotations

import json
import re

__all__ = ["MAX_DEPTH", "TOO_DEEP", "cut_deep_json"]

MAX_DEPTH = 128
"""Nesting below this depth is cut from a message too deep for the JSON parser (about 200)."""

TOO_DEEP = "\u0000agentty: nested too deep"
"""What replaces a cut part of a message (a JSON string no server has a reason to send)."""

_JSON_TOKEN = re.compile(rb'["\\\[\]{}]')


def cut_deep_json(text: bytes, depth: int) -> bytes:
    """``text`` (JSON) with every array or object nested deeper than ``depth`` replaced by
    the string ``TOO_DEEP``; linear in the text and free of recursion."""
    out: list[bytes] = []
    level = 0
    in_string = False
    copied = 0
    cut_from: int | None = None
    pos = 0
    while (match := _JSON_TOKEN.search(text, pos)) is not None:
        char = match.group()
        pos = match.end()
        if in_string:
            if char == b"\\":
                pos += 1  # the escaped character, whatever it is
            elif char == b'"':
                in_string = False
        elif char == b'"':
            in_string = True
        elif char in (b"[", b"{"):
            level += 1
            if level == depth + 1 and cut_from is None:
                cut_from = match.start()
        elif char in (b"]", b"}"):
            if level == depth + 1 and cut_from is not None:
                out += [text[copied:cut_from], json.dumps(TOO_DEEP).encode()]
                copied, cut_from = pos, None
            level -= 1
    out.append(text[copied:])
    return b"".join(out)
