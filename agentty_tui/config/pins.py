"""Pins agentty keeps for the servers of files that cannot hold them.

A pin (``tools.pin``, a server's ``"priority"``) is agentty's own field: only agentty's own
files spell it. A host's file (Codex's TOML, Gemini CLI's settings, VS Code's, Claude Code's,
Cursor's, Claude Desktop's) cannot carry it, since its host would reject or drop the key. So
the pins of their servers are kept in a file of agentty's own, ``$XDG_CONFIG_HOME/agentty/
pins.json``, and the host's file is never written for a pin.

The pin store holds one record per server::

    {"pins": [
      {"file": "/home/me/.codex/config.toml", "server": "github", "priority": 1},
      {"file": "/home/me/.claude.json", "project": "/home/me/app", "server": "notes",
       "tools": ["add", "find"]}
    ]}

keyed by the config file's path (``file``; a connected host's own file, not its stash), the
server's name in that file (``server``), and for Claude Code's local scope, whose entries are
per project, the project (``project``). ``tools`` are the pinned tools, ``priority`` the
server's (0 when absent). A record's other keys are kept as they are.

The workspace reads the store into the config exactly as it reads ``tools.pin`` and
``"priority"`` (``Workspace.load``): the catalog and the gateway cannot tell where a pin came
from. It is read and written through ``DocumentStore`` (lock, fresh re-read, atomic replace,
never clobbering a concurrent edit) and is bounded (``MAX_RECORDS`` records, ``MAX_TOOLS`` pins a
server, ``MAX_NAME`` characters a name, the file at most ``files.MAX_CONFIG_BYTES``): an edit past
a bound is refused. A store that does not read (not JSON, a record of the wrong shape) is a
``ConfigError`` naming the file and the record, and is never overwritten: every edit re-reads
and parses it first.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeAlias

from agentty_tui.config.engine import Adapter
from agentty_tui.config.files import FileVersion
from agentty_tui.config.sources import our_user_file
from agentty_tui.config.store import ConfigStore, DocumentStore
from agentty_tui.errors import ConfigError
from agentty_tui.specs import PluginConfig

__all__ = [
    "MAX_NAME",
    "MAX_RECORDS",
    "MAX_TOOLS",
    "PINS_FILE_NAME",
    "DropPins",
    "PinBook",
    "PinEdit",
    "PinPlace",
    "PinServer",
    "PinStore",
    "PinTool",
    "PinsView",
    "ServerPins",
    "holds_pins",
    "with_book_pins",
]

PINS_FILE_NAME = "pins.json"
"""The pin store's name, beside our user file (``$XDG_CONFIG_HOME/agentty/``)."""

MAX_RECORDS = 10_000
"""The most servers the store keeps pins for."""
MAX_TOOLS = 1_000
"""The most pinned tools of one server."""
MAX_NAME = 4_096
"""The longest path, project, server or tool name in a record (characters)."""


@dataclass(frozen=True, slots=True)
class PinPlace:
    """Which config file's entries a pin is about."""

    file: str
    """The config file's path (a connected host's own file, not its stash)."""
    project: str | None = None
    """For Claude Code's local scope (its entries are per project): the project's root."""


@dataclass(frozen=True, slots=True)
class ServerPins:
    """What the store pins of one server."""

    priority: int = 0
    """The server's priority (above 0: every tool of it is pinned)."""
    tools: tuple[str, ...] = ()
    """Its pinned tools, in the order they were pinned."""


@dataclass(frozen=True, slots=True)
class PinBook:
    """Everything the pin store holds, by place and server."""

    servers: Mapping[tuple[PinPlace, str], ServerPins] = field(
        default_factory=lambda: MappingProxyType({})
    )
    """Each server's pins, by ``(place, server name in that file)``."""

    def get(self, place: PinPlace, server: str) -> ServerPins | None:
        """The pins of ``server`` of the file at ``place``, or ``None``."""
        return self.servers.get((place, server))


