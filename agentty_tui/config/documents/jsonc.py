"""JSON with comments (JSONC): parsed remembering where every value sits, edited by splicing.

VS Code's ``mcp.json`` and Gemini CLI's ``settings.json`` allow ``//`` and ``/* */`` comments
(VS Code also trailing commas). ``parse_jsonc`` gives the plain value and, for every value, its
span in the text; ``splice`` uses the spans to change only what an edit changes.

Editing by splicing rewrites only the text of what changed: ``splice(text, new_value)`` compares the
value the text holds with the wanted one and changes the text one step at a time (remove an entry,
insert an entry, replace a value), re-parsing after each step. Bytes outside the changed entries are
never touched.

- A removed entry takes its own lines with it, with the comment lines directly above it (no
  blank line between) and a comment after it on its last line; every other comment stays.
- An inserted entry is laid out like its siblings (indentation, one per line or inline) and after
  the last of them; commas follow the container's habit (trailing comma or not).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from agentty_tui.config.documents.jsonlayout import JsonStyle, dump_json
from agentty_tui.errors import ConfigError

__all__ = [
    "MAX_DEPTH",
    "JsoncEntry",
    "JsoncNode",
    "check_nesting",
    "duplicate_key_warnings",
    "parse_jsonc",
    "splice",
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


_Edit = tuple[int, int, str]


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _indent_at(text: str, pos: int) -> str:
    start = _line_start(text, pos)
    line = text[start:pos]
    return line[: len(line) - len(line.lstrip(" \t"))]


def _rest_of_line(text: str, pos: int) -> int:
    """Past spaces and a trailing comment after ``pos``: the offset of the line's ``\\n`` (or the
    end of text), or -1 when something else follows on the line."""
    while pos < len(text) and text[pos] in " \t":
        pos += 1
    if text.startswith("//", pos):
        end = text.find("\n", pos)
        return len(text) if end < 0 else end
    if text.startswith("/*", pos):
        end = text.find("*/", pos)
        if end >= 0 and "\n" not in text[pos:end]:
            return _rest_of_line(text, end + 2)
    if pos >= len(text) or text[pos] in "\r\n":
        return pos
    return -1


def _is_comment_line(line: str) -> bool:
    line = line.strip()
    return line.startswith("//") or (line.startswith("/*") and line.endswith("*/"))


@dataclass(frozen=True, slots=True)
class _Layout:
    style: JsonStyle

    def render(self, value: Any, indent: str) -> str:
        style = JsonStyle(
            indent=self.style.indent,
            inline_arrays=self.style.inline_arrays,
            ascii_only=self.style.ascii_only,
            minified=self.style.minified,
            trailing_newline=False,
        )
        return dump_json(value, style).replace("\n", "\n" + indent)

    def entry(self, key: str | None, value: Any, indent: str) -> str:
        prefix = "" if key is None else json.dumps(key, ensure_ascii=self.style.ascii_only) + ": "
        return prefix + self.render(value, indent)


def _remove(text: str, node: JsoncNode, index: int) -> list[_Edit]:
    entry = node.entries[index]
    previous = node.entries[index - 1] if index else None
    after = entry.comma + 1 if entry.comma is not None else entry.value.end
    line_start = _line_start(text, entry.start)
    line_end = _rest_of_line(text, after)
    if text[line_start : entry.start].strip() == "" and line_end >= 0 and line_end < node.end:
        start = line_start
        while start > 0:
            above = _line_start(text, start - 1)
            if above <= node.start or not _is_comment_line(text[above : start - 1]):
                break
            start = above
        edits: list[_Edit] = [(start, min(line_end + 1, len(text)), "")]
        if entry.comma is None and previous is not None and previous.comma is not None:
            edits.append((previous.comma, previous.comma + 1, ""))
    elif entry.comma is not None:
        end = entry.comma + 1
        while end < len(text) and text[end] in " \t":
            end += 1
        edits = [(entry.start, end, "")]
    elif previous is not None and previous.comma is not None:
        edits = [(previous.comma, entry.value.end, "")]
    else:
        edits = [(entry.start, entry.value.end, "")]
    if len(node.entries) == 1:
        # The last entry gone: an empty container with nothing but whitespace left is `{}`.
        edited = _apply(text, edits)
        end = node.end + len(edited) - len(text)
        if edited[node.start + 1 : end - 1].strip() == "":
            return [(node.start, node.end, text[node.start] + text[node.end - 1])]
    return edits


def _insert(
    text: str, node: JsoncNode, key: str | None, value: Any, layout: _Layout
) -> list[_Edit]:
    if node.entries:
        last = node.entries[-1]
        after = last.comma + 1 if last.comma is not None else last.value.end
        line_start = _line_start(text, last.start)
        line_end = _rest_of_line(text, after)
        if (
            layout.style.indent is not None
            and text[line_start : last.start].strip() == ""
            and 0 <= line_end < node.end - 1
        ):
            indent = text[line_start : last.start]
            new = "\n" + indent + layout.entry(key, value, indent)
            if last.comma is not None:
                return [(line_end, line_end, new + ",")]
            return [(last.value.end, last.value.end, ","), (line_end, line_end, new)]
        one_line = _Layout(JsonStyle(indent=None, ascii_only=layout.style.ascii_only))
        new = one_line.entry(key, value, "")
        if last.comma is not None:
            return [(last.comma + 1, last.comma + 1, " " + new + ",")]
        return [(last.value.end, last.value.end, ", " + new)]
    inside = text[node.start + 1 : node.end - 1]
    outer = _indent_at(text, node.start)
    scalar_item = key is None and not isinstance(value, dict | list)
    if layout.style.indent is None or (scalar_item and layout.style.inline_arrays):
        one_line = _Layout(JsonStyle(indent=None, ascii_only=layout.style.ascii_only))
        return [(node.start + 1, node.start + 1, one_line.entry(key, value, ""))]
    inner = outer + layout.style.indent
    new = layout.entry(key, value, inner)
    if inside.strip() == "":
        return [(node.start + 1, node.end - 1, "\n" + inner + new + "\n" + outer)]
    close_line = _line_start(text, node.end - 1)
    if text[close_line : node.end - 1].strip() == "":
        return [(close_line, close_line, inner + new + "\n")]
    return [(node.end - 1, node.end - 1, " " + new + " ")]


def _change(
    text: str, node: JsoncNode, new: Any, indent: str, layout: _Layout
) -> list[_Edit] | None:
    """The first step that brings ``node``'s value closer to ``new``; ``None`` when equal."""
    old = node.value
    if old == new and type(old) is type(new):
        return None
    if isinstance(old, dict) and isinstance(new, dict):
        for index, entry in enumerate(node.entries):
            if entry.key not in new:
                return _remove(text, node, index)
        for entry in reversed(node.entries):  # the last of duplicate keys is the one that counts
            assert entry.key is not None
            if old[entry.key] != new[entry.key]:
                inner = _indent_at(text, entry.start)
                return _change(text, entry.value, new[entry.key], inner, layout)
        for key, item in new.items():
            if key not in old:
                return _insert(text, node, key, item, layout)
    if isinstance(old, list) and isinstance(new, list):
        if len(new) == len(old) - 1:
            for index in range(len(old)):
                if old[:index] + old[index + 1 :] == new:
                    return _remove(text, node, index)
        if len(new) > len(old) and new[: len(old)] == old:
            return _insert(text, node, None, new[len(old)], layout)
        if len(new) == len(old):
            differing = [i for i in range(len(old)) if old[i] != new[i]]
            if len(differing) == 1 and node.entries[differing[0]].value.container:
                entry = node.entries[differing[0]]
                return _change(
                    text, entry.value, new[differing[0]], _indent_at(text, entry.start), layout
                )
    return [(node.start, node.end, layout.render(new, indent))]


