"""The document formats a config file can be in, behind one small protocol (``Format``).

A format turns text into a document (whatever it needs to write the file back faithfully) and a
plain value, opens a document for editing as a mutable tree, offers the few tree operations the
edit engine needs (put a key, put a list, remove or add a server), and turns the edited tree
back into a document and text. Three formats exist:

- ``JsonFormat``: plain JSON, written back with our layout printer (``jsonlayout``) when the file
  is laid out that way, else spliced (``jsonc.splice``) so that every other byte stays;
- ``JsoncFormat``: JSON with comments and trailing commas (``jsonc``), always spliced;
- ``TomlFormat`` (``documents.toml``): TOML edited node by node with tomlkit.

A file that repeats a key is refused for editing in every format (``refuse_duplicates``):
writing it back would keep only one of them.
"""

from __future__ import annotations

import copy
import json
import os
import re
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol

from agentty_tui.config.documents.jsonc import (
    MAX_DEPTH,
    check_nesting,
    duplicate_key_warnings,
    parse_jsonc,
    splice,
)
from agentty_tui.config.documents.jsonlayout import JsonStyle, dump_json
from agentty_tui.config.documents.jsonspan import Member, members
from agentty_tui.config.files import CLAUDE_STATE_NAME
from agentty_tui.errors import ConfigError

__all__ = [
    "READ_IN_PARTS",
    "Format",
    "JsonFormat",
    "JsoncDocument",
    "JsoncFormat",
    "LazyObject",
    "Loaded",
    "parses_shared",
    "parses_whole",
    "refuse_duplicates",
    "shared_text",
    "whole_parses",
]


@dataclass(frozen=True, slots=True)
class Loaded:
    """What a format read from a text."""

    document: Any
    """The format's own document, handed back for editing and writing."""
    value: Any
    """The plain value the text holds (dicts, lists, scalars)."""
    warnings: tuple[str, ...] = ()
    """Repeated keys, each named with its line (the last of them counts for reading)."""


class Format(Protocol):
    """How one document format is read, edited as a tree, and written back."""

    map_message: str
    """What an edit says of a server map that is not a mapping."""
    entry_message: str
    """What an edit says of a server entry that is not a mapping."""

    def load(self, text: str, path: str | None) -> Loaded:
        """Parse ``text`` (blank text is an empty document); ``ConfigError`` names the line."""
        ...

    def duplicates(self, document: Any) -> tuple[str, ...]:
        """The keys the document's text repeats."""
        ...

    def begin(self, document: Any, servers_key: str) -> Any:
        """A mutable tree of ``document`` to edit; ``document`` itself never changes."""
        ...

    def writable(self, servers: Any, name: str) -> Any:
        """Server ``name``'s entry in the tree's server map, safe to change."""
        ...

    def plain(self, node: Any) -> Any:
        """A node of the tree as a plain value, for reading."""
        ...

    def put(self, mapping: Any, key: str, value: Any) -> None:
        """Set ``key`` (an existing key keeps its place; a new one follows the last key)."""
        ...

    def put_list(self, mapping: Any, key: str, items: list[str] | None) -> None:
        """Make ``mapping[key]`` hold ``items``; ``None`` removes the key."""
        ...

    def remove(self, servers: Any, name: str) -> None:
        """Remove server ``name`` (and what belongs to it alone, such as its comments)."""
        ...

    def add(self, root: Any, servers_key: str, name: str, entry: Any) -> None:
        """Add server ``name`` last, making the server map if there is none."""
        ...

    def end(self, document: Any, root: Any, path: str | None) -> Any:
        """The document after the edits made to ``root`` (``document`` when nothing changed)."""
        ...

    def dump(self, document: Any, like: str | None) -> str:
        """The document's text, laid out like ``like`` (``None``: a new file)."""
        ...


def refuse_duplicates(duplicates: tuple[str, ...], path: str | None) -> None:
    """Refuse to edit a file that repeats keys: writing it back would lose all but one."""
    if duplicates:
        names = ", ".join(repr(key) for key in dict.fromkeys(duplicates))
        raise ConfigError(
            f"the file repeats the key(s) {names}; remove the duplicates before editing",
            path=path,
        )


_SHARED: ContextVar[dict[tuple[str | None, int, int, bool], Loaded] | None] = ContextVar(
    "agentty_shared_parses", default=None
)


_TEXTS: ContextVar[dict[tuple[object, ...], Any] | None] = ContextVar(
    "agentty_shared_texts", default=None
)


