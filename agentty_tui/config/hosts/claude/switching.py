"""A Claude Code switch flipped: written where Claude Code reads it, through the store.

- A tool off is the deny rule ``mcp__<server>__<tool>`` (``switches.deny_rule``) in the
  settings file of the entry's scope: ``~/.claude/settings.json`` for a user entry, the
  project's ``.claude/settings.local.json`` (the user's own, uncommitted choice) for a local or
  ``.mcp.json`` entry. The file (and its folder) is made when absent, laid out as Claude Code
  writes its settings (``JSON.stringify(settings, null, 2)`` and a newline).
- A tool on removes that exact rule from the user's own files (user and local settings).
- A server off is the name in ``projects["<root>"].disabledMcpServers`` of ``~/.claude.json``,
  for an entry of any scope: what Claude Code's own ``/mcp`` writes (its toggle writes that
  list whatever the server's scope; only its first-run approval question writes
  ``disabledMcpjsonServers``, into ``.claude/settings.local.json``).
- A server on removes the name from that list and, for a ``.mcp.json`` entry, its rejection
  from the user's own files.

Each is a no-op when the switch is already so, and idempotent. Turning on what something else
still turns off (a server-wide rule, the project's shared settings, managed settings) is
refused before anything is written (``SwitchRefusedError``, naming the file and the rule): a tool
is never reported on while Claude Code still leaves it out.

Every file is written through ``DocumentStore`` (lock, fresh re-read, a file that does not parse
refused, compare-and-swap, atomic replace). ``JsonListView`` edits by splicing only the object
that holds the list, so every other byte stays, and ``~/.claude.json`` (megabytes) is not parsed
into a tree for one name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentty_tui.config.documents.formats import JsonFormat, refuse_duplicates
from agentty_tui.config.documents.jsonc import splice
from agentty_tui.config.documents.jsonlayout import JsonStyle, dump_json
from agentty_tui.config.documents.jsonspan import value_span
from agentty_tui.config.hosts.claude.local import PROJECTS_KEY
from agentty_tui.config.hosts.claude.switches import (
    DENY_KEY,
    DISABLED_SERVERS_KEY,
    PERMISSIONS_KEY,
    ClaudeFiles,
    ClaudeSwitches,
    EntryScope,
    Switch,
    deny_rule,
    read_switches,
)
from agentty_tui.config.raw import json_type
from agentty_tui.config.store import DocumentStore
from agentty_tui.errors import ConfigError

__all__ = [
    "CLAUDE_SETTINGS_STYLE",
    "JsonListView",
    "JsonText",
    "ListEdit",
    "SwitchRefusedError",
    "json_list_store",
    "set_server_enabled",
    "set_tool_enabled",
]

CLAUDE_SETTINGS_STYLE = JsonStyle(indent="  ", inline_arrays=False, trailing_newline=True)
"""How Claude Code lays out a settings file it writes: two spaces, one array item a line, a
final newline (``JSON.stringify(settings, null, 2) + "\\n"``)."""


@dataclass(frozen=True, slots=True)
class ListEdit:
    """Make ``item`` present in (or absent from) the list of strings at ``keys``."""

    keys: tuple[str, ...]
    """The object keys leading to the list (``("permissions", "deny")``)."""
    item: str
    """The string to add or remove."""
    present: bool
    """Add it (last, unless there) or remove every copy of it."""
    prune: int = 0
    """How many enclosing objects may go when the removal leaves them empty (an emptied list
    always goes): 1 drops an emptied ``permissions``."""


_INLINE_STRINGS = re.compile(r'\[[ \t]*"')
"""A list of strings begun on its key's line: the file lays lists out inline."""


class SwitchRefusedError(ConfigError):
    """A switch that cannot be turned on: a rule or list we may not take back still turns it
    off (the message names the file and the rule, and what to do)."""


def _field(keys: tuple[str, ...]) -> str:
    """``projects["/x"].disabledMcpServers`` for messages."""
    parts: list[str] = []
    for key in keys:
        if parts and not key.isidentifier():
            parts[-1] += f"[{json.dumps(key, ensure_ascii=False)}]"
        else:
            parts.append(key)
    return ".".join(parts)


