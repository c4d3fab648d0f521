"""A Claude Code switch flipped: the bytes written (golden files), no-ops, refusals, broken
files, an outside edit made meanwhile."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from agentty_tui.config.hosts.claude.switches import ClaudeFiles, read_switches
from agentty_tui.config.hosts.claude.switching import (
    ListEdit,
    SwitchRefusedError,
    json_list_store,
    set_server_enabled,
    set_tool_enabled,
)
from agentty_tui.errors import ConfigError

GOLDEN = Path(__file__).parent.parent / "golden" / "claude_switches"
ROOT = "/home/ada/code/wéb-app"
"""The project of the golden ``~/.claude.json`` (it need not exist for edits of that file)."""


def _files(tmp_path: Path, root: str | Path | None = None) -> ClaudeFiles:
    home = tmp_path / "home"
    project = tmp_path / "project" if root is None else Path(root)
    home.mkdir(exist_ok=True)
    return ClaudeFiles.of(home, project, {}, managed_dir=tmp_path / "managed")


def _write(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2) + "\n")


def _bytes(files: ClaudeFiles) -> dict[Path, bytes | None]:
    """Every file's bytes (``None``: absent), to tell that nothing was written."""
    paths = (files.state, files.user_settings, files.project_settings, files.local_settings)
    return {p: p.read_bytes() if p.exists() else None for p in paths}


# --- the bytes written ------------------------------------------------------------------------


def test_a_fresh_settings_file_is_laid_out_as_claude_code_writes_one(tmp_path: Path) -> None:
    files = _files(tmp_path)
    lines = set_tool_enabled(files, "time", "user", "get_time", False)
    assert lines == ("added mcp__time__get_time to permissions.deny in ~/.claude/settings.json",)
    golden = (GOLDEN / "settings_fresh_expected.json").read_bytes()
    assert files.user_settings.read_bytes() == golden
    # What Claude Code itself writes: JSON.stringify(value, null, 2) and a newline.
    value = json.loads(golden)
    assert golden.decode() == json.dumps(value, indent=2) + "\n"


def test_an_existing_settings_file_keeps_its_layout_and_other_keys(tmp_path: Path) -> None:
    files = _files(tmp_path)
    files.user_settings.parent.mkdir(parents=True)
    shutil.copy(GOLDEN / "settings_input.json", files.user_settings)
    set_tool_enabled(files, "time", "user", "convert_time", False)
    expected = (GOLDEN / "settings_expected.json").read_bytes()
    assert files.user_settings.read_bytes() == expected
    # Back on: the rule goes, and with it the list we made; every other byte is as it was.
    set_tool_enabled(files, "time", "user", "convert_time", True)
    assert files.user_settings.read_bytes() == (GOLDEN / "settings_input.json").read_bytes()


def test_the_projects_entry_of_claude_json_is_edited_in_place(tmp_path: Path) -> None:
    files = _files(tmp_path, ROOT)
    shutil.copy(GOLDEN / "claude_json_input.json", files.state)
    assert set_server_enabled(files, "notes", "local", False) == (
        "added notes to disabledMcpServers in ~/.claude.json",
    )
    assert set_server_enabled(files, "search", "user", True) == (
        "removed search from disabledMcpServers in ~/.claude.json",
    )
    assert files.state.read_bytes() == (GOLDEN / "claude_json_expected.json").read_bytes()


# --- no-ops and idempotence -------------------------------------------------------------------


def test_each_switch_is_a_no_op_when_already_so(tmp_path: Path) -> None:
    files = _files(tmp_path)
    _write(files.state, {"projects": {str(files.root): {"hasTrustDialogAccepted": True}}})
    assert set_tool_enabled(files, "time", "local", "a", True) == ()
    assert set_server_enabled(files, "time", "user", True) == ()
    assert not files.local_settings.exists()
    assert set_tool_enabled(files, "time", "local", "a", False)
    assert set_server_enabled(files, "time", "user", False)
    written = _bytes(files)
    versions = {p: os.stat(p).st_ino for p, data in written.items() if data is not None}
    assert set_tool_enabled(files, "time", "local", "a", False) == ()
    assert set_server_enabled(files, "time", "user", False) == ()
    assert _bytes(files) == written
    assert {p: os.stat(p).st_ino for p in versions} == versions  # not even rewritten