@contextmanager
def parses_shared() -> Iterator[None]:
    """Within the block, a JSON text (of one path) is parsed once however many readers parse
    it, and a file is read once however many stores read it (``shared_text``):
    ``~/.claude.json`` is two sources of a workspace (its user and its local scope), and a
    heavy user's is hundreds of MiB. Nothing is kept after the block. Documents are never
    changed in place (edits copy on write), so the readers may share one."""
    token = _SHARED.set({})
    texts = _TEXTS.set({})
    try:
        yield
    finally:
        _SHARED.reset(token)
        _TEXTS.reset(texts)


def shared_text(key: tuple[object, ...], read: Callable[[], Any]) -> Any:
    """``read()``, or inside ``parses_shared`` what it gave for the same ``key`` (a file's
    path and one ``stat``'s inode, size and mtime: the fingerprint the workspace trusts to say
    a file is unchanged) when another store of the block read that file already."""
    texts = _TEXTS.get()
    if texts is None:
        return read()
    if key not in texts:
        texts[key] = read()
    return texts[key]


_WHOLE: ContextVar[dict[object, Any] | None] = ContextVar("agentty_whole_parses", default=None)

_PARTED_KEY = "projects"
"""The member of ``~/.claude.json`` that is read one project at a time: per-project history,
nearly all of a heavy user's file."""


@contextmanager
def parses_whole() -> Iterator[None]:
    """Within the block, ``~/.claude.json`` is parsed whole, as every other JSON file is (an
    edit, which needs the whole document to write back), not in parts (a load); what the
    edit's steps share (``whole_parses``) is dropped at its end."""
    token = _WHOLE.set({})
    try:
        yield
    finally:
        _WHOLE.reset(token)


def whole_parses() -> dict[object, Any] | None:
    """Inside ``parses_whole``, a dict the steps of one edit share (its parse, for its dump);
    ``None`` outside: nothing is kept past the edit (a heavy ``~/.claude.json``'s text and
    tree are hundreds of MiB)."""
    return _WHOLE.get()


