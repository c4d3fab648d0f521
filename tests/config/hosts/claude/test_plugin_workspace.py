"""Claude Code's plugin servers in a workspace: read-only sources of host ``claude`` whose
view comes from Claude Code's switches, spelled as it spells a plugin server's name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentty_tui.config.engine import RemoveServer, SetServerDisabled, SetToolEnabled
from agentty_tui.config.hosts.claude.switches import ClaudeFiles
from agentty_tui.config.workspace import Workspace, open_workspace
from agentty_tui.errors import OperationError
from agentty_tui.model import ServerConfig

NAME = "plugin:tp:srv"


def _write(path: Path, value: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2))
    return path


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home with the plugin ``tp@mk`` (one server ``srv``) of a marketplace on disk, on for
    the user; the project is a git repository."""
    home, market = tmp_path / "home", tmp_path / "market"
    (tmp_path / "project" / ".git").mkdir(parents=True)
    _write(
        market / ".claude-plugin" / "marketplace.json",
        {"plugins": [{"name": "tp", "source": "./tp"}]},
    )
    entry = {"command": "echo-server", "args": ["${CLAUDE_PLUGIN_ROOT}/x"]}
    _write(market / "tp" / ".mcp.json", {"mcpServers": {"srv": entry}})
    known = {
        "mk": {
            "source": {"source": "directory", "path": str(market)},
            "installLocation": str(market),
            "lastUpdated": "2026-12-02T08:51:34.832Z",
        }
    }
    _write(home / ".claude" / "plugins" / "known_marketplaces.json", known)
    _write(home / ".claude" / "settings.json", {"enabledPlugins": {"tp@mk": True}})
    return home


def _open(home: Path, hosts: list[str] | None = None) -> Workspace:
    env = {"XDG_CONFIG_HOME": str(home / ".config")}
    return open_workspace(home.parent / "project", home=home, env=env, hosts=hosts)


def _server(workspace: Workspace) -> ServerConfig:
    server = workspace.load().server(NAME)
    assert server is not None
    return server


def _json(path: Path) -> Any:
    return json.loads(path.read_text())


def test_a_plugin_server_is_claude_codes_with_its_switches(home: Path) -> None:
    server = _server(_open(home))
    assert server.source is not None and server.source.plugin == "tp@mk"
    (view,) = server.hosts
    assert view.tool_switch == "permissions.deny in ~/.claude/settings.json"
    assert view.server_switch == "disabledMcpServers in ~/.claude.json"
    assert view.approved is None and not view.off and server.untrusted is None
    assert _open(home, ["codex"]).load().server(NAME) is None  # Claude Code's files unread

    # Switches Claude Code obeys, spelled as it spells the name (measured).
    settings = _json(home / ".claude" / "settings.json")
    settings["permissions"] = {"deny": ["mcp__plugin_tp_srv__get", "mcp__plugin:tp:srv__put"]}
    _write(home / ".claude" / "settings.json", settings)
    server = _server(_open(home))
    assert server.tools.exclude == ("get",)  # the unspelled rule does nothing
    root = str(home.parent / "project")
    state = {"projects": {root: {"disabledMcpServers": ["plugin_tp_srv"]}}}
    _write(home / ".claude.json", state)
    assert not _server(_open(home)).disabled  # compared as written: this is not its name
    state["projects"][root]["disabledMcpServers"] = [NAME]
    _write(home / ".claude.json", state)
    server = _server(_open(home))
    assert server.disabled and server.hosts[0].off_by == "disabledMcpServers in ~/.claude.json"