def holds_pins(store: ConfigStore) -> bool:
    """Whether ``store``'s format spells pins and priorities itself (agentty's own); the pins
    of the servers of any other file are kept in the pin store."""
    dialect = store.dialect
    return isinstance(dialect, Adapter) and dialect.pin_key is not None


def with_book_pins(config: PluginConfig, book: PinBook, place: PinPlace) -> PluginConfig:
    """``config`` (the file at ``place``, which cannot hold pins) with what ``book`` keeps for
    its servers, read in as a file's own ``tools.pin`` and ``priority`` are (an import's source:
    its pins travel with its servers)."""
    servers = []
    for server in config.servers:
        pins = book.get(place, server.entry_name)
        if pins is None:
            servers.append(server)
            continue
        pin = tuple(dict.fromkeys([*server.tools.pin, *pins.tools]))
        tools = server.tools.model_copy(update={"pin": pin})
        servers.append(
            server.model_copy(update={"tools": tools, "priority": server.priority or pins.priority})
        )
    return config.model_copy(update={"servers": tuple(servers)})


@dataclass(frozen=True, slots=True)
class PinTool:
    """Pin one tool of a server (or unpin it)."""

    place: PinPlace
    """The server's file."""
    server: str
    """The server's name in that file."""
    tool: str
    """The bare tool name."""
    pinned: bool
    """The wanted state."""


@dataclass(frozen=True, slots=True)
class PinServer:
    """Set a server's priority (0: none)."""

    place: PinPlace
    """The server's file."""
    server: str
    """The server's name in that file."""
    priority: int
    """Higher first on the wire; above 0 every tool of the server is pinned."""


@dataclass(frozen=True, slots=True)
class DropPins:
    """Forget every pin of a server (removed from its file)."""

    place: PinPlace
    """The server's file."""
    server: str
    """The server's name in that file."""


PinEdit: TypeAlias = PinTool | PinServer | DropPins
"""Every change of the pin store."""


def _text(value: Any, where: str, path: str | None) -> str:
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{where} must be a non-empty string", path=path)
    if len(value) > MAX_NAME:
        raise ConfigError(f"{where} is over {MAX_NAME:,} characters", path=path)
    return value


def _record(value: Any, index: int, path: str | None) -> tuple[PinPlace, str, ServerPins]:
    """One record, checked (``ConfigError`` naming the record and its field)."""
    where = f"pins[{index}]"
    if not isinstance(value, dict):
        raise ConfigError(f"{where} must be an object", path=path)
    file = _text(value.get("file"), f"{where}.file", path)
    server = _text(value.get("server"), f"{where}.server", path)
    project = value.get("project")
    if project is not None:
        project = _text(project, f"{where}.project", path)
    priority = value.get("priority", 0)
    if isinstance(priority, bool) or not isinstance(priority, int):
        raise ConfigError(f"{where}.priority must be an integer", path=path)
    tools = value.get("tools", [])
    if not isinstance(tools, list):
        raise ConfigError(f"{where}.tools must be an array of tool names", path=path)
    if len(tools) > MAX_TOOLS:
        raise ConfigError(f"{where}.tools holds over {MAX_TOOLS:,} tools", path=path)
    names = tuple(_text(tool, f"{where}.tools[{i}]", path) for i, tool in enumerate(tools))
    return PinPlace(file, project), server, ServerPins(priority, tuple(dict.fromkeys(names)))


def _records(document: Any, path: str | None) -> list[Any]:
    """The document's list of records (``ConfigError`` for any other shape)."""
    if not isinstance(document, dict):
        raise ConfigError("the pin store must be a JSON object", path=path)
    records = document.get("pins", [])
    if not isinstance(records, list):
        raise ConfigError("pins must be an array of records", path=path)
    if len(records) > MAX_RECORDS:
        raise ConfigError(f"pins holds over {MAX_RECORDS:,} records", path=path)
    return records