def test_tool_off_is_a_no_op_when_a_server_wide_rule_leaves_it_out_already(
    tmp_path: Path,
) -> None:
    files = _files(tmp_path)
    _write(files.project_settings, {"permissions": {"deny": ["mcp__time__*"]}})
    assert set_tool_enabled(files, "time", "local", "a", False) == ()
    assert not files.local_settings.exists()


def test_the_rule_is_written_spelled_to_the_file_of_the_entrys_scope(tmp_path: Path) -> None:
    files = _files(tmp_path)
    set_tool_enabled(files, "dot.name", "project", "tool.x", False)
    set_tool_enabled(files, "user-one", "user", "t", False)
    local = json.loads(files.local_settings.read_text())
    assert local == {"permissions": {"deny": ["mcp__dot_name__tool_x"]}}
    assert json.loads(files.user_settings.read_text()) == {
        "permissions": {"deny": ["mcp__user-one__t"]}
    }
    switches = read_switches(files)
    assert switches.tool_denied("dot.name", "tool.x") is not None
    assert switches.tool_denied("dot.name", "other") is None


# --- refusals ---------------------------------------------------------------------------------


def test_tool_on_refuses_when_a_rule_it_may_not_remove_still_leaves_the_tool_out(
    tmp_path: Path,
) -> None:
    files = _files(tmp_path)
    _write(files.project_settings, {"permissions": {"deny": ["mcp__time__get_time"]}})
    set_tool_enabled(files, "time", "local", "get_time", False)  # a no-op: denied already
    before = _bytes(files)
    with pytest.raises(SwitchRefusedError) as caught:
        set_tool_enabled(files, "time", "local", "get_time", True)
    assert str(caught.value) == (
        "tool 'get_time' of server 'time' stays off for Claude Code: mcp__time__get_time in "
        "permissions.deny of .claude/settings.json still turns it off; it is not the user's "
        "own file; ask whoever keeps it, or leave the tool off"
    )
    assert caught.value.path == ".claude/settings.json"
    assert _bytes(files) == before


def test_tool_on_refuses_a_server_wide_rule_and_writes_nothing(tmp_path: Path) -> None:
    files = _files(tmp_path)
    _write(files.user_settings, {"permissions": {"deny": ["mcp__time__get_time", "mcp__time"]}})
    before = _bytes(files)
    with pytest.raises(SwitchRefusedError, match=r"mcp__time in permissions.deny of "):
        set_tool_enabled(files, "time", "user", "get_time", True)
    with pytest.raises(SwitchRefusedError, match="remove that rule there"):
        set_tool_enabled(files, "time", "user", "x", True)
    assert _bytes(files) == before  # our own exact rule was not taken away either


def test_server_on_refuses_a_rejection_in_the_projects_shared_settings(tmp_path: Path) -> None:
    files = _files(tmp_path)
    _write(files.project_settings, {"disabledMcpjsonServers": ["shared"]})
    _write(files.local_settings, {"disabledMcpjsonServers": ["shared"]})
    before = _bytes(files)
    with pytest.raises(SwitchRefusedError) as caught:
        set_server_enabled(files, "shared", "project", True)
    assert "shared in disabledMcpjsonServers of .claude/settings.json" in str(caught.value)
    assert _bytes(files) == before
    # A rejection there means nothing to a user or local entry of that name.
    assert set_server_enabled(files, "shared", "local", True) == ()