def _edited(value: Any, edit: ListEdit, done: tuple[str, ...], path: str | None) -> Any:
    """``value`` (the object at ``done``) with the edit applied below it; ``value`` itself when
    the edit changes nothing. Refuses (``ConfigError`` naming the field) a wrong type."""
    if not isinstance(value, Mapping):
        raise ConfigError(
            f"must be an object, not {json_type(value)}; nothing was written",
            path=path,
            field=_field(done) or None,
        )
    rest = edit.keys[len(done) :]
    key = rest[0]
    if len(rest) == 1:
        items = value.get(key, [])
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            raise ConfigError(
                "must be a list of strings; nothing was written", path=path, field=_field(edit.keys)
            )
        if edit.present:
            if edit.item in items:
                return value
            return {**value, key: [*items, edit.item]}
        if edit.item not in items:
            return value
        kept = [i for i in items if i != edit.item]
        if kept:
            return {**value, key: kept}
        return {k: v for k, v in value.items() if k != key}
    if key not in value:
        if not edit.present:
            return value
        inner = _edited({}, edit, (*done, key), path)
        return {**value, key: inner}
    inner = _edited(value[key], edit, (*done, key), path)
    if inner is value[key]:
        return value
    depth_below = len(edit.keys) - len(done) - 1  # objects between this one and the list
    if not inner and depth_below <= edit.prune:
        return {k: v for k, v in value.items() if k != key}
    return {**value, key: inner}


@dataclass(frozen=True, slots=True)
class JsonText:
    """A plain JSON file's text, the document ``JsonListView`` edits."""

    text: str
    """The text, every byte of it."""
    duplicates: tuple[str, ...] = ()
    """The keys it repeats (an edit is refused)."""


class JsonListView:
    """A plain JSON file (a settings file, ``~/.claude.json``) seen as lists of strings to edit.

    The document is the text itself; ``apply`` splices the deepest object on the edit's path
    that exists (the project's entry of ``~/.claude.json``, not the whole file), and a new file
    is laid out as Claude Code writes one (``CLAUDE_SETTINGS_STYLE``).
    """

    def __init__(self) -> None:
        self._format = JsonFormat()

    def parse(self, text: str, path: str | None) -> tuple[JsonText, Any]:
        """The document and the value the text holds; ``ConfigError`` with the line and column
        for text that is not JSON, or a top level not an object."""
        loaded = self._format.load(text, path)
        if not isinstance(loaded.value, Mapping):
            raise ConfigError(
                f"the top level must be an object, not {json_type(loaded.value)}", path=path
            )
        return JsonText(text, self._format.duplicates(loaded.document)), loaded.value

    def apply(self, document: JsonText, edit: ListEdit, path: str | None) -> JsonText:
        """The document with the edit made; the same document when it is a no-op. A file that
        repeats a key is refused (a rewrite would keep one of them)."""
        refuse_duplicates(document.duplicates, path)
        text = self._applied(document.text, edit, path)
        return document if text == document.text else JsonText(text)

    def _applied(self, text: str, edit: ListEdit, path: str | None) -> str:
        """``text`` with the edit made."""
        if not text.strip():
            value = _edited({}, edit, (), path)
            return text if not value else dump_json(value, CLAUDE_SETTINGS_STYLE)
        try:
            depth, (start, end) = self._container(text, edit)
            old = json.loads(text[start:end])
        except ValueError:
            # Not plain JSON after all: the format says where (parse accepted it only if the
            # reader in parts did, which is stricter than this one never is).
            self._format.load(text, path)
            raise ConfigError("not plain JSON; nothing was written", path=path) from None
        new = _edited(old, edit, edit.keys[:depth], path)
        if new is old:
            return text
        style = JsonStyle.of(text)
        if not _INLINE_STRINGS.search(text):  # no inline list to follow: Claude Code's own
            style = JsonStyle(
                indent=style.indent,
                inline_arrays=False,
                ascii_only=style.ascii_only,
                minified=style.minified,
                trailing_newline=style.trailing_newline,
            )
        if depth == 0:
            return splice(text, new, path=path, style=style)
        line = text[text.rfind("\n", 0, start) + 1 : start]
        # Cut out with its line's indentation, the object's text is laid out as in the file.
        indent = line[: len(line) - len(line.lstrip(" \t"))]
        edited = splice(indent + text[start:end], new, path=path, style=style)
        return text[:start] + edited[len(indent) :] + text[end:]

    @staticmethod
    def _container(text: str, edit: ListEdit) -> tuple[int, tuple[int, int]]:
        """How many of the edit's keys lead to the object spliced, and its span: the deepest
        existing object holding the list, or for a removal the one ``prune`` levels up (so an
        emptied object can go)."""
        keys = edit.keys
        for depth in range(len(keys) - 1, 0, -1):
            span = value_span(text, keys[:depth])
            if span is not None and text.startswith("{", span[0]):
                if not edit.present and edit.prune:
                    depth = max(0, depth - edit.prune)
                    span = value_span(text, keys[:depth])
                    assert span is not None
                return depth, span
        span = value_span(text, ())
        assert span is not None
        return 0, span

    def dump(self, document: JsonText, like: str | None) -> str:
        """The text: it is laid out like the file already."""
        return document.text


def json_list_store(path: Path) -> DocumentStore[ListEdit, Any]:
    """The store that edits the lists of the JSON file at ``path``."""
    return DocumentStore(path, JsonListView())


