"""JSON with comments (JSONC): a parser that remembers where every value sits in the text.

VS Code's ``mcp.json`` and Gemini CLI's ``settings.json`` allow ``//`` and ``/* */`` comments
(VS Code also trailing commas). ``parse_jsonc`` gives the plain value and, for every value, its
span in the text; ``jsonc_edit.splice`` uses the spans to change only what an edit changes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from agentty_tui.errors import ConfigError

__all__ = [
    "MAX_DEPTH",
    "JsoncEntry",
    "JsoncNode",
    "check_nesting",
    "duplicate_key_warnings",
    "parse_jsonc",
]

MAX_DEPTH = 100
"""How deeply arrays and objects may nest in a config file. Real configs nest a few levels (an
``inputSchema`` of a native tool a dozen); the limit keeps every recursive walk of a document
(validation, copies, edits) far from Python's recursion limit."""

_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_LITERALS = {"true": True, "false": False, "null": None}
# What matters for nesting: strings (skipped whole, brackets in them do not count) and brackets.
_NESTING_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]')


@dataclass(slots=True)
class JsoncEntry:
    """An object member (with ``key``) or an array item (``key`` is ``None``)."""

    key: str | None
    start: int
    """Where the entry's text begins: its key, or the item's value."""
    value: JsoncNode
    comma: int | None = None
    """Offset of the comma after the entry, if there is one."""


@dataclass(slots=True)
class JsoncNode:
    """One value and its span ``text[start:end]``; containers list their entries."""

    start: int
    end: int
    value: Any
    entries: list[JsoncEntry] = field(default_factory=list)
    container: bool = False
    duplicates: list[str] = field(default_factory=list)
    """Keys repeated anywhere below (root only)."""
    repeated_at: list[tuple[str, int]] = field(default_factory=list)
    """Each repeated key with the offset of its later (used) occurrence (root only)."""


class _Parser:
    def __init__(self, text: str, path: str | None) -> None:
        self.text = text
        self.path = path
        self.pos = 0
        self.depth = 0
        self.duplicates: list[str] = []
        self.repeated_at: list[tuple[str, int]] = []

    def error(self, message: str, pos: int | None = None) -> ConfigError:
        at = self.pos if pos is None else pos
        line = self.text.count("\n", 0, at) + 1
        column = at - self.text.rfind("\n", 0, at)
        return ConfigError(f"invalid JSON: {message}", path=self.path, line=line, column=column)

    def skip(self) -> None:
        """Skip whitespace and comments."""
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            if char in " \t\n\r":
                self.pos += 1
            elif text.startswith("//", self.pos):
                end = text.find("\n", self.pos)
                self.pos = len(text) if end < 0 else end
            elif text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                if end < 0:
                    raise self.error("unterminated /* comment")
                self.pos = end + 2
            else:
                return

    def value(self) -> JsoncNode:
        text = self.text
        if self.pos >= len(text):
            raise self.error("unexpected end of text, expecting a value")
        char = text[self.pos]
        if char == "{":
            return self.container("}")
        if char == "[":
            return self.container("]")
        start = self.pos
        if char == '"':
            decoded = self.string()
            return JsoncNode(start, self.pos, decoded)
        match = _NUMBER.match(text, start)
        if match:
            self.pos = match.end()
            return JsoncNode(start, self.pos, json.loads(match.group()))
        for word, literal in _LITERALS.items():
            if text.startswith(word, start):
                self.pos += len(word)
                return JsoncNode(start, self.pos, literal)
        raise self.error(f"unexpected character {char!r}")

    def string(self) -> str:
        match = _STRING.match(self.text, self.pos)
        if not match:
            raise self.error("unterminated string")
        try:
            decoded: str = json.loads(match.group())
        except json.JSONDecodeError as error:
            raise self.error(error.msg, self.pos + error.pos) from None
        self.pos = match.end()
        return decoded

    def container(self, close: str) -> JsoncNode:
        if self.depth >= MAX_DEPTH:
            raise self.error(f"nested deeper than {MAX_DEPTH} levels")
        self.depth += 1
        node = JsoncNode(self.pos, self.pos, {} if close == "}" else [], container=True)
        self.pos += 1
        self.skip()
        while self.pos < len(self.text) and self.text[self.pos] != close:
            start = self.pos
            key: str | None = None
            if close == "}":
                if self.text[self.pos] != '"':
                    raise self.error("expecting a property name in double quotes")
                key = self.string()
                self.skip()
                if not self.text.startswith(":", self.pos):
                    raise self.error("expecting ':' after the property name")
                self.pos += 1
                self.skip()
            entry = JsoncEntry(key, start, self.value())
            node.entries.append(entry)
            if key is None:
                node.value.append(entry.value.value)
            else:
                if key in node.value:
                    self.duplicates.append(key)
                    self.repeated_at.append((key, start))
                node.value[key] = entry.value.value
            self.skip()
            if self.text.startswith(",", self.pos):
                entry.comma = self.pos
                self.pos += 1
                self.skip()
            elif not self.text.startswith(close, self.pos):
                raise self.error(f"expecting ',' or '{close}'")
        if self.pos >= len(self.text):
            raise self.error(f"unexpected end of text, expecting '{close}'")
        self.pos += 1
        node.end = self.pos
        self.depth -= 1
        return node