def test_server_on_takes_back_the_users_own_rejection_and_disabled_servers(
    tmp_path: Path,
) -> None:
    files = _files(tmp_path)
    _write(files.local_settings, {"disabledMcpjsonServers": ["dot.name"], "model": "x"})
    _write(
        files.state,
        {"projects": {str(files.root): {"disabledMcpServers": ["dot.name", "other"]}}},
    )
    assert read_switches(files).server_off("dot.name", "project") is not None
    lines = set_server_enabled(files, "dot.name", "project", True)
    assert lines == (
        "removed dot.name from disabledMcpServers in ~/.claude.json",
        "removed dot.name from disabledMcpjsonServers in .claude/settings.local.json",
    )
    assert read_switches(files).server_offs("dot.name", "project") == ()
    assert json.loads(files.local_settings.read_text()) == {"model": "x"}
    project = json.loads(files.state.read_text())["projects"][str(files.root)]
    assert project == {"disabledMcpServers": ["other"]}


# --- broken files -----------------------------------------------------------------------------


def test_a_settings_file_that_does_not_parse_stops_every_switch_and_is_left_as_it_is(
    tmp_path: Path,
) -> None:
    files = _files(tmp_path)
    files.local_settings.parent.mkdir(parents=True)
    files.local_settings.write_text('{\n  "permissions": {"deny": [\n    "mcp__a__b"\n  }\n}\n')
    before = _bytes(files)
    with pytest.raises(ConfigError, match=r"\.claude/settings\.local\.json:4:3: invalid JSON"):
        set_tool_enabled(files, "time", "local", "get_time", False)
    with pytest.raises(ConfigError, match=r"\.claude/settings\.local\.json:4:3"):
        set_server_enabled(files, "time", "user", False)
    assert _bytes(files) == before


def test_a_deny_that_is_not_a_list_of_strings_is_never_written_into(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"permissions": {"deny": "mcp__a"}}\n')
    with pytest.raises(ConfigError, match=r"field 'permissions\.deny': must be a list of strings"):
        json_list_store(path).apply(ListEdit(("permissions", "deny"), "mcp__b", True))
    path.write_text('{"permissions": ["mcp__a"]}\n')
    with pytest.raises(ConfigError, match=r"field 'permissions': must be an object, not an array"):
        json_list_store(path).apply(ListEdit(("permissions", "deny"), "mcp__b", True))
    assert path.read_text() == '{"permissions": ["mcp__a"]}\n'


def test_a_file_repeating_a_key_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    text = '{"permissions": {"deny": []}, "permissions": {"deny": ["mcp__a"]}}\n'
    path.write_text(text)
    with pytest.raises(ConfigError, match="repeats the key"):
        json_list_store(path).apply(ListEdit(("permissions", "deny"), "mcp__b", True))
    assert path.read_text() == text


# --- an outside edit meanwhile ----------------------------------------------------------------


def test_an_outside_edit_made_mid_write_is_kept_and_our_edit_lands(tmp_path: Path) -> None:
    path = tmp_path / "settings.local.json"
    path.write_text('{\n  "model": "sonnet"\n}\n')
    store = json_list_store(path)
    calls: list[Path] = []

    def meanwhile(target: Path) -> None:
        if not calls:  # Claude Code saves its own change once, between our read and rename
            target.write_text('{\n  "model": "opus",\n  "permissions": {"allow": ["Read"]}\n}\n')
        calls.append(target)

    store._before_replace = meanwhile
    store.apply(ListEdit(("permissions", "deny"), "mcp__time__get_time", True, prune=1))
    assert len(calls) == 2  # the first attempt saw the change and started over
    assert json.loads(path.read_text()) == {
        "model": "opus",
        "permissions": {"allow": ["Read"], "deny": ["mcp__time__get_time"]},
    }


def test_claude_json_keeps_crlf_line_endings_and_every_other_project(tmp_path: Path) -> None:
    files = _files(tmp_path)
    text = json.dumps(
        {"projects": {"/else": {"a": [1]}, str(files.root): {"x": 1}}, "z": True}, indent=2
    )
    files.state.write_bytes(text.replace("\n", "\r\n").encode())
    set_server_enabled(files, "s", "local", False)
    data = files.state.read_bytes()
    assert b"\n" not in data.replace(b"\r\n", b"")
    expected = text.replace(
        '"x": 1\n', '"x": 1,\n      "disabledMcpServers": [\n        "s"\n      ]\n'
    )
    assert data.decode() == expected.replace("\n", "\r\n")
