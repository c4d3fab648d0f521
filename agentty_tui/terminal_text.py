"""Text from a server or a file, made safe to show on a terminal.

A terminal obeys the control characters in what it is given: ``ESC ] 52`` writes the
clipboard, ``ESC ] 0`` the window title, ``ESC [ 2J`` clears the screen, ``ESC ] 8`` makes a
link, a carriage return or a newline forges a line, and bidi overrides and zero-width
characters make a name read as another one. Every place where text a server or a file
supplied meets the terminal passes it through ``safe_line`` (a field shown on one line) or
``safe_block`` (text shown over several lines); the model keeps the text as it was sent.

What is shown instead: a C0 control as its Unicode control picture (``ESC`` as ``␛``, so
``␛]52;…`` reads as what it is), DEL as ``␡``, a C1 control as ``\\x9b``, and Unicode format
characters (bidi controls, zero-width characters, the BOM, tag characters), line and paragraph
separators and lone surrogates as ``<U+202E>``. ``safe_line`` shows a newline as ``⏎``;
``safe_block`` keeps newlines and tabs (and turns CR LF into a newline). ``safe_json`` writes
JSON whose strings spell such characters as ``\\uXXXX`` escapes (it parses back the same).

Pure and cheap: text with nothing to replace is returned as it is, after one regex scan.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = [
    "NEWLINE_MARK",
    "clip",
    "safe_block",
    "safe_json",
    "safe_line",
    "safe_message",
    "visible",
]

NEWLINE_MARK = "⏎"
"""What ``safe_line`` shows for a newline (or CR LF)."""

# Unicode format characters (category Cf, as of Unicode 15.1), line and paragraph separators
# (Zl, Zp) and surrogates (Cs, which cannot even be encoded for output). Listed rather than
# looked up with ``unicodedata`` so that the scan is one regex; tests check the list against
# ``unicodedata`` over every code point.
_INVISIBLE = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
    "\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f\ud800-\udfff"
)
_CONTROLS_BUT_LAYOUT = "\x00-\x08\x0b-\x1f\x7f-\x9f"
"""C0 controls except tab and newline, DEL, and C1 controls."""

_LINE_UNSAFE = re.compile(f"\r\n|[\t\n{_CONTROLS_BUT_LAYOUT}{_INVISIBLE}]")
_BLOCK_UNSAFE = re.compile(f"\r\n|[{_CONTROLS_BUT_LAYOUT}{_INVISIBLE}]")


def visible(char: str) -> str:
    """The visible stand-in for one control or invisible character."""
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # the Unicode control pictures: ␀ … ␛ … ␟
    if code == 0x7F:
        return "␡"
    if code < 0xA0:
        return f"\\x{code:02x}"
    return f"<U+{code:04X}>"


def _line_replacement(match: re.Match[str]) -> str:
    found = match.group()
    return NEWLINE_MARK if found in ("\n", "\r\n") else visible(found)


def _block_replacement(match: re.Match[str]) -> str:
    found = match.group()
    return "\n" if found == "\r\n" else visible(found)


def safe_line(text: str) -> str:
    """``text`` for a field shown on one line: every control visible, a newline as ``⏎``."""
    if _LINE_UNSAFE.search(text) is None:
        return text
    return _LINE_UNSAFE.sub(_line_replacement, text)


def safe_block(text: str) -> str:
    """``text`` for several lines: newlines and tabs kept, every other control visible."""
    if _BLOCK_UNSAFE.search(text) is None:
        return text
    return _BLOCK_UNSAFE.sub(_block_replacement, text)


def clip(text: str, limit: int) -> str:
    """``text`` cut after ``limit`` characters, with a note saying how much was left out.

    A server may send a 50 MB description: laid out whole, it would freeze a screen for tens of
    seconds, and nobody reads that much in a terminal anyway.
    """
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters not shown)"


def safe_message(text: str) -> str:
    """An error or a warning for a terminal: one line, whatever the text held.

    Blank lines are left out and the others joined with ``⏎``: a line break in a message
    (a server's stderr that an error quotes) cannot pass for another message of ours. Error
    texts that carry a server's stderr are shortened before this, to say where its log is
    (``bridge.logs.pointing_to_log``).
    """
    kept = [line.strip() for line in text.split("\n") if line.strip()]
    return safe_line(f" {NEWLINE_MARK} ".join(kept))


_JSON_UNSAFE = re.compile(f"[{_CONTROLS_BUT_LAYOUT}{_INVISIBLE}]")


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code > 0xFFFF:  # JSON spells a code point beyond the BMP as a surrogate pair
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def safe_json(value: Any, *, indent: int | None = 2) -> str:
    """``value`` as JSON for a person to read (and edit): letters of any script as they are,
    every control and invisible character as a ``\\uXXXX`` escape, so the text is safe on a
    terminal and still parses back to ``value``."""
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    return _JSON_UNSAFE.sub(_json_escape, text)
