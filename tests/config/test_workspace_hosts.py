"""Each host's part of a workspace server: what it does with its entry, and switches written
for every host that holds the server where that host reads them (``hosts/switches.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentty_tui.config.engine import SetServerDisabled, SetToolEnabled
from agentty_tui.config.workspace import Workspace, open_workspace
from agentty_tui.errors import OperationError

ENTRY: dict[str, object] = {"command": "echo-server", "args": ["--x"]}
CODEX_ENTRY = '[mcp_servers.echo]\ncommand = "echo-server"\nargs = ["--x"]\n'


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o600)
    return path


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "project" / ".git").mkdir(parents=True)
    return tmp_path / "home"


def _open(home: Path) -> Workspace:
    env = {"XDG_CONFIG_HOME": str(home / ".config")}
    return open_workspace(home.parent / "project", home=home, env=env)


def _cursor(home: Path, entry: dict[str, object]) -> Path:
    return _write(home / ".cursor" / "mcp.json", json.dumps({"mcpServers": {"echo": entry}}))


def test_a_host_without_switches_sends_every_tool_whatever_its_entry_holds(home: Path) -> None:
    # Cursor ignores our old keys: the truth is that it starts the server and sends them all.
    path = _cursor(home, {**ENTRY, "disabled": True, "tools": {"exclude": ["echo"]}})
    server = _open(home).load().server("echo")
    assert server is not None and not server.disabled and server.tools.allows("echo")
    (view,) = server.hosts
    assert (view.source.host, view.off, view.tool_switch, view.server_switch) == (
        "cursor",
        False,
        None,
        None,
    )
    before = path.read_bytes()
    workspace = _open(home)
    workspace.load()
    with pytest.raises(
        OperationError,
        match=r"Cursor has no per-tool switch in its files.*agentty-tui connect cursor",
    ):
        workspace.apply(SetToolEnabled(server="echo", tool="echo", enabled=False))
    with pytest.raises(OperationError, match="Cursor has no server switch in its files"):
        workspace.apply(SetServerDisabled(server="echo", disabled=True))
    assert path.read_bytes() == before  # nothing it would ignore is written


def test_a_switch_is_written_for_every_host_that_holds_the_server(home: Path) -> None:
    codex = _write(home / ".codex" / "config.toml", CODEX_ENTRY)
    gemini = _write(home / ".gemini" / "settings.json", json.dumps({"mcpServers": {"echo": ENTRY}}))
    workspace = _open(home)
    workspace.load()
    after = workspace.apply(SetToolEnabled(server="echo", tool="echo", enabled=False))
    assert 'disabled_tools = ["echo"]' in codex.read_text()
    assert json.loads(gemini.read_text())["mcpServers"]["echo"]["excludeTools"] == ["echo"]
    server = after.server("echo")
    assert server is not None and not server.tools.allows("echo")
    assert [(v.source.host, v.tools.allows("echo")) for v in server.hosts] == [
        ("gemini", False),
        ("codex", False),
    ]


def test_a_tool_stays_on_while_a_host_without_switches_still_sends_it(home: Path) -> None:
    codex = _write(home / ".codex" / "config.toml", CODEX_ENTRY)
    _cursor(home, ENTRY)
    workspace = _open(home)
    workspace.load()
    after = workspace.apply(SetToolEnabled(server="echo", tool="echo", enabled=False))
    assert 'disabled_tools = ["echo"]' in codex.read_text()
    server = after.server("echo")
    assert server is not None
    # Never "off" for a tool a host still sends: Cursor does.
    assert server.tools.allows("echo")
    sends = {view.source.host: view.sends("echo") for view in server.hosts}
    assert sends == {"cursor": True, "codex": False}
    off = workspace.apply(SetServerDisabled(server="echo", disabled=True)).server("echo")
    assert off is not None and not off.disabled  # Cursor still starts it
    assert {v.source.host: v.off for v in off.hosts} == {"cursor": False, "codex": True}


def test_old_switches_in_claude_codes_entries_are_moved_to_its_own_once_with_a_line(
    home: Path,
) -> None:
    # Our earlier versions wrote tools.exclude and disabled into Claude Code's entries, which
    # it ignores: the first load moves them to the deny rule and disabledMcpServers it obeys.
    old = {**ENTRY, "tools": {"exclude": ["echo"]}, "disabled": True}
    state = _write(home / ".claude.json", json.dumps({"mcpServers": {"echo": old}}))
    workspace = _open(home)
    config = workspace.load()
    (said,) = [w for w in config.warnings if "Claude Code ignores tools and disabled" in w]
    assert "echo (user entry in ~/.claude.json)" in said, said
    assert json.loads(state.read_text())["mcpServers"]["echo"] == ENTRY
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    assert settings["permissions"]["deny"] == ["mcp__echo__echo"]
    project = json.loads(state.read_text())["projects"][str(home.parent / "project")]
    assert project["disabledMcpServers"] == ["echo"]
    server = config.server("echo")
    assert server is not None and server.disabled and not server.tools.allows("echo")
    assert server.hosts[0].off_by == "disabledMcpServers in ~/.claude.json"
    again = workspace.load()
    assert not [w for w in again.warnings if "Claude Code ignores" in w]
    assert again.server("echo") == server


def test_a_project_servers_approval_in_claude_code_is_part_of_its_view(home: Path) -> None:
    project = home.parent / "project"
    _write(project / ".mcp.json", json.dumps({"mcpServers": {"echo": ENTRY, "other": ENTRY}}))
    local = {"enabledMcpjsonServers": ["echo"]}
    _write(project / ".claude" / "settings.local.json", json.dumps(local))
    config = _open(home).load()
    approved = {s.name: s.hosts[0].approved for s in config.servers}
    assert approved == {"echo": True, "other": False}


def test_a_switch_goes_to_the_entry_the_host_runs_not_to_its_other_scopes(home: Path) -> None:
    # Gemini CLI runs its project entry over a user one of the same name: an excludeTools in
    # the user's file would turn the tool off in every project, so only the project's changes.
    servers = json.dumps({"mcpServers": {"echo": ENTRY}})
    user = _write(home / ".gemini" / "settings.json", servers)
    project = _write(home.parent / "project" / ".gemini" / "settings.json", servers)
    workspace = _open(home)
    workspace.load()
    workspace.apply(SetToolEnabled(server="echo", tool="echo", enabled=False))
    assert json.loads(project.read_text())["mcpServers"]["echo"]["excludeTools"] == ["echo"]
    assert user.read_text() == servers