def _write(files: ClaudeFiles, path: Path, edit: ListEdit) -> str | None:
    """Apply ``edit`` to ``path``; the line saying what changed, ``None`` when nothing did."""
    store = json_list_store(path)
    before = store.version()
    store.apply(edit)
    # A write is an atomic replace (a new inode); a no-op leaves the file as it was.
    if store.version() == before:
        return None
    verb = "added" if edit.present else "removed"
    into = "to" if edit.present else "from"
    key = edit.keys[-1] if path == files.state else _field(edit.keys)
    return f"{verb} {edit.item} {into} {key} in {files.shown(path)}"


def _deny_edit(server: str, tool: str, present: bool) -> ListEdit:
    return ListEdit((PERMISSIONS_KEY, DENY_KEY), deny_rule(server, tool), present, prune=1)


def _project_edit(files: ClaudeFiles, key: str, item: str, present: bool) -> ListEdit:
    return ListEdit((PROJECTS_KEY, files.project_key, key), item, present)


def _refuse(what: str, still: Switch, files: ClaudeFiles, hint: str) -> SwitchRefusedError:
    message = f"{what} stays off for Claude Code: {still.text} still turns it off; {hint}"
    error = SwitchRefusedError(message)  # the message names the file and the rule
    error.path, error.field = files.shown(still.file), still.key
    return error


def set_tool_enabled(
    files: ClaudeFiles, server: str, scope: EntryScope, tool: str, enabled: bool
) -> tuple[str, ...]:
    """Turn ``tool`` of the entry ``server`` (of ``scope``) on or off for Claude Code in this
    project; the lines saying what was written (none: it was so already).

    Off adds the deny rule to the settings file of the scope, unless a rule leaves the tool
    out already. On removes the exact rule from the user's own settings files; when a rule
    would still leave the tool out, ``SwitchRefusedError`` names it and nothing is written.
    ``ConfigError`` for a file that cannot be read or edited (it stays as it was).
    """
    switches = _read(files)
    rule = deny_rule(server, tool)
    if not enabled:
        if switches.tool_denied(server, tool) is not None:
            return ()
        line = _write(files, files.settings_for(scope), _deny_edit(server, tool, True))
        return () if line is None else (line,)
    ours = (files.user_settings, files.local_settings)
    still = [
        s for s in switches.tool_denials(server, tool) if not (s.file in ours and s.value == rule)
    ]
    if still:
        hint = (
            "remove that rule there (a server-wide rule turns every tool of the server off)"
            if still[0].own
            else "it is not the user's own file; ask whoever keeps it, or leave the tool off"
        )
        raise _refuse(f"tool {tool!r} of server {server!r}", still[0], files, hint)
    lines = []
    for path in dict.fromkeys(s.file for s in switches.tool_denials(server, tool)):
        line = _write(files, path, _deny_edit(server, tool, False))
        if line is not None:
            lines.append(line)
    return tuple(lines)


def set_server_enabled(
    files: ClaudeFiles, server: str, scope: EntryScope, enabled: bool
) -> tuple[str, ...]:
    """Turn the entry ``server`` (of ``scope``) on or off for Claude Code in this project; the
    lines saying what was written (none: it was so already).

    Off adds the name to the project's ``disabledMcpServers`` in ``~/.claude.json`` (as
    ``/mcp`` does), unless the server is off already. On removes it from there and, for a
    ``.mcp.json`` entry, its rejection (``disabledMcpjsonServers``) from the user's own files;
    when something else would still keep it off, ``SwitchRefusedError`` names it and nothing is
    written.
    """
    switches = _read(files)
    offs = switches.server_offs(server, scope)
    if not enabled:
        if offs:
            return ()
        edit = _project_edit(files, DISABLED_SERVERS_KEY, server, True)
        line = _write(files, files.state, edit)
        return () if line is None else (line,)
    still = [s for s in offs if not s.own]
    if still:
        hint = "it is not the user's own file; ask whoever keeps it, or leave the server off"
        raise _refuse(f"server {server!r}", still[0], files, hint)
    lines = []
    for switch in offs:
        if switch.file == files.state:
            edit = _project_edit(files, switch.key, switch.value, False)
        else:
            edit = ListEdit((switch.key,), switch.value, False)
        line = _write(files, switch.file, edit)
        if line is not None:
            lines.append(line)
    return tuple(dict.fromkeys(lines))


def _read(files: ClaudeFiles) -> ClaudeSwitches:
    """The switches now; a file that cannot be read refuses the edit (its switches unknown)."""
    switches = read_switches(files)
    if switches.problems:
        raise ConfigError(
            "Claude Code's switches cannot all be read, so none is changed: "
            + "; ".join(switches.problems)
        )
    return switches