def test_a_switch_of_a_plugin_server_writes_what_claude_code_obeys(home: Path) -> None:
    workspace = _open(home)
    workspace.load()
    workspace.apply(SetToolEnabled(server=NAME, tool="get", enabled=False))
    workspace.apply(SetServerDisabled(server=NAME, disabled=True))
    deny = _json(home / ".claude" / "settings.json")["permissions"]["deny"]
    assert deny == ["mcp__plugin_tp_srv__get"]
    root = str(home.parent / "project")
    assert _json(home / ".claude.json")["projects"][root]["disabledMcpServers"] == [NAME]
    server = _server(workspace)
    assert server.disabled and server.tools.exclude == ("get",)
    workspace.apply(SetToolEnabled(server=NAME, tool="get", enabled=True))
    workspace.apply(SetServerDisabled(server=NAME, disabled=False))
    assert _json(home / ".claude" / "settings.json") == {"enabledPlugins": {"tp@mk": True}}
    server = _server(workspace)
    assert not server.disabled and server.tools.exclude == ()


def test_a_project_plugins_switch_goes_to_the_local_settings_and_no_mcp_json_rule_applies(
    home: Path,
) -> None:
    project = home.parent / "project"
    _write(home / ".claude" / "settings.json", {})
    shared = {"enabledPlugins": {"tp@mk": True}, "disabledMcpjsonServers": [NAME]}
    _write(project / ".claude" / "settings.json", shared)
    workspace = _open(home)
    server = _server(workspace)
    assert server.source is not None and server.source.scope == "project"
    (view,) = server.hosts
    assert not view.off and view.approved is None  # a plugin's server is no .mcp.json one
    assert view.tool_switch == "permissions.deny in .claude/settings.local.json"
    assert server.untrusted is not None  # the repository turns it on: it waits for trust
    workspace.apply(SetToolEnabled(server=NAME, tool="get", enabled=False))
    local = _json(project / ".claude" / "settings.local.json")
    assert local == {"permissions": {"deny": ["mcp__plugin_tp_srv__get"]}}


def test_a_plugin_servers_entry_is_not_edited_here(home: Path) -> None:
    entry_file = home.parent / "market" / "tp" / ".mcp.json"
    before = entry_file.read_bytes()
    workspace = _open(home)
    workspace.load()
    with pytest.raises(OperationError, match=r"Claude Code's plugin tp@mk: .*`claude plugin`"):
        workspace.apply(RemoveServer(name=NAME))
    assert entry_file.read_bytes() == before
    report = {r.source.ref.path: r for r in workspace.reports}[str(entry_file)]
    assert report.exists and report.servers == 1


def test_a_plugin_file_others_may_change_waits_for_trust(home: Path) -> None:
    entry_file = home.parent / "market" / "tp" / ".mcp.json"
    assert _server(_open(home)).untrusted is None
    entry_file.chmod(0o666)
    server = _server(_open(home))
    assert server.untrusted is not None and str(entry_file) in server.untrusted


def test_a_plugin_installed_or_a_marketplace_added_is_a_reload(home: Path) -> None:
    workspace = _open(home)
    workspace.load()
    plugins = home / ".claude" / "plugins"
    assert plugins / "installed_plugins.json" in workspace.watched_paths()
    before = workspace.version()
    _write(plugins / "installed_plugins.json", {"version": 2, "plugins": {}})
    assert workspace.version() != before
    before = workspace.version()
    (plugins / "known_marketplaces.json").unlink()
    assert workspace.version() != before
    assert workspace.load().server(NAME) is None


def test_the_plugins_folder_moves_with_claude_codes_variables(tmp_path: Path) -> None:
    root = tmp_path / "project"
    assert ClaudeFiles.of(tmp_path, root, {}).plugins == tmp_path / ".claude" / "plugins"
    moved = ClaudeFiles.of(tmp_path, root, {"CLAUDE_CONFIG_DIR": str(tmp_path / "c")})
    assert moved.plugins == tmp_path / "c" / "plugins"
    cache = {"CLAUDE_CODE_PLUGIN_CACHE_DIR": str(tmp_path / "p")}
    assert ClaudeFiles.of(tmp_path, root, cache).plugins == tmp_path / "p"
