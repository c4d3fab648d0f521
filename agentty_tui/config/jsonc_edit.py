"""Edit JSON with comments by splicing: only the text of what changed is rewritten.

``splice(text, new_value)`` compares the value the text holds with the wanted one and changes
the text one step at a time (remove an entry, insert an entry, replace a value), re-parsing after
each step. Bytes outside the changed entries are never touched.

- A removed entry takes its own lines with it, with the comment lines directly above it (no
  blank line between) and a comment after it on its last line; every other comment stays.
- An inserted entry is laid out like its siblings (indentation, one per line or inline) and after
  the last of them; commas follow the container's habit (trailing comma or not).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from agentty_tui.config.jsonc import JsoncNode, parse_jsonc
from agentty_tui.config.jsonlayout import JsonStyle, dump_json
from agentty_tui.errors import ConfigError

__all__ = ["splice"]

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
