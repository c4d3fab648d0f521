"""Claude Code's managed MCP file in a workspace: under its exclusive control only its
servers run for Claude Code (every other entry of Claude's is off, saying why), they are
read-only, switched where Claude Code obeys it, and nothing is added to Claude Code's files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentty_tui.config.engine import AddServer, RemoveServer, SetServerDisabled, SetToolEnabled
from agentty_tui.config.workspace import Workspace, add_targets, open_workspace
from agentty_tui.errors import OperationError
from agentty_tui.model import ServerConfig, StdioSpec


def _write(path: Path, value: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2))
    return path


def _json(path: Path) -> Any:
    return json.loads(path.read_text())


def _entry(command: str) -> dict[str, Any]:
    return {"type": "stdio", "command": command, "args": [], "env": {}}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home whose Claude Code holds ``mine`` (user), ``here`` (local) and ``shared``
    (``.mcp.json``, approved), and ``time`` (user) which the managed file holds too, with
    another command; the managed file also holds ``corp``."""
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    state = {
        "mcpServers": {"mine": _entry("mine-server"), "time": _entry("user-time")},
        "projects": {str(project): {"mcpServers": {"here": _entry("here-server")}}},
    }
    _write(home / ".claude.json", state)
    _write(project / ".mcp.json", {"mcpServers": {"shared": _entry("shared-server")}})
    _write(project / ".claude" / "settings.local.json", {"enabledMcpjsonServers": ["shared"]})
    managed = {"mcpServers": {"corp": _entry("corp-server"), "time": _entry("corp-time")}}
    _write(tmp_path / "managed" / "managed-mcp.json", managed)
    return home


def _open(home: Path) -> Workspace:
    env = {"XDG_CONFIG_HOME": str(home / ".config")}
    managed = home.parent / "managed"
    return open_workspace(home.parent / "project", home=home, env=env, claude_managed=managed)


def _server(workspace: Workspace, name: str) -> ServerConfig:
    server = workspace.load().server(name)
    assert server is not None
    return server


def test_only_the_managed_files_servers_run_for_claude_code(home: Path) -> None:
    workspace = _open(home)
    managed = home.parent / "managed" / "managed-mcp.json"
    corp = _server(workspace, "corp")
    assert (
        corp.source is not None
        and corp.source.admin == "managed"
        and corp.source.path == str(managed)
    )
    assert not corp.disabled and corp.untrusted is None
    (view,) = corp.hosts
    assert view.tool_switch == "permissions.deny in ~/.claude/settings.json"
    assert view.server_switch == "disabledMcpServers in ~/.claude.json"
    lockdown = f"{managed} has exclusive control: Claude Code runs only its servers"
    assert workspace.claude_lockdown == lockdown
    for name in ("mine", "here", "shared"):
        server = _server(workspace, name)
        assert server.disabled and server.hosts[0].off_by == lockdown, name
    # The managed entry is the one Claude Code runs under that name; the user's is shadowed.
    config = workspace.load()
    time = config.server("time")
    assert time is not None and time.spec == StdioSpec(command="corp-time")
    (hidden,) = config.shadowed
    assert hidden.entry_name == "time" and hidden.shadowed_by == time.source
    assert managed in workspace.watched_paths()
    assert {r.source.ref.path for r in workspace.reports} >= {str(managed)}


def test_without_the_managed_file_every_entry_runs_as_before(home: Path) -> None:
    (home.parent / "managed" / "managed-mcp.json").unlink()
    workspace = _open(home)
    assert workspace.claude_lockdown is None
    assert workspace.load().server("corp") is None
    for name in ("mine", "here", "shared", "time"):
        assert not _server(workspace, name).disabled, name


def test_a_managed_file_claude_code_skips_is_a_warning_and_changes_nothing(home: Path) -> None:
    managed = home.parent / "managed" / "managed-mcp.json"
    managed.write_text('{"mcpServers": ')
    workspace = _open(home)
    config = workspace.load()
    assert workspace.claude_lockdown is None and config.server("corp") is None
    assert any(w.startswith(f"{managed}: not read") for w in config.warnings)
    assert not _server(workspace, "mine").disabled


def test_a_managed_server_is_switched_where_claude_code_obeys_it(home: Path) -> None:
    workspace = _open(home)
    workspace.load()
    workspace.apply(SetToolEnabled(server="corp", tool="get", enabled=False))
    workspace.apply(SetServerDisabled(server="corp", disabled=True))
    deny = _json(home / ".claude" / "settings.json")["permissions"]["deny"]
    assert deny == ["mcp__corp__get"]
    root = str(home.parent / "project")
    assert _json(home / ".claude.json")["projects"][root]["disabledMcpServers"] == ["corp"]
    corp = _server(workspace, "corp")
    assert corp.disabled and corp.tools.exclude == ("get",)
    assert corp.hosts[0].off_by == "disabledMcpServers in ~/.claude.json"
    workspace.apply(SetToolEnabled(server="corp", tool="get", enabled=True))
    workspace.apply(SetServerDisabled(server="corp", disabled=False))
    corp = _server(workspace, "corp")
    assert not corp.disabled and corp.tools.exclude == ()


def test_a_managed_server_denied_by_policy_is_off(home: Path) -> None:
    policy = {"deniedMcpServers": [{"serverName": "corp"}]}
    _write(home.parent / "managed" / "managed-settings.json", policy)
    corp = _server(_open(home), "corp")
    assert corp.disabled
    assert corp.hosts[0].off_by == "deniedMcpServers in " + str(
        home.parent / "managed" / "managed-settings.json"
    )


def test_the_managed_file_is_not_edited_and_nothing_is_added_to_claude_codes(home: Path) -> None:
    managed = home.parent / "managed" / "managed-mcp.json"
    before, state = managed.read_bytes(), (home / ".claude.json").read_bytes()
    workspace = _open(home)
    config = workspace.load()
    with pytest.raises(OperationError, match=r"Claude Code's managed MCP file, kept by"):
        workspace.apply(RemoveServer(name="corp"))
    claude_user = next(
        s.ref for s in workspace.sources if s.ref.host == "claude" and s.ref.scope == "user"
    )
    add = AddServer(name="new", spec=StdioSpec(command="new-server"))
    with pytest.raises(OperationError, match=r"cannot add a server to Claude Code's files: "):
        workspace.apply(add, source=claude_user)
    assert managed.read_bytes() == before and (home / ".claude.json").read_bytes() == state
    assert all(ref.host != "claude" for ref in add_targets(workspace))
    workspace.apply(add)  # our own file still takes it
    assert config.server("new") is None and _server(workspace, "new").source == workspace.add_to


def test_an_entry_the_lockdown_keeps_off_is_not_turned_on_but_may_be_turned_off(
    home: Path,
) -> None:
    workspace = _open(home)
    workspace.load()
    with pytest.raises(OperationError, match=r"cannot turn 'mine' on for Claude Code: .*exclusive"):
        workspace.apply(SetServerDisabled(server="mine", disabled=False))
    with pytest.raises(OperationError, match=r"exclusive control"):
        workspace.apply(SetToolEnabled(server="mine", tool="get", enabled=True))
    assert not (home / ".claude" / "settings.json").exists()
    workspace.apply(SetToolEnabled(server="mine", tool="get", enabled=False))
    assert _json(home / ".claude" / "settings.json") == {
        "permissions": {"deny": ["mcp__mine__get"]}
    }
