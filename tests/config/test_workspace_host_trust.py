"""The hosts' own trust in a workspace's views: Codex reads a project's ``.codex/config.toml``
only in a project it trusts, Gemini CLI runs no server in a folder it does not trust, and every
Gemini settings file's ``mcp.excluded`` counts (``hosts/codex_trust``, ``hosts/gemini_trust``;
measured in tests/hosts/test_codex_project_trust.py and test_gemini_folder_trust.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentty_tui.config.workspace import open_workspace
from agentty_tui.model import HostView, PluginConfig

ENTRY: dict[str, object] = {"command": "echo-server", "args": ["--x"]}


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o600)
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "project" / ".git").mkdir(parents=True)
    return tmp_path / "project"


def _load(project: Path) -> PluginConfig:
    home = project.parent / "home"
    env = {"XDG_CONFIG_HOME": str(home / ".config")}
    return open_workspace(project, home=home, env=env).load()


def _view(config: PluginConfig, name: str) -> HostView:
    server = config.server(name)
    assert server is not None, [s.name for s in config.servers]
    (view,) = server.hosts
    return view


def _codex(project: Path, trust: str | None) -> None:
    home = project.parent / "home"
    user = "" if trust is None else f'[projects."{project}"]\ntrust_level = "{trust}"\n'
    _write(home / ".codex" / "config.toml", user + '[mcp_servers.mine]\ncommand = "m"\n')
    _write(project / ".codex" / "config.toml", '[mcp_servers.theirs]\ncommand = "t"\n')


@pytest.mark.parametrize("trust", [None, "untrusted"])
def test_a_codex_project_entry_is_off_in_a_project_codex_does_not_trust(
    project: Path, trust: str | None
) -> None:
    _codex(project, trust)
    config = _load(project)
    theirs = _view(config, "theirs")
    assert (theirs.off, theirs.approved) == (True, False)
    assert theirs.off_by is not None
    assert theirs.off_by.startswith("Codex reads .codex/config.toml only in a trusted project")
    assert str(project.parent / "home" / ".codex" / "config.toml") in theirs.off_by
    server = config.server("theirs")
    assert server is not None and server.disabled  # agentty does not start it for Codex
    mine = _view(config, "mine")
    assert (mine.off, mine.approved, mine.off_by) == (False, None, None)


def test_a_codex_project_entry_is_approved_in_a_trusted_project(project: Path) -> None:
    _codex(project, "trusted")
    theirs = _view(_load(project), "theirs")
    assert (theirs.off, theirs.approved, theirs.off_by) == (False, True, None)


def _gemini(project: Path, rules: dict[str, str] | None, user_mcp: object = None) -> Path:
    home = project.parent / "home"
    user: dict[str, object] = {"mcpServers": {"mine": ENTRY}}
    if user_mcp is not None:
        user["mcp"] = user_mcp
    _write(home / ".gemini" / "settings.json", json.dumps(user))
    if rules is not None:
        _write(home / ".gemini" / "trustedFolders.json", json.dumps(rules))
    other = {"command": "other-server"}
    settings = {"mcpServers": {"theirs": other}, "mcp": {"excluded": ["blocked"]}}
    return _write(project / ".gemini" / "settings.json", json.dumps(settings))


@pytest.mark.parametrize("level", [None, "DO_NOT_TRUST"])
def test_in_a_folder_gemini_does_not_trust_none_of_its_servers_runs(
    project: Path, level: str | None
) -> None:
    _gemini(project, None if level is None else {str(project): level})
    config = _load(project)
    for name in ("mine", "theirs"):
        view = _view(config, name)
        assert (view.off, view.approved) == (True, False), name
        assert view.off_by is not None
        assert view.off_by.startswith("Gemini CLI runs no MCP server in a folder it does not")


def test_in_a_trusted_folder_gemini_runs_both_files_servers(project: Path) -> None:
    _gemini(project, {str(project.parent): "TRUST_FOLDER"})
    config = _load(project)
    assert [(v.off, v.approved) for v in map(lambda n: _view(config, n), ("mine", "theirs"))] == [
        (False, None),
        (False, True),
    ]


def test_the_projects_mcp_excluded_blocks_a_user_server_of_gemini(project: Path) -> None:
    settings = _gemini(project, {str(project): "TRUST_FOLDER"})
    home = project.parent / "home"
    user = {"mcpServers": {"blocked": ENTRY, "mine": ENTRY}, "mcp": {"excluded": ["theirs"]}}
    _write(home / ".gemini" / "settings.json", json.dumps(user))
    config = _load(project)
    blocked, theirs, mine = (_view(config, n) for n in ("blocked", "theirs", "mine"))
    assert (blocked.off, blocked.off_by) == (True, f"mcp.excluded in {settings}")
    assert (theirs.off, theirs.off_by) == (True, f"mcp.excluded in {home}/.gemini/settings.json")
    assert mine.off is False


def test_gemini_clis_environment_and_trust_file_are_read_and_watched(project: Path) -> None:
    """``GEMINI_CLI_TRUST_WORKSPACE=true`` trusts the folder whatever the rules say, as Gemini
    CLI does; the rules' file is watched (trusting the folder there is a reload) and may be
    elsewhere (``GEMINI_CLI_TRUSTED_FOLDERS_PATH``)."""
    _gemini(project, None)
    home = project.parent / "home"
    base = {"XDG_CONFIG_HOME": str(home / ".config")}
    plain = open_workspace(project, home=home, env=base)
    assert _view(plain.load(), "mine").off
    assert home / ".gemini" / "trustedFolders.json" in plain.watched_paths()
    trusting = open_workspace(
        project, home=home, env={**base, "GEMINI_CLI_TRUST_WORKSPACE": "true"}
    )
    assert not _view(trusting.load(), "mine").off
    rules = _write(home / "rules.json", json.dumps({str(project): "TRUST_FOLDER"}))
    moved = open_workspace(
        project, home=home, env={**base, "GEMINI_CLI_TRUSTED_FOLDERS_PATH": str(rules)}
    )
    assert not _view(moved.load(), "mine").off
    assert rules in moved.watched_paths()