class PinsView:
    """The pin store's ``DocumentView``: its JSON text, the ``PinBook`` it holds, its edits."""

    def parse(self, text: str, path: str | None) -> tuple[Any, PinBook]:
        """The document and the book ``text`` holds; whitespace alone is an empty store."""
        if not text.strip():
            return {"pins": []}, PinBook()
        try:
            document = json.loads(text)
        except ValueError as error:
            line = getattr(error, "lineno", None)
            raise ConfigError(
                "not JSON (the pin store is left as it is)", path=path, line=line
            ) from None
        servers: dict[tuple[PinPlace, str], ServerPins] = {}
        for index, value in enumerate(_records(document, path)):
            place, server, pins = _record(value, index, path)
            if (place, server) in servers:
                raise ConfigError(
                    f"pins[{index}] repeats the record of {server!r} of {place.file}", path=path
                )
            servers[place, server] = pins
        return document, PinBook(MappingProxyType(servers))

    def apply(self, document: Any, edit: PinEdit, path: str | None) -> Any:
        """A new document with ``edit`` applied (``document`` is left as it was)."""
        edited = copy.deepcopy(document)
        records = _records(edited, path)
        edited["pins"] = records
        index = next(
            (
                i
                for i, record in enumerate(records)
                if record.get("file") == edit.place.file
                and record.get("project") == edit.place.project
                and record.get("server") == edit.server
            ),
            None,
        )
        if isinstance(edit, DropPins):
            if index is not None:
                del records[index]
            return edited
        if index is None:
            if len(records) >= MAX_RECORDS:
                raise ConfigError(
                    f"the pin store holds pins for {MAX_RECORDS:,} servers already; unpin some "
                    "first",
                    path=path,
                )
            record: dict[str, Any] = {"file": _text(edit.place.file, "file", path)}
            if edit.place.project is not None:
                record["project"] = _text(edit.place.project, "project", path)
            record["server"] = _text(edit.server, "server", path)
            records.append(record)
            index = len(records) - 1
        record = records[index]
        if isinstance(edit, PinServer):
            if edit.priority:
                record["priority"] = edit.priority
            else:
                record.pop("priority", None)
        else:
            tools = [tool for tool in record.get("tools", []) if tool != edit.tool]
            if edit.pinned:
                tools.append(_text(edit.tool, "tool", path))
            if len(tools) > MAX_TOOLS:
                raise ConfigError(
                    f"{edit.server!r} has {MAX_TOOLS:,} pinned tools already; unpin some first",
                    path=path,
                )
            if tools:
                record["tools"] = tools
            else:
                record.pop("tools", None)
        if not record.get("tools") and not record.get("priority"):
            del records[index]  # nothing pinned: no record left behind
        return edited

    def dump(self, document: Any, like: str | None) -> str:
        """The document as indented JSON (the store is agentty's own: no layout to keep)."""
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


class PinStore:
    """The pin store at one path: ``read`` its book (cached while the file is unchanged),
    ``apply`` edits atomically."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        """The store of the file at ``path`` (which need not exist yet)."""
        self._store: DocumentStore[PinEdit, PinBook] = DocumentStore(path, PinsView())
        self.path = Path(path)
        """The pin store's file."""
        self._read: tuple[FileVersion | None, PinBook] | None = None

    @classmethod
    def of_user(cls, home: Path, env: Mapping[str, str]) -> PinStore:
        """The user's pin store: ``$XDG_CONFIG_HOME/agentty/pins.json`` (``~/.config/...``)."""
        return cls(our_user_file(home, env).with_name(PINS_FILE_NAME))

    def __repr__(self) -> str:
        return f"PinStore({str(self.path)!r})"

    def version(self) -> FileVersion | None:
        """A one-``stat`` fingerprint of the file (``None``: there is none)."""
        return self._store.version()

    def read(self) -> PinBook:
        """The pins the file holds now (none when it does not exist); ``ConfigError`` when it
        does not read. Read again only when the file changed since the last read."""
        version = self.version()
        if self._read is not None and self._read[0] == version and version is not None:
            return self._read[1]
        book = self._store.read()
        self._read = (version, book)
        return book

    def apply(self, edits: PinEdit | Sequence[PinEdit]) -> PinBook:
        """Write ``edits`` (one write); the book after. A store that does not read is left as it
        is (``ConfigError``), as is one whose edit changes nothing."""
        return self._store.apply(edits)