def _apply(text: str, edits: list[_Edit]) -> str:
    """Apply non-overlapping edits; of two at one offset, the first listed comes first."""
    ordered = sorted(enumerate(edits), key=lambda item: (item[1][0], item[0]), reverse=True)
    for _, (start, end, replacement) in ordered:
        text = text[:start] + replacement + text[end:]
    return text


def splice(
    text: str,
    new: Any,
    *,
    path: str | None = None,
    max_steps: int = 10_000,
    style: JsonStyle | None = None,
) -> str:
    """Rewrite JSONC ``text`` so that it holds ``new``, changing only the text of what differs.

    Blank text gets a fresh document. Raises ``ConfigError`` if ``text`` does not parse.
    ``style`` lays out what is inserted; by default it is read from ``text`` (a caller splicing
    a part cut out of a larger file passes the whole file's).
    """
    if not text.strip():
        return dump_json(new, JsonStyle.of(None))
    layout = _Layout(style if style is not None else JsonStyle.of(text))
    for _ in range(max_steps):
        root = parse_jsonc(text, path)
        edits = _change(text, root, new, _indent_at(text, root.start), layout)
        if edits is None:
            return text
        text = _apply(text, edits)
    raise ConfigError("the edit did not settle (an internal error); nothing was written", path=path)
