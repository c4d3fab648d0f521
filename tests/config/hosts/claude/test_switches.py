"""Claude Code's switches for one project, read from every file it reads them from: spelling,
rules, where each switch is, approvals, and files that cannot be read."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agentty_tui.config.files import MAX_CONFIG_BYTES
from agentty_tui.config.hosts.claude.switches import (
    ClaudeFiles,
    claude_spelled,
    deny_rule,
    parse_mcp_rule,
    read_switches,
)
from agentty_tui.model import Scope, SourceRef


def _files(tmp_path: Path) -> ClaudeFiles:
    (tmp_path / "home").mkdir(exist_ok=True)
    return ClaudeFiles.of(
        tmp_path / "home", tmp_path / "project", {}, managed_dir=tmp_path / "managed"
    )


def _write(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2) + "\n")


@pytest.mark.parametrize(
    ("name", "spelled"),
    [
        ("time", "time"),
        ("dot.name", "dot_name"),
        ("ünï", "_n_"),  # per character, not per byte
        ("plus+at@", "plus_at_"),
        ("space name", "space_name"),
        ("Dash-X_y", "Dash-X_y"),
        ("a__b", "a__b"),
        ("x" * 70, "x" * 70),
        ("claude.ai My  Drive", "claude_ai_My_Drive"),
    ],
)
def test_names_are_spelled_as_claude_code_spells_them(name: str, spelled: str) -> None:
    assert claude_spelled(name) == spelled


def test_a_deny_rule_spells_server_and_tool() -> None:
    assert deny_rule("dot.name", "get.time") == "mcp__dot_name__get_time"
    assert parse_mcp_rule("mcp__dot_name__get_time") == ("dot_name", "get_time")
    assert parse_mcp_rule("mcp__time") == ("time", None)
    assert parse_mcp_rule("mcp__a__b__t") == ("a", "b__t")
    assert parse_mcp_rule("Bash(ls)") is None
    assert parse_mcp_rule("mcp__") is None


def test_each_settings_file_is_read_with_where_each_rule_is(tmp_path: Path) -> None:
    files = _files(tmp_path)
    _write(files.user_settings, {"permissions": {"deny": ["mcp__time__a", "Bash(rm:*)"]}})
    _write(files.project_settings, {"permissions": {"deny": ["mcp__time__*"]}})
    _write(files.local_settings, {"permissions": {"deny": ["mcp__dot_name__b"]}})
    _write(files.managed_dir / "managed-settings.json", {"permissions": {"deny": ["mcp__m"]}})
    _write(files.managed_dir / "managed-settings.d" / "20-b.json", {"permissions": {"deny": []}})
    _write(
        files.managed_dir / "managed-settings.d" / "10-a.json",
        {"permissions": {"deny": ["mcp__m2__x"]}},
    )
    _write(files.managed_dir / "managed-settings.d" / ".hidden.json", {"x": 1})
    switches = read_switches(files)
    assert switches.problems == ()
    assert [(s.value, s.shown_file) for s in switches.deny] == [
        ("mcp__time__a", "~/.claude/settings.json"),
        ("mcp__time__*", ".claude/settings.json"),
        ("mcp__dot_name__b", ".claude/settings.local.json"),
        ("mcp__m", str(files.managed_dir / "managed-settings.json")),
        ("mcp__m2__x", str(files.managed_dir / "managed-settings.d" / "10-a.json")),
    ]
    denied = switches.tool_denied("time", "a")
    assert denied is not None
    assert denied.text == "mcp__time__a in permissions.deny of ~/.claude/settings.json"
    assert denied.where == "permissions.deny in ~/.claude/settings.json"
    assert denied.own
    wide = switches.tool_denied("time", "other")
    assert wide is not None and wide.value == "mcp__time__*" and not wide.own
    assert len(switches.tool_denials("time", "a")) == 2
    assert switches.server_denied("time") == wide
    assert switches.tool_denied("dot.name", "b") is not None  # the name spelled
    assert switches.tool_denied("dot.name", "c") is None
    assert switches.tool_denied("m", "anything") is not None
    assert switches.tool_denied("m2", "x") is not None
    assert switches.denied_tools("dot.name") == {"b": switches.deny[2]}


def test_an_entry_is_summed_up_for_a_row(tmp_path: Path) -> None:
    files = _files(tmp_path)
    _write(files.local_settings, {"permissions": {"deny": ["mcp__p__b"]}})
    _write(files.state, {"projects": {str(files.root): {"disabledMcpServers": ["gone"]}}})
    switches = read_switches(files)

    def ref(scope: Scope) -> SourceRef:
        return SourceRef(path=str(files.state), scope=scope, host="claude")

    entry = switches.host_view("p", ref("project"))
    assert not entry.off and [t for t in "abc" if entry.sends(t)] == ["a", "c"]
    assert entry.tools.exclude == ("b",)
    assert entry.tool_switch == "permissions.deny in .claude/settings.local.json"
    assert entry.approved is False  # pending
    gone = switches.host_view("gone", ref("user"))
    assert not gone.sends("a") and gone.approved is None
    assert gone.off_by == "disabledMcpServers in ~/.claude.json"
    plain = switches.host_view("plain", ref("local"))
    assert plain.off_by is None and plain.sends("a")


def test_a_rule_with_the_unspelled_name_does_nothing(tmp_path: Path) -> None:
    files = _files(tmp_path)
    _write(files.user_settings, {"permissions": {"deny": ["mcp__dot.name__b", "mcp__dot.name"]}})
    switches = read_switches(files)
    assert switches.tool_denied("dot.name", "b") is None
    assert switches.server_denied("dot.name") is None


def test_disabled_servers_of_this_project_only(tmp_path: Path) -> None:
    files = _files(tmp_path)
    _write(
        files.state,
        {
            "projects": {
                "/elsewhere": {"disabledMcpServers": ["other"]},
                str(files.root): {"disabledMcpServers": ["clock", "dot.name"]},
            },
            "disabledMcpServers": ["top"],
        },
    )
    switches = read_switches(files)
    off = switches.server_off("clock", "user")
    assert off is not None and off.where == "disabledMcpServers in ~/.claude.json"
    assert switches.server_off("clock", "project") == off
    assert switches.server_off("other", "local") is None
    assert switches.server_off("top", "user") is None
    # Compared as written, as Claude Code compares this list.
    assert switches.server_off("dot_name", "local") is None


def test_mcp_json_approvals_rejection_wins_and_names_are_compared_spelled(tmp_path: Path) -> None:
    files = _files(tmp_path)
    _write(files.local_settings, {"enabledMcpjsonServers": ["ok", "both", "dot.name"]})
    _write(files.project_settings, {"disabledMcpjsonServers": ["both"]})
    _write(
        files.state,
        {"projects": {str(files.root): {"disabledMcpjsonServers": ["legacy"]}}},
    )
    switches = read_switches(files)
    assert switches.approval("ok").state == "approved"
    assert switches.approval("dot_name").state == "approved"
    both = switches.approval("both")
    assert both.state == "rejected" and not both.headless_starts
    assert (
        both.by is not None and both.by.where == "disabledMcpjsonServers in .claude/settings.json"
    )
    assert switches.server_off("both", "project") == both.by
    assert switches.server_off("both", "local") is None  # a rejection is for .mcp.json only
    legacy = switches.server_off("legacy", "project")
    assert legacy is not None and legacy.where == "disabledMcpjsonServers in ~/.claude.json"
    pending = switches.approval("new")
    assert pending.state == "pending" and pending.by is None and pending.headless_starts
    _write(files.user_settings, {"enableAllProjectMcpServers": True})
    assert read_switches(files).approval("new").state == "approved"


def test_claude_config_dir_moves_the_users_files(tmp_path: Path) -> None:
    files = ClaudeFiles.of(tmp_path / "home", "/p", {"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")})
    assert files.user_settings == tmp_path / "cfg" / "settings.json"
    assert files.state == tmp_path / "cfg" / ".claude.json"
    assert files.local_settings == Path("/p/.claude/settings.local.json")
    with pytest.raises(ValueError, match="absolute"):
        ClaudeFiles.of(tmp_path, "relative/project")


def test_a_project_at_the_home_folder_reads_the_users_settings_once(tmp_path: Path) -> None:
    files = ClaudeFiles.of(tmp_path, tmp_path, {}, managed_dir=tmp_path / "managed")
    assert files.project_settings == files.user_settings
    _write(files.user_settings, {"permissions": {"deny": ["mcp__a__b"]}})
    switches = read_switches(files)
    assert [s.value for s in switches.deny] == ["mcp__a__b"]
    assert switches.deny[0].own


def test_the_files_to_watch_are_every_file_read(tmp_path: Path) -> None:
    files = _files(tmp_path)
    _write(files.managed_dir / "managed-settings.d" / "a.json", {})
    watched = set(files.watched())
    assert {
        files.state,
        files.user_settings,
        files.project_settings,
        files.local_settings,
        files.managed_dir / "managed-settings.json",
        files.managed_dir / "managed-settings.d",
        files.managed_dir / "managed-settings.d" / "a.json",
    } <= watched


# --- untrusted input --------------------------------------------------------------------------


def test_a_file_that_does_not_parse_is_a_problem_naming_file_and_line(tmp_path: Path) -> None:
    files = _files(tmp_path)
    files.project_settings.parent.mkdir(parents=True)
    files.project_settings.write_text('{\n  "permissions": {\n    "deny": ["mcp__a"],\n}\n')
    _write(files.local_settings, {"permissions": {"deny": ["mcp__b"]}})
    switches = read_switches(files)
    assert len(switches.problems) == 1
    assert switches.problems[0].startswith(".claude/settings.json:4:1: invalid JSON")
    assert [s.value for s in switches.deny] == ["mcp__b"]  # the other files are read


@pytest.mark.parametrize(
    ("settings", "problem"),
    [
        (
            {"permissions": {"deny": "mcp__a"}},
            "field 'permissions.deny': must be a list of strings",
        ),
        ({"permissions": {"deny": ["mcp__a", 3]}}, "field 'permissions.deny': must be a list"),
        ({"permissions": ["mcp__a"]}, "field 'permissions': must be an object, not an array"),
        ({"disabledMcpjsonServers": {"a": 1}}, "field 'disabledMcpjsonServers': must be a list"),
        ({"enableAllProjectMcpServers": "yes"}, "field 'enableAllProjectMcpServers': must be"),
        ([1, 2], "the top level must be an object, not an array"),
    ],
)
def test_a_key_of_the_wrong_type_is_a_problem_naming_file_and_field(
    tmp_path: Path, settings: object, problem: str
) -> None:
    files = _files(tmp_path)
    _write(files.user_settings, settings)
    switches = read_switches(files)
    assert len(switches.problems) == 1
    assert switches.problems[0].startswith("~/.claude/settings.json: ")
    assert problem in switches.problems[0]
    assert switches.deny == () and switches.enable_all == ()


def test_claude_json_problems_name_the_project_field(tmp_path: Path) -> None:
    files = _files(tmp_path)
    _write(files.state, {"projects": {str(files.root): {"disabledMcpServers": "clock"}}})
    (problem,) = read_switches(files).problems
    key = json.dumps(str(files.root))
    assert problem == (
        f"~/.claude.json: field 'projects[{key}].disabledMcpServers': "
        "must be a list of strings; not read"
    )
    _write(files.state, {"projects": {str(files.root): 7}})
    assert "must be an object (the project's settings)" in read_switches(files).problems[0]
    files.state.write_text('{"projects": {\n"x": }')
    assert read_switches(files).problems[0].startswith("~/.claude.json:2:6: invalid JSON")


def test_a_huge_or_odd_settings_file_is_a_problem_not_a_hang(tmp_path: Path) -> None:
    files = _files(tmp_path)
    files.user_settings.parent.mkdir(parents=True)
    with open(files.user_settings, "wb") as handle:
        handle.truncate(MAX_CONFIG_BYTES + 1)
    files.project_settings.parent.mkdir(parents=True)
    os.mkfifo(files.project_settings)
    problems = read_switches(files).problems
    assert problems[0].startswith("~/.claude/settings.json: 16.8 MB is over the 16 MiB limit")
    assert problems[1] == ".claude/settings.json: not a regular file (a FIFO)"
