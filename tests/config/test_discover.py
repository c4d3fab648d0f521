"""Finding other hosts' config files on a fake home (``config/discover.py``)."""

from __future__ import annotations

import json
from pathlib import Path

from agentty_tui.config.discover import HostFile, host_config_files

CODEX = """\
[mcp_servers.time]
command = "uvx"
args = ["mcp-server-time"]

[mcp_servers.git]
command = "uvx"
args = ["mcp-server-git"]
"""


def _claude(home: Path, servers: dict[str, object]) -> Path:
    path = home / ".claude.json"
    path.write_text(json.dumps({"numStartups": 3, "mcpServers": servers}))
    return path


def test_finds_each_hosts_file_with_its_server_count(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    claude = _claude(home, {"memory": {"command": "npx", "args": ["server-memory"]}})
    (home / ".codex" / "config.toml").write_text(CODEX)
    gemini = home / ".gemini" / "settings.json"
    gemini.parent.mkdir()
    gemini.write_text(json.dumps({"theme": "dark"}))  # no servers: not offered
    found = host_config_files(home, {})
    assert found == (
        HostFile("Claude Code", claude, "claude", 1),
        HostFile("Codex", home / ".codex" / "config.toml", "codex", 2),
    )
    assert found[1].describe() == f"Codex: {home / '.codex' / 'config.toml'} (2 servers)"


def test_codex_home_and_xdg_config_home_are_honoured(tmp_path: Path) -> None:
    home, codex, xdg = tmp_path / "home", tmp_path / "codex", tmp_path / "xdg"
    home.mkdir()
    codex.mkdir()
    (codex / "config.toml").write_text(CODEX)
    vscode = xdg / "Code" / "User" / "mcp.json"
    vscode.parent.mkdir(parents=True)
    vscode.write_text(json.dumps({"servers": {"web": {"type": "http", "url": "http://h/mcp"}}}))
    found = host_config_files(home, {"CODEX_HOME": str(codex), "XDG_CONFIG_HOME": str(xdg)})
    assert [(f.host, f.path, f.servers) for f in found] == [
        ("VS Code", vscode, 1),
        ("Codex", codex / "config.toml", 2),
    ]


def test_a_broken_file_is_listed_with_its_problem_and_the_target_is_left_out(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    (home / ".cursor").mkdir(parents=True)
    (home / ".cursor" / "mcp.json").write_text('{"mcpServers": {')
    claude = _claude(home, {"memory": {"command": "npx"}})
    found = host_config_files(home, {}, exclude=claude)
    assert [(f.host, f.servers) for f in found] == [("Cursor", 0)]
    assert found[0].problem is not None and "cannot be read" in found[0].describe()


def test_a_projects_mcp_json_is_found_in_the_current_folder(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"a": {"command": "x"}}}))
    found = host_config_files(tmp_path / "nohome", {}, project)
    assert [(f.host, f.servers) for f in found] == [("Claude Code (this folder)", 1)]
    # A project's file all the same: its servers are not trusted by an import.
    assert found[0].project
    assert found[0].describe().endswith("(1 server, a project's: imported disabled)")


def test_a_folders_mcp_json_inside_a_repository_is_the_projects_and_not_offered(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    folder = project / "sub"
    folder.mkdir()
    for where in (project, folder):
        (where / ".mcp.json").write_text(json.dumps({"mcpServers": {"a": {"command": "x"}}}))
    assert host_config_files(tmp_path / "nohome", {}, project) == ()
    assert host_config_files(tmp_path / "nohome", {}, folder) == ()