_NOT_A_BRACKET = re.compile(r"[^\[\]{}]+")
_INNERMOST_PAIR = re.compile(r"\[\]|\{\}")


def _surely_shallow(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether JSON ``text`` certainly nests no deeper than ``MAX_DEPTH``, found with string
    methods and two simple patterns: about four times quicker than the token scan below, which
    matches every string one by one (a heavy user's ``~/.claude.json`` holds millions).

    With the escaped backslashes and quotes of strings taken out, every quote left starts or
    ends a string, so every other piece of a split on quotes lies outside the strings; their
    brackets alone are the document's nesting. Each pass removes the innermost pairs: a
    document of depth ``d`` is empty after exactly ``d`` passes. For text that is not valid
    JSON the answer may be wrong; ``json.loads`` refuses such text, and its own depth guard
    (``RecursionError``) is caught by the reader.
    """
    plain = text.replace("\\\\", "").replace('\\"', "")
    brackets = _NOT_A_BRACKET.sub("", "".join(plain.split('"')[::2]))
    for _ in range(limit):
        if not brackets:
            return True
        brackets = _INNERMOST_PAIR.sub("", brackets)
    return not brackets


def check_nesting(
    text: str, path: str | None = None, *, start: int = 0, end: int | None = None, outer: int = 0
) -> None:
    """Raise ``ConfigError`` (with line and column) if JSON ``text`` nests deeper than
    ``MAX_DEPTH``: a linear scan, for readers that would otherwise recurse without a bound.

    ``start``/``end``: check only the value ``text[start:end]``, which sits ``outer`` levels
    deep in ``text`` (a part of ``~/.claude.json``); the error still names the line and column
    in the whole text."""
    part = text if start == 0 and end is None else text[start:end]
    limit = MAX_DEPTH - outer
    if part.count("[") + part.count("{") <= limit:
        return  # cannot be that deep: the common case costs two counts
    if _surely_shallow(part, limit):
        return  # a large file (thousands of objects), nested a few levels as real ones are
    depth = outer
    for match in _NESTING_TOKEN.finditer(part):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise _Parser(text, path).error(
                    f"nested deeper than {MAX_DEPTH} levels", start + match.start()
                )
        elif token in "]}":
            depth -= 1


def parse_jsonc(text: str, path: str | None = None) -> JsoncNode:
    """Parse JSONC ``text`` into a node tree; ``ConfigError`` with line and column on a syntax
    error. The root node's ``value`` is the plain Python value."""
    parser = _Parser(text, path)
    parser.skip()
    root = parser.value()
    parser.skip()
    if parser.pos != len(text):
        raise parser.error("unexpected text after the end of the document")
    root.duplicates = parser.duplicates
    root.repeated_at = parser.repeated_at
    return root


_MAX_DUPLICATE_WARNINGS = 10
"""Warnings about repeated keys beyond this many are summed up in one more line."""


def duplicate_key_warnings(
    text: str, repeated_at: list[tuple[str, int]], path: str | None
) -> tuple[str, ...]:
    """One line per repeated key (``parse_jsonc``'s ``repeated_at``), naming the file and the
    line of the occurrence that counts, in text order; at most ten, then how many more."""
    shown = sorted(repeated_at, key=lambda item: item[1])[:_MAX_DUPLICATE_WARNINGS]
    warnings: list[str] = []
    line, counted = 1, 0
    for key, offset in shown:  # sorted: newlines are counted once over the text
        line += text.count("\n", counted, offset)
        counted = offset
        where = f"{path}:{line}" if path else f"line {line}"
        warnings.append(f"{where}: duplicate key {key!r} (the last one is used)")
    more = len(repeated_at) - len(shown)
    if more:
        where = f"{path}: " if path else ""
        warnings.append(f"{where}and {more} more duplicate key{'s' * (more > 1)}")
    return tuple(warnings)
