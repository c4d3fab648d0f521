"""TOML as a document format: parsed with tomlkit and edited node by node, so that comments, key
order and the layout of the rest of the file stay as they were (see ``formats.Format``).

tomlkit keeps the blank lines and comments that end a table's body with that table, although
they belong to the next one; a key added to a table therefore goes right after its last key,
and a removed table takes the comment lines right above it along.
"""

from __future__ import annotations

import re
from typing import Any

import tomlkit
from tomlkit.exceptions import ParseError, TOMLKitError
from tomlkit.items import Array, Comment, Table
from tomlkit.parser import Parser

from agentty_tui.config.documents.formats import Loaded
from agentty_tui.errors import ConfigError

__all__ = ["TomlFormat", "add_after_last_key"]

_AT = re.compile(r" at line \d+ col \d+$")


def add_after_last_key(table: Any, key: str, value: Any) -> None:
    """Add ``key`` right after the table's last key: the blank lines and comments that end a
    table's body in tomlkit belong to the next table, so appending would land under them."""
    if not isinstance(table, Table):
        table[key] = value
        return
    body = table.value.body
    end = len(body)
    while end and body[end - 1][0] is None:
        end -= 1
    trailing = body[end:]
    del body[end:]
    table[key] = value
    body.extend(trailing)


def _drop_comments_above(servers: Any, name: str) -> None:
    """Remove the comment lines right above ``[mcp_servers.NAME]`` (no blank line between):
    they describe the table being removed. tomlkit keeps them at the end of the table before."""
    if not isinstance(servers, Table):
        return
    names = list(servers.keys())
    index = names.index(name)
    if index == 0:
        return
    previous = servers[names[index - 1]]
    while isinstance(previous, Table):
        body = previous.value.body
        if body and isinstance(body[-1][1], Table):
            previous = body[-1][1]
            continue
        end = len(body)
        while end and body[end - 1][0] is None and isinstance(body[end - 1][1], Comment):
            end -= 1
        del body[end:]
        return


def _line_read_last(parser: Parser, text: str) -> int | None:
    """The line of the last text ``parser`` read (``None`` if its position is unknown)."""
    position = getattr(getattr(parser, "_src", None), "_idx", None)
    if not isinstance(position, int):
        return None
    return text.count("\n", 0, len(text[:position].rstrip())) + 1


class TomlFormat:
    """TOML; the document is the file's text, parsed afresh for each edit."""

    map_message = "must be a table of servers"
    entry_message = "must be a table"

    def load(self, text: str, path: str | None) -> Loaded:
        """Parse TOML; syntax errors carry line and column."""
        parser = Parser(text)
        try:
            value = parser.parse().unwrap()
        except ParseError as error:
            message = _AT.sub("", str(error))
            raise ConfigError(
                f"invalid TOML: {message}", path=path, line=error.line, column=error.col
            ) from None
        except TOMLKitError as error:
            # A key repeated within a table is found only once its line is read; tomlkit then
            # says no line, but its reader stands just past it.
            raise ConfigError(
                f"invalid TOML: {error}", path=path, line=_line_read_last(parser, text)
            ) from None
        return Loaded(text, value)

    def duplicates(self, document: Any) -> tuple[str, ...]:
        """None: TOML refuses repeated keys when parsing."""
        return ()

    def begin(self, document: Any, servers_key: str) -> Any:
        """A tomlkit tree of the text."""
        return tomlkit.parse(document)

    def writable(self, servers: Any, name: str) -> Any:
        """The table itself: the tree is parsed afresh for each edit."""
        return servers[name]

    def plain(self, node: Any) -> Any:
        """A table as plain dicts and lists."""
        unwrap = getattr(node, "unwrap", None)
        return unwrap() if callable(unwrap) else dict(node)

    def put(self, mapping: Any, key: str, value: Any) -> None:
        """Replace in place, or add after the table's last key."""
        if key in mapping:
            mapping[key] = value
        else:
            add_after_last_key(mapping, key, value)

    def put_list(self, mapping: Any, key: str, items: list[str] | None) -> None:
        """Edit an existing array in place, so that its layout and comments stay."""
        current = mapping.get(key)
        if items is None:
            if key in mapping:
                del mapping[key]
            return
        if isinstance(current, Array):
            for index in reversed(range(len(current))):
                if current[index] not in items:
                    del current[index]
            for item in items:
                if item not in current:
                    current.append(item)
            return
        add_after_last_key(mapping, key, items)

    def remove(self, servers: Any, name: str) -> None:
        """Drop the table and the comment lines right above it."""
        _drop_comments_above(servers, name)
        del servers[name]

    def add(self, root: Any, servers_key: str, name: str, entry: Any) -> None:
        """Add the table last, as ``[servers_key.NAME]``."""
        servers = root.get(servers_key)
        if servers is None:
            servers = tomlkit.table(is_super_table=True)
            root[servers_key] = servers
        # A table followed by another one gets the blank line that separates tables.
        if list(root.keys())[-1] != servers_key:
            entry.add(tomlkit.nl())
        servers[name] = entry

    def end(self, document: Any, root: Any, path: str | None) -> Any:
        """The edited text."""
        return root.as_string()

    def dump(self, document: Any, like: str | None) -> str:
        """The edited text, already laid out like the file."""
        text: str = document
        return text
