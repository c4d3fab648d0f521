"""The seam between the store and one config file format ("dialect").

The store does the file work (locking, atomic replace, re-reading); a dialect only turns text into
a document plus a validated config, applies an edit to a document, and turns a document back into
text that looks like the original. Claude-style ``mcpServers`` JSON (``mcpjson.py``), Gemini's
``settings.json`` (``gemini.py``), VS Code's JSON with comments (``vscode.py``) and Codex's TOML
(``codex.py``) implement the same protocol, and ``detect.py`` picks one for a file.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Protocol

from agentty_tui.config.edits import ConfigEdit
from agentty_tui.model import PluginConfig

__all__ = ["Dialect", "JsonStyle", "detect_indent", "dump_json"]


class Dialect(Protocol):
    """How one config format is parsed, edited and written back.

    A document is whatever the dialect needs to write the file back faithfully (a dict for plain
    JSON, a format-preserving tree for formats with comments). The store never looks inside it.
    Texts are passed with ``\\n`` line endings; the store restores the file's own.
    """

    timeout_fields: tuple[str, ...]
    """Which of ``ServerConfig``'s timeouts (``connect_timeout``, ``request_timeout``) the
    format can hold, so an import can say what it could not carry over."""

    def parse(self, text: str, path: str | None) -> tuple[Any, PluginConfig]:
        """Parse and validate ``text``; whitespace-only text is an empty config.

        Raises ``ConfigError`` naming ``path`` and the line and column or server and field.
        """
        ...

    def apply(self, document: Any, edit: ConfigEdit, path: str | None) -> Any:
        """Return a new document with ``edit`` applied; the given one is not changed."""
        ...

    def dump(self, document: Any, like: str | None) -> str:
        """Render ``document`` formatted like the text ``like`` (``None``: a new file)."""
        ...


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
