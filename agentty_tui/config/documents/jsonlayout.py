"""Our JSON layout printer: a rewrite laid out like the user's own file.

``JsonStyle.of(text)`` reads how a JSON file is laid out (indent unit, arrays of scalars inline
or one item a line, ASCII escapes, minified, final newline); ``dump_json`` writes a value in that
style. The JSON format writes whole files with it, and the JSONC splicer renders each inserted
or replaced value with it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

__all__ = ["LINE_WIDTH", "JsonStyle", "detect_indent", "dump_json"]


_INDENTED_LINE = re.compile(r"\n([ \t]+)\S")
_SCALAR = r'(?:"(?:[^"\\\n]|\\.)*"|-?\d[\d.eE+-]*|true|false|null)'
# A non-empty array of scalars on one line, e.g. `"args": ["--tz", "UTC"]`.
_INLINE_ARRAY = re.compile(r"\[[ \t]*" + _SCALAR + r"(?:[ \t]*,[ \t]*" + _SCALAR + r")*[ \t]*\]")
# An array whose first element is a scalar on its own line.
_EXPANDED_ARRAY = re.compile(r"\[[ \t]*\n\s*" + _SCALAR + r"[ \t]*[,\n]")


def detect_indent(text: str) -> str | None:
    """The indentation unit of a JSON text: its first indented line's leading whitespace.

    ``None`` means the text is a single line (compact JSON, kept compact). A text with no
    indented line at all gets two spaces.
    """
    match = _INDENTED_LINE.search(text)
    if match:
        unit = match.group(1)
        # Mixed tab-then-spaces lines are rare; a tab anywhere means the file is tab-indented.
        return "\t" if "\t" in unit else unit
    stripped = text.strip()
    if stripped and "\n" not in stripped:
        return None
    return "  "


@dataclass(frozen=True, slots=True)
class JsonStyle:
    """How a JSON config file is laid out, so a rewrite looks like the user's own file."""

    indent: str | None = "  "
    """One level of indentation; ``None`` for a single-line file."""
    inline_arrays: bool = True
    """Arrays of scalars on one line (``["--tz", "UTC"]``), as config files are usually written."""
    ascii_only: bool = False
    """Spell non-ASCII characters as ``\\u`` escapes."""
    minified: bool = False
    """No spaces after ``,`` and ``:`` (single-line files only)."""
    trailing_newline: bool = True
    """End the file with a newline."""

    @classmethod
    def of(cls, text: str | None) -> JsonStyle:
        """Detect the style of ``text``; ``None`` or blank text gets the default style."""
        if text is None or not text.strip():
            return cls()
        indent = detect_indent(text)
        return cls(
            indent=indent,
            # Only a file that lays out scalar arrays one element per line (and never inline)
            # gets them expanded.
            inline_arrays=bool(_INLINE_ARRAY.search(text)) or not _EXPANDED_ARRAY.search(text),
            # A file that spelled non-ASCII characters as \u escapes keeps doing so.
            ascii_only=text.isascii() and "\\u" in text,
            minified=indent is None and '": ' not in text,
            trailing_newline=text.endswith("\n"),
        )


def dump_json(value: Any, style: JsonStyle) -> str:
    """Render a JSON value in ``style``."""
    if style.indent is None:
        separators = (",", ":") if style.minified else (", ", ": ")
        text = json.dumps(value, ensure_ascii=style.ascii_only, separators=separators)
    else:
        text = _pretty(value, style, style.indent, 0)
    return text + "\n" if style.trailing_newline else text


LINE_WIDTH = 100
"""An array of scalars longer than this, with its key and indentation, gets one item a line."""


def _pretty(value: Any, style: JsonStyle, unit: str, depth: int, column: int = 0) -> str:
    """Indented JSON like ``json.dumps(indent=...)``, except for inline scalar arrays.

    ``column`` is where the value starts on its line, so an inline array that would run past
    ``LINE_WIDTH`` is laid out one item a line instead (a 150-tool exclude list stays readable).
    """
    inner = unit * (depth + 1)
    if isinstance(value, dict) and value:
        members = []
        for key, item in value.items():
            prefix = f"{inner}{json.dumps(str(key), ensure_ascii=style.ascii_only)}: "
            members.append(prefix + _pretty(item, style, unit, depth + 1, len(prefix)))
        return "{\n" + ",\n".join(members) + "\n" + unit * depth + "}"
    if isinstance(value, list) and value:
        if style.inline_arrays and not any(isinstance(item, dict | list) for item in value):
            inline = (
                "["
                + ", ".join(json.dumps(item, ensure_ascii=style.ascii_only) for item in value)
                + "]"
            )
            if column + len(inline) <= LINE_WIDTH:
                return inline
        items = [inner + _pretty(item, style, unit, depth + 1, len(inner)) for item in value]
        return "[\n" + ",\n".join(items) + "\n" + unit * depth + "]"
    return json.dumps(value, ensure_ascii=style.ascii_only)
