"""Claude Code's managed MCP file read as Claude Code reads it: exclusive control only when
the file reads and holds an object ``mcpServers``; a file it would skip says why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentty_tui.config.hosts.claude.managed import (
    MANAGED_DIALECT,
    MAX_MANAGED_BYTES,
    read_managed_servers,
)
from agentty_tui.config.hosts.claude.switches import ClaudeFiles
from agentty_tui.model import StdioSpec


@pytest.fixture
def files(tmp_path: Path) -> ClaudeFiles:
    """Claude Code's files with the managed folder in ``tmp_path`` (``/etc`` is not ours)."""
    (tmp_path / "managed").mkdir()
    return ClaudeFiles.of(
        tmp_path / "home", tmp_path / "project", {}, managed_dir=tmp_path / "managed"
    )


def test_no_file_takes_no_control(files: ClaudeFiles) -> None:
    managed = read_managed_servers(files)
    assert not managed.exclusive and managed.part is None and managed.problem is None
    assert managed.path == files.managed_dir / "managed-mcp.json" == files.managed_mcp
    assert files.managed_mcp in files.watched()


def test_a_file_of_servers_takes_exclusive_control_and_its_servers_are_read_only(
    files: ClaudeFiles,
) -> None:
    entry = {"type": "stdio", "command": "corp-server", "args": ["-x"], "env": {}}
    switched = {"command": "other", "tools": {"exclude": ["a"]}, "disabled": True}
    files.managed_mcp.write_text(json.dumps({"mcpServers": {"corp": entry, "two": switched}}))
    managed = read_managed_servers(files)
    assert managed.exclusive and managed.problem is None and managed.part is not None
    source, config = managed.part
    assert source.dialect == MANAGED_DIALECT
    assert (
        source.ref.admin == "managed" and source.ref.host == "claude" and source.ref.scope == "user"
    )
    assert source.ref.label == "claude · managed"
    corp, two = config.servers
    assert corp.name == "corp" and corp.spec == StdioSpec(command="corp-server", args=("-x",))
    # Switches inside an entry are ignored by Claude Code: only its own count.
    assert not two.disabled and two.tools.exclude == ()
    assert str(files.managed_mcp) in managed.lockdown


def test_an_empty_server_object_is_a_lockdown_with_no_server(files: ClaudeFiles) -> None:
    files.managed_mcp.write_text('{"mcpServers": {}}')
    managed = read_managed_servers(files)
    assert managed.exclusive and managed.part is not None and managed.part[1].servers == ()


def test_an_invalid_entry_is_shown_with_its_problem_and_the_others_read(
    files: ClaudeFiles,
) -> None:
    files.managed_mcp.write_text(json.dumps({"mcpServers": {"bad": 3, "ok": {"command": "x"}}}))
    managed = read_managed_servers(files)
    assert managed.exclusive and managed.part is not None
    bad, ok = managed.part[1].servers
    assert bad.problem is not None and str(files.managed_mcp) in bad.problem and bad.spec is None
    assert ok.problem is None


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "empty"),
        ("{not json", "not read"),
        ("[1]", "the top level must be an object, not an array"),
        ('{"servers": {}}', "mcpServers must be an object, not null"),
        ('{"mcpServers": []}', "mcpServers must be an object, not an array"),
    ],
)
def test_a_file_claude_code_skips_takes_no_control(files: ClaudeFiles, text: str, why: str) -> None:
    files.managed_mcp.write_text(text)
    managed = read_managed_servers(files)
    assert not managed.exclusive and managed.part is None
    assert managed.problem is not None
    assert managed.problem.startswith(f"{files.managed_mcp}: {why}")
    assert "Claude Code skips it" in managed.problem


def test_a_folder_or_a_file_over_its_limit_takes_no_control(files: ClaudeFiles) -> None:
    files.managed_mcp.mkdir()
    managed = read_managed_servers(files)
    assert not managed.exclusive and managed.problem is not None
    assert "not a regular file" in managed.problem
    files.managed_mcp.rmdir()
    text = '{"mcpServers": {}}'
    files.managed_mcp.write_text(text.ljust(MAX_MANAGED_BYTES + 1))  # one byte over
    managed = read_managed_servers(files)
    assert not managed.exclusive and managed.problem is not None
    assert f"larger than {MAX_MANAGED_BYTES} bytes" in managed.problem
    files.managed_mcp.write_text(text.ljust(MAX_MANAGED_BYTES))
    assert read_managed_servers(files).exclusive  # exactly at the limit: read


def test_a_file_others_may_change_has_its_servers_wait_for_trust(files: ClaudeFiles) -> None:
    files.managed_mcp.write_text(json.dumps({"mcpServers": {"corp": {"command": "x"}}}))
    managed = read_managed_servers(files)
    assert managed.part is not None and managed.part[1].insecure is None
    files.managed_mcp.chmod(0o666)
    managed = read_managed_servers(files)
    assert managed.part is not None and managed.part[1].insecure is not None
