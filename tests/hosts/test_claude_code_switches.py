"""Claude Code's switches written through ``config/hosts/claude`` change what the real program
sends its model (and what it starts), for an entry of each scope; switches written the way the
program writes them are read back; a tool that stays off is never reported on.

Each server's command is wrapped to leave a mark when it starts, so "not started" is seen, not
guessed from the request. The cases share two runs of the program (a run costs 3 to 12 s).
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest

from agentty_tui.config.hosts.claude.migration import migrate_old_switches
from agentty_tui.config.hosts.claude.switches import ClaudeFiles, read_switches
from agentty_tui.config.hosts.claude.switching import (
    SwitchRefusedError,
    set_server_enabled,
    set_tool_enabled,
)
from tests.hosts.claude_code import ClaudeCodeHome, Scope, light_entry, sent_names
from tests.hosts.programs import light_argv

SCOPES: tuple[Scope, ...] = ("user", "local", "project")


def _marked_entry(name: str, tools: int, marks: Path) -> dict[str, Any]:
    """A ``light_server.py`` entry (as ``claude mcp add`` writes one) that leaves
    ``marks/<name>`` behind when it starts."""
    argv = light_argv(name, tools)
    script = f"touch {shlex.quote(str(marks / name))}; exec " + shlex.join(argv)
    return {"type": "stdio", "command": "sh", "args": ["-c", script], "env": {}}


def _started(marks: Path) -> set[str]:
    return {path.name for path in marks.iterdir()}


def _clear(marks: Path) -> None:
    for path in marks.iterdir():
        path.unlink()


def test_switches_written_for_each_scope_are_obeyed_off_and_on(claude: ClaudeCodeHome) -> None:
    marks = claude.home.parent / "marks"
    marks.mkdir()
    counts: dict[str, int] = {}

    def add(scope: Scope, name: str, count: int, extra: dict[str, Any] | None = None) -> None:
        claude.add(scope, name, {**_marked_entry(name, count, marks), **(extra or {})})
        counts[name] = count

    for scope in SCOPES:
        add(scope, f"tool_{scope}", 3)  # one tool switched
        add(scope, f"server_{scope}", 2)  # the whole server switched
    # Switches written the way Claude Code writes them (JSON.stringify, two spaces).
    add("local", "host.denied", 2)
    claude.settings["project"] = {"permissions": {"deny": ["mcp__host_denied__tool_0000"]}}
    add("user", "host-off", 2)
    claude.project_state["disabledMcpServers"] = ["host-off"]
    # Our old in-entry switches, which Claude Code ignores until migrated.
    add("user", "old", 3, {"tools": {"exclude": ["tool_0002"]}})
    add("local", "old-off", 2, {"disabled": True})
    claude.write()

    files = ClaudeFiles.of(claude.home, claude.project, {})
    read = read_switches(files)
    assert read.problems == ()
    denied = read.tool_denied("host.denied", "tool_0000")
    assert denied is not None and denied.where == "permissions.deny in .claude/settings.json"
    assert read.server_off("host-off", "user") is not None
    migrated = migrate_old_switches(files)
    assert len(migrated) == 2 and all("removed" in line for line in migrated)
    for scope in SCOPES:
        assert set_tool_enabled(files, f"tool_{scope}", scope, "tool_0001", False)
        assert set_server_enabled(files, f"server_{scope}", scope, False)

    off_tools = {
        "mcp__tool_user__tool_0001",
        "mcp__tool_local__tool_0001",
        "mcp__tool_project__tool_0001",
        "mcp__host_denied__tool_0000",
        "mcp__old__tool_0002",
    }
    off_servers = {"server_user", "server_local", "server_project", "host-off", "old-off"}
    every = {n for name, count in counts.items() for n in sent_names(_spelled(name), count)}
    sent = claude.mcp_tools_sent(write=False)
    expected = {n for n in every if n not in off_tools and _server_of(n) not in _spell(off_servers)}
    assert sent == sorted(expected)
    assert _started(marks) == set(counts) - off_servers

    # Back on: each of ours goes; the project's own rule and the user's /mcp switch stay.
    _clear(marks)
    for scope in SCOPES:
        assert set_tool_enabled(files, f"tool_{scope}", scope, "tool_0001", True)
        assert set_server_enabled(files, f"server_{scope}", scope, True)
    with pytest.raises(SwitchRefusedError, match=r"\.claude/settings\.json still turns it off"):
        set_tool_enabled(files, "host.denied", "local", "tool_0000", True)
    sent = claude.mcp_tools_sent(write=False)
    back = {n for n in every if _server_of(n) not in _spell({"host-off", "old-off"})}
    assert sent == sorted(back - {"mcp__host_denied__tool_0000", "mcp__old__tool_0002"})
    assert _started(marks) == set(counts) - {"host-off", "old-off"}


def _spelled(name: str) -> str:
    return name.replace(".", "_")


def _spell(names: set[str]) -> set[str]:
    return {_spelled(name) for name in names}


def _server_of(tool: str) -> str:
    return tool.split("__")[1]


def test_claude_codes_own_server_toggle_is_read_back_and_taken_back(
    claude: ClaudeCodeHome,
) -> None:
    """What ``/mcp`` writes (here through the SDK's ``mcp_toggle``, the same code) is what we
    read as off and what we write for off; our "on" takes it back and the tools return."""
    counts = {"clock": 2, "proj.srv": 2, "keep": 1}
    claude.add("user", "clock", light_entry("clock", 2))
    claude.add("project", "proj.srv", light_entry("proj.srv", 2))
    claude.add("local", "keep", light_entry("keep", 1))
    claude.write()
    claude.toggle({"clock": False, "proj.srv": False})

    files = ClaudeFiles.of(claude.home, claude.project, {})
    switches = read_switches(files)
    toggled: tuple[tuple[str, Scope], ...] = (("clock", "user"), ("proj.srv", "project"))
    for name, scope in toggled:
        off = switches.server_off(name, scope)
        assert off is not None and off.where == "disabledMcpServers in ~/.claude.json"
    # The host wrote what our off writes: ours is a no-op on it.
    assert set_server_enabled(files, "clock", "user", False) == ()
    assert sent_names("keep", 1) == claude.mcp_tools_sent(write=False)

    assert set_server_enabled(files, "clock", "user", True)
    assert set_server_enabled(files, "proj.srv", "project", True)
    every = [n for name, count in counts.items() for n in sent_names(_spelled(name), count)]
    assert claude.mcp_tools_sent(write=False) == sorted(every)
    # And Claude Code's own toggle takes back what we write.
    assert set_server_enabled(files, "keep", "local", False)
    claude.toggle({"keep": True})
    assert read_switches(files).server_off("keep", "local") is None