def _pairs_hook(duplicates: list[str]) -> Any:
    """An ``object_pairs_hook`` that builds dicts and notes repeated keys in ``duplicates``."""

    def pairs_to_dict(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result = dict(pairs)
        if len(result) != len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    duplicates.append(key)
                seen.add(key)
        return result

    return pairs_to_dict


def _decode_part(
    text: str, member: Member, path: str | None, outer: int, repeated: list[tuple[str, int]]
) -> Any:
    """The value of ``member`` (already checked as strict JSON), ``outer`` levels deep in the
    file: nesting bounded as for a whole file; repeated keys added to ``repeated`` with their
    offsets in the whole text."""
    check_nesting(text, path, start=member.start, end=member.end, outer=outer)
    part = text[member.start : member.end]
    duplicates: list[str] = []
    value = json.loads(part, object_pairs_hook=_pairs_hook(duplicates))
    if duplicates:
        repeated += [(key, member.start + at) for key, at in parse_jsonc(part).repeated_at]
    return value


class LazyObject(Mapping[str, Any]):
    """An object of a JSON text whose members are decoded only when read: ``~/.claude.json``'s
    ``projects``, of which a load reads one. Every member was checked as strict JSON when the
    text was read; reading one bounds its nesting and notes its repeated keys in
    ``warnings``."""

    def __init__(self, text: str, found: list[Member], path: str | None) -> None:
        """The object of ``text`` whose members are ``found`` (``jsonspan.members``)."""
        self._text = text
        self._path = path
        self._spans = {member.key: member for member in found}  # the last of repeated keys
        self._decoded: dict[str, Any] = {}
        self.warnings: tuple[str, ...] = ()
        """Repeated keys in the members read so far, each named with its line."""

    def __getitem__(self, key: str) -> Any:
        if key not in self._decoded:
            repeated: list[tuple[str, int]] = []
            self._decoded[key] = _decode_part(self._text, self._spans[key], self._path, 2, repeated)
            if repeated:
                self.warnings += duplicate_key_warnings(self._text, repeated, self._path)
        return self._decoded[key]

    def __contains__(self, key: object) -> bool:
        return key in self._spans

    def __iter__(self) -> Iterator[str]:
        return iter(self._spans)

    def __len__(self) -> int:
        return len(self._spans)


def _materialized(document: Any) -> Any:
    """``document`` with each ``LazyObject`` of its top level decoded whole: a document a load
    read in parts can still be written (every member is read then, as a whole parse would)."""
    if isinstance(document, dict) and any(isinstance(v, LazyObject) for v in document.values()):
        return {
            key: {name: value[name] for name in value} if isinstance(value, LazyObject) else value
            for key, value in document.items()
        }
    return document


def _read_in_parts(text: str, path: str | None) -> Loaded | None:
    """``~/.claude.json`` read as a load needs it: every byte checked as strict JSON by the C
    decoder, one value at a time, but only the top level's small members built (the user
    scope's ``mcpServers`` among them), and ``projects`` left as a ``LazyObject`` (a load
    reads one project of hundreds). ``None`` for text that is not plain JSON (an object at the
    top): the caller parses it whole, for the exact message."""
    inner: dict[int, list[Member]] = {}

    def skip(text: str, key: str, pos: int) -> int:
        if key == _PARTED_KEY and text.startswith("{", pos):
            inner[pos], end = members(text, pos)
            return end
        skipped: int = _DECODER.raw_decode(text, pos)[1]
        return skipped

    try:
        start = _LEADING_SPACE.match(text).end()  # type: ignore[union-attr]  # (always matches)
        top, end = members(text, start, skip)
    except (ValueError, RecursionError):
        return None
    if text[end:].strip(" \t\n\r"):
        return None  # extra data: json.loads says so in its words
    value: dict[str, Any] = {}
    repeated: list[tuple[str, int]] = []
    for member in top:
        if member.key in value:
            repeated.append((member.key, member.at))
        if member.start in inner:
            found = inner[member.start]
            seen: set[str] = set()
            for project in found:
                if project.key in seen:
                    repeated.append((project.key, project.at))
                seen.add(project.key)
            value[member.key] = LazyObject(text, found, path)
        else:
            value[member.key] = _decode_part(text, member, path, 1, repeated)
    warnings = duplicate_key_warnings(text, repeated, path) if repeated else ()
    return Loaded(value, value, warnings)


_DECODER = json.JSONDecoder()
_LEADING_SPACE = re.compile(r"[ \t\n\r]*")
"""JSON's whitespace before the document (matched, not stripped: a strip copies the text)."""


READ_IN_PARTS = True
"""Whether a load reads ``~/.claude.json`` in parts (``_read_in_parts``); ``False`` parses it
whole, as before: the seam ``bench/bench_claude_json.py`` measures the old way through."""


def _is_claude_state(path: str | None) -> bool:
    return READ_IN_PARTS and path is not None and os.path.basename(path) == CLAUDE_STATE_NAME


class _DuplicateKeys(dict[str, Any]):
    """A parsed JSON object whose text had repeated keys somewhere (last one wins)."""

    def __init__(self, document: dict[str, Any], duplicates: list[str]) -> None:
        super().__init__(document)
        self.duplicates = duplicates


class _MappingTree:
    """Tree operations on plain dicts (the JSON formats' trees)."""

    map_message = "must be an object"
    entry_message = "must be an object"

    def plain(self, node: Any) -> Any:
        """The node itself: it is plain already."""
        return node

    def put(self, mapping: Any, key: str, value: Any) -> None:
        """Assignment: an existing key keeps its position."""
        mapping[key] = value

    def put_list(self, mapping: Any, key: str, items: list[str] | None) -> None:
        """Assign the list, or drop the key."""
        if items is None:
            mapping.pop(key, None)
        else:
            mapping[key] = items

    def remove(self, servers: Any, name: str) -> None:
        """Drop the entry."""
        del servers[name]

    def add(self, root: Any, servers_key: str, name: str, entry: Any) -> None:
        """Add the entry last (a missing server map is made)."""
        servers = root.get(servers_key)
        if servers is None:
            servers = root[servers_key] = {}
        servers[name] = entry


class JsonFormat(_MappingTree):
    """Plain JSON; the document is the parsed object, edited copy on write."""

    def __init__(self) -> None:
        self._written: str | None = None
        """The text of the last fast-path dump: a file still holding it needs no layout check."""

    def load(self, text: str, path: str | None) -> Loaded:
        """Parse JSON text; syntax errors carry line and column, repeated keys a warning.
        Inside ``parses_shared``, a text already parsed there is not parsed again."""
        if not text or text.isspace():  # stops at the first other character; strip would copy
            return Loaded({}, {})
        shared = _SHARED.get()
        # The text is known by its path, length and hash (the two stores of ~/.claude.json
        # share one text within a load, shared_text, but a reader may hand in its own). The
        # hash is the interpreter's (64-bit, keyed anew in each process): an accidental match
        # of all three within one load is beyond the odds of anything else going wrong.
        whole = _WHOLE.get() is not None or not _is_claude_state(path)
        key = (path, len(text), hash(text), whole)  # a whole parse and one in parts kept apart
        if shared is not None and key in shared:
            return shared[key]
        loaded = None
        if not whole:
            # A heavy user's ~/.claude.json is hundreds of MiB of history; a load needs two
            # small parts of it (read in parts: about a quarter of the CPU, no tree of it).
            loaded = _read_in_parts(text, path)
        if loaded is None:
            loaded = self._parse(text, path)
        if shared is not None:
            shared[key] = loaded
        return loaded

    def _parse(self, text: str, path: str | None) -> Loaded:
        duplicates: list[str] = []
        check_nesting(text, path)
        try:
            document = json.loads(text, object_pairs_hook=_pairs_hook(duplicates))
        except json.JSONDecodeError as error:
            raise ConfigError(
                f"invalid JSON: {error.msg}", path=path, line=error.lineno, column=error.colno
            ) from None
        except RecursionError:
            # Only text that is not JSON gets past check_nesting's quick answer this deep.
            message = f"invalid JSON: nested deeper than {MAX_DEPTH} levels"
            raise ConfigError(message, path=path) from None
        if not duplicates:
            return Loaded(document, document)
        # The standard parser does not say where; the JSONC one (plain JSON is JSONC) does.
        warnings = duplicate_key_warnings(text, parse_jsonc(text, path).repeated_at, path)
        # Like every JSON reader, the last of duplicate keys wins for reading; the document
        # remembers the others so that an edit can be refused.
        return Loaded(_DuplicateKeys(document, duplicates), document, warnings)

    def duplicates(self, document: Any) -> tuple[str, ...]:
        """The keys a parsed file repeated."""
        return tuple(document.duplicates) if isinstance(document, _DuplicateKeys) else ()

    def begin(self, document: Any, servers_key: str) -> Any:
        """Copy on write: the top level and the server map are copied here, and the one entry an
        edit changes by ``writable``; everything else is shared with ``document``."""
        root: dict[str, Any] = dict(document)
        if isinstance(root.get(servers_key), dict):
            root[servers_key] = dict(root[servers_key])
        return root

    def writable(self, servers: Any, name: str) -> Any:
        """A copy of the entry, put in its place."""
        entry = servers[name] = copy.deepcopy(servers[name])
        return entry

    def end(self, document: Any, root: Any, path: str | None) -> Any:
        """The edited object is the new document."""
        return root

    def dump(self, document: Any, like: str | None) -> str:
        """``document`` as JSON, the file's own layout kept.

        A file already laid out the way ``dump_json`` writes it is written again that way (the
        fast path). Any other layout (objects on one line, an odd indent) is edited by
        splicing: only the text of what changed is rewritten, every other byte stays.
        """
        document = _materialized(document)
        style = JsonStyle.of(like)
        canonical = (
            like is None
            or not like.strip()
            or like == self._written  # our own last write, as it usually is: no re-check
            or dump_json(json.loads(like), style) == like
        )
        if not canonical:
            assert like is not None
            return splice(like, document)
        text = dump_json(document, style)
        self._written = text
        return text


@dataclass(frozen=True, slots=True)
class JsoncDocument:
    """A JSONC file as text plus the plain value it holds."""

    text: str
    """The file's text."""
    value: dict[str, Any]
    """The value it holds."""
    duplicates: tuple[str, ...] = ()
    """Keys the text repeats."""


class JsoncFormat(_MappingTree):
    """JSON with comments; an edit is made to a copy of the value and spliced into the text, so
    comments, layout and every key the edit does not own stay byte for byte."""

    def load(self, text: str, path: str | None) -> Loaded:
        """Parse JSONC text (comments and trailing commas allowed); the top level is an object."""
        if not text.strip():
            return Loaded(JsoncDocument(text, {}), {})
        root = parse_jsonc(text, path)
        if not isinstance(root.value, dict):
            raise ConfigError("the top level must be an object", path=path)
        warnings: tuple[str, ...] = ()
        if root.repeated_at:
            warnings = duplicate_key_warnings(text, root.repeated_at, path)
        return Loaded(JsoncDocument(text, root.value, tuple(root.duplicates)), root.value, warnings)

    def duplicates(self, document: Any) -> tuple[str, ...]:
        """The keys the text repeats."""
        return tuple(document.duplicates)

    def begin(self, document: Any, servers_key: str) -> Any:
        """A deep copy of the value."""
        value: MutableMapping[str, Any] = copy.deepcopy(document.value)
        return value

    def writable(self, servers: Any, name: str) -> Any:
        """The entry itself: the tree is a copy already."""
        return servers[name]

    def end(self, document: Any, root: Any, path: str | None) -> Any:
        """Splice the changed value into the text."""
        if root == document.value:
            return document
        return JsoncDocument(splice(document.text, root, path=path), root)

    def dump(self, document: Any, like: str | None) -> str:
        """The document's text: it already is laid out like the file."""
        text: str = document.text
        return text
