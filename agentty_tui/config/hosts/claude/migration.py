"""The move of our old in-entry switches in Claude Code's files to the switches it obeys.

Earlier versions wrote a tool off as ``"tools": {"exclude": [...]}`` (or an ``include``
allow-list) and a server off as ``"disabled": true`` inside the entry, in ``~/.claude.json``
(user and local scope) and ``<root>/.mcp.json``; Claude Code ignores both (measured,
``docs/HOSTS_MEASURED.md``). ``migrate_old_switches`` writes each as the switch Claude Code
obeys (``switching``: a deny rule, ``disabledMcpServers``), then removes the old keys from the
entry, each file through its store; it returns one line per server saying what moved where.

An ``include`` allow-list becomes deny rules for the tools it does not list, which needs the
server's tools: without them that entry is left as it is, and its line says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from agentty_tui.config.engine import SetServerDisabled, SetToolFilter
from agentty_tui.config.hosts.claude.local import ClaudeLocalDialect
from agentty_tui.config.hosts.claude.switches import ClaudeFiles, EntryScope
from agentty_tui.config.hosts.claude.switching import set_server_enabled, set_tool_enabled
from agentty_tui.config.hosts.mcpjson import McpJsonDialect
from agentty_tui.config.store import ConfigStore
from agentty_tui.errors import ConfigError
from agentty_tui.specs import ServerConfig

__all__ = ["migrate_old_switches"]


def _entry_files(files: ClaudeFiles) -> tuple[tuple[EntryScope, ConfigStore], ...]:
    """Claude Code's entry files, each with the store that reads it as entries."""
    return (
        ("user", ConfigStore(files.state, dialect=McpJsonDialect())),
        ("local", ConfigStore(files.state, dialect=ClaudeLocalDialect(files.root))),
        ("project", ConfigStore(files.mcp_json, dialect=McpJsonDialect())),
    )


def _old_keys(server: ServerConfig) -> tuple[str, ...]:
    """The old switch keys the entry holds."""
    keys = []
    if server.tools.include is not None or server.tools.exclude:
        keys.append("tools")
    if server.disabled:
        keys.append("disabled")
    return tuple(keys)


def migrate_old_switches(
    files: ClaudeFiles, tools: Mapping[str, Sequence[str]] | None = None
) -> tuple[str, ...]:
    """Move every old switch in Claude Code's entry files to the switch it obeys; one line per
    server that held one (none: nothing to move). ``tools`` maps a server's name to the tool
    names it advertises (needed for an ``include`` list). Running it again is a no-op.

    A file that cannot be read gets a line saying so and is left as it is; a switch that cannot
    be written (``ConfigError``) leaves that entry's old keys in place, with a line saying why.
    """
    lines: list[str] = []
    for scope, store in _entry_files(files):
        shown = files.shown(store.path)
        try:
            config = store.load()
        except ConfigError as error:
            lines.append(f"{shown} ({scope}): not migrated: {error}")
            continue
        for server in config.servers:
            keys = _old_keys(server)
            if server.problem is not None or not keys:
                continue
            where = f"{server.name} ({scope} entry in {shown})"
            known = None if tools is None else tools.get(server.name)
            include = server.tools.include
            if include is not None and known is None:
                lines.append(
                    f"{where}: left as it is: its tools.include allow-list becomes deny rules "
                    "for the tools it does not list, and its tools are not known yet"
                )
                continue
            off = list(server.tools.exclude)
            if include is not None and known is not None:
                off += [tool for tool in known if tool not in include and tool not in off]
            try:
                moved = [
                    line
                    for tool in off
                    for line in set_tool_enabled(files, server.name, scope, tool, False)
                ]
                if server.disabled:
                    moved += set_server_enabled(files, server.name, scope, False)
                store.apply(
                    [SetToolFilter(server.name, None, ()), SetServerDisabled(server.name, False)]
                )
            except ConfigError as error:
                lines.append(f"{where}: not migrated: {error}")
                continue
            said = "; ".join(moved) if moved else "Claude Code's switches said so already"
            lines.append(f"{where}: {said}; removed {' and '.join(keys)} from the entry")
    return tuple(lines)
