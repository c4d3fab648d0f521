"""Our old in-entry switches in Claude Code's files, moved to the switches it obeys."""

from __future__ import annotations

import json
from pathlib import Path

from agentty_tui.config.hosts.claude.migration import migrate_old_switches
from agentty_tui.config.hosts.claude.switches import ClaudeFiles, read_switches


def _files(tmp_path: Path) -> ClaudeFiles:
    (tmp_path / "home").mkdir(exist_ok=True)
    (tmp_path / "project").mkdir(exist_ok=True)
    return ClaudeFiles.of(
        tmp_path / "home", tmp_path / "project", {}, managed_dir=tmp_path / "managed"
    )


def _entry(**extra: object) -> dict[str, object]:
    return {"type": "stdio", "command": "srv", "args": [], "env": {}, **extra}


def _setup(files: ClaudeFiles) -> None:
    state = {
        "numStartups": 4,
        "projects": {
            str(files.root): {
                "hasTrustDialogAccepted": True,
                "mcpServers": {"loc": _entry(disabled=True), "plain": _entry()},
            }
        },
        "mcpServers": {
            "time": _entry(tools={"exclude": ["convert_time"]}),
            "allow": _entry(tools={"include": ["a"]}),
        },
    }
    files.state.write_text(json.dumps(state, indent=2))
    mcp = {"mcpServers": {"p.x": _entry(tools={"include": ["a"], "exclude": ["b"]}, disabled=True)}}
    files.mcp_json.write_text(json.dumps(mcp, indent=2))


def test_old_switches_move_to_claude_codes_own_and_leave_the_entries(tmp_path: Path) -> None:
    files = _files(tmp_path)
    _setup(files)
    lines = migrate_old_switches(files, {"p.x": ["a", "b", "c"]})
    assert lines == (
        "time (user entry in ~/.claude.json): added mcp__time__convert_time to "
        "permissions.deny in ~/.claude/settings.json; removed tools from the entry",
        "allow (user entry in ~/.claude.json): left as it is: its tools.include allow-list "
        "becomes deny rules for the tools it does not list, and its tools are not known yet",
        "loc (local entry in ~/.claude.json): added loc to disabledMcpServers in "
        "~/.claude.json; removed disabled from the entry",
        "p.x (project entry in .mcp.json): added mcp__p_x__b to permissions.deny in "
        ".claude/settings.local.json; added mcp__p_x__c to permissions.deny in "
        ".claude/settings.local.json; added p.x to disabledMcpServers in ~/.claude.json; "
        "removed tools and disabled from the entry",
    )
    state = json.loads(files.state.read_text())
    assert state["mcpServers"]["time"] == _entry()
    assert state["mcpServers"]["allow"] == _entry(tools={"include": ["a"]})
    project = state["projects"][str(files.root)]
    assert project["mcpServers"] == {"loc": _entry(), "plain": _entry()}
    assert project["disabledMcpServers"] == ["loc", "p.x"]
    assert state["numStartups"] == 4
    assert json.loads(files.mcp_json.read_text()) == {"mcpServers": {"p.x": _entry()}}
    switches = read_switches(files)
    assert switches.tool_denied("time", "convert_time") is not None
    assert switches.tool_denied("p.x", "a") is None
    assert switches.tool_denied("p.x", "c") is not None
    assert switches.server_off("p.x", "project") is not None
    # Once is enough: again, only the entry that could not move says so.
    assert migrate_old_switches(files, {"p.x": ["a", "b", "c"]}) == lines[1:2]
    # With its tools known, the allow-list moves too.
    (line,) = migrate_old_switches(files, {"allow": ["a", "b"]})
    assert line == (
        "allow (user entry in ~/.claude.json): added mcp__allow__b to permissions.deny in "
        "~/.claude/settings.json; removed tools from the entry"
    )


def test_a_switch_said_already_is_not_written_twice(tmp_path: Path) -> None:
    files = _files(tmp_path)
    files.state.write_text(
        json.dumps({"mcpServers": {"time": _entry(tools={"exclude": ["t"]})}}, indent=2)
    )
    files.user_settings.parent.mkdir(parents=True)
    files.user_settings.write_text('{"permissions": {"deny": ["mcp__time"]}}\n')
    (line,) = migrate_old_switches(files)
    assert line == (
        "time (user entry in ~/.claude.json): Claude Code's switches said so already; "
        "removed tools from the entry"
    )
    assert files.user_settings.read_text() == '{"permissions": {"deny": ["mcp__time"]}}\n'


def test_a_file_that_does_not_parse_is_left_as_it_is_with_a_line(tmp_path: Path) -> None:
    files = _files(tmp_path)
    files.mcp_json.write_text('{"mcpServers": {"p": {"command": "x", "disabled": true},}}')
    files.state.write_text(json.dumps({"mcpServers": {"u": _entry(disabled=True)}}))
    files.local_settings.parent.mkdir(parents=True)
    files.local_settings.write_text("{")
    lines = migrate_old_switches(files)
    assert lines[0].startswith("u (user entry in ~/.claude.json): not migrated: Claude Code's")
    assert ".claude/settings.local.json:1:2" in lines[0]
    assert lines[1].startswith(f".mcp.json (project): not migrated: {files.mcp_json}:1:57: ")
    assert json.loads(files.state.read_text()) == {"mcpServers": {"u": _entry(disabled=True)}}
