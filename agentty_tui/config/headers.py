"""The rule for HTTP header names and values, applied when a config is read and after expansion.

A header the HTTP client would refuse (a token pasted with its trailing newline) used to fail the
server only at connect time, with the whole value quoted in the error. Checked here, it fails the
entry with a message that names the header and says what is wrong, never what the value is.
"""

from __future__ import annotations

import re

__all__ = ["header_problem"]

# RFC 9110 token: the characters a field name may hold.
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")


def _value_problem(value: str) -> str | None:
    for position, char in enumerate(value, start=1):
        if char in "\r\n":
            if not value[position:].strip("\r\n"):
                return "its value ends with a line break: was it pasted with a newline?"
            return f"its value holds a line break (CR or LF) at character {position}"
        if char == "\x00":
            return f"its value holds a NUL character at character {position}"
        if char != "\t" and (ord(char) < 0x20 or 0x7F <= ord(char) <= 0x9F):
            code = f"U+{ord(char):04X}"
            return f"its value holds the control character {code} at character {position}"
        if ord(char) > 0x7F:
            # The HTTP client sends header values as ASCII bytes and would refuse this one.
            return f"its value holds a non-ASCII character at character {position}"
    if value != value.strip(" \t"):
        return "its value starts or ends with whitespace"
    return None


def header_problem(name: str, value: str) -> str | None:
    """What is wrong with the header ``name: value``, or ``None`` when it can be sent.

    The text never quotes the value (header values are secrets as often as not); the caller
    names the server and the header.
    """
    if not _TOKEN.fullmatch(name):
        return (
            "is not a valid header name (letters, digits and !#$%&'*+-.^_`|~ only, "
            "no spaces or colons)"
        )
    problem = _value_problem(value)
    return None if problem is None else problem + " (the value is not shown)"
