"""Gemini CLI's system settings and defaults in a workspace: read-only entries of host
``gemini`` in Gemini's own precedence (system over the project and the user, defaults under
them), their exclusions and folder trust counted, a file Gemini skips said and left out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentty_tui.config.engine import RemoveServer, SetServerDisabled, SetToolEnabled
from agentty_tui.config.workspace import Workspace, open_workspace
from agentty_tui.errors import OperationError
from agentty_tui.model import ServerConfig, StdioSpec
from tests.root_folder import root_folder

__all__ = ["root_folder"]  # the fixture, used by name


def _write(path: Path, value: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2))
    path.chmod(0o644)
    return path


def _entry(command: str) -> dict[str, Any]:
    return {"command": command, "args": []}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A trusted project whose Gemini user settings hold ``mine`` and ``both``, the project's
    ``theirs``."""
    project, home = tmp_path / "project", tmp_path / "home"
    (project / ".git").mkdir(parents=True)
    user = {"mcpServers": {"mine": _entry("user-mine"), "both": _entry("user-both")}}
    _write(home / ".gemini" / "settings.json", user)
    _write(home / ".gemini" / "trustedFolders.json", {str(project): "TRUST_FOLDER"})
    _write(project / ".gemini" / "settings.json", {"mcpServers": {"theirs": _entry("t")}})
    return project


def _open(project: Path, system: Path) -> Workspace:
    home = project.parent / "home"
    env = {
        "XDG_CONFIG_HOME": str(home / ".config"),
        "GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(system / "settings.json"),
    }
    return open_workspace(project, home=home, env=env, hosts=["gemini"])


def _server(workspace: Workspace, name: str) -> ServerConfig:
    server = workspace.load().server(name)
    assert server is not None, name
    return server


def test_the_system_files_servers_in_geminis_precedence(project: Path, root_folder: Path) -> None:
    _write(
        root_folder / "settings.json",
        {"mcpServers": {"sys": _entry("s"), "both": _entry("sys-both")}},
    )
    defaults = {
        "mcpServers": {"dflt": _entry("d"), "mine": _entry("default-mine"), "theirs": _entry("x")}
    }
    _write(root_folder / "system-defaults.json", defaults)
    workspace = _open(project, root_folder)
    config = workspace.load()
    both = _server(workspace, "both")
    assert both.spec == StdioSpec(command="sys-both")  # the system settings win
    assert both.source is not None and both.source.admin == "system"
    mine = _server(workspace, "mine")
    assert mine.spec == StdioSpec(command="user-mine")  # over the defaults
    theirs = _server(workspace, "theirs")
    assert theirs.spec == StdioSpec(command="t")  # the project's over the defaults
    dflt = _server(workspace, "dflt")
    assert dflt.source is not None and dflt.source.admin == "system defaults"
    assert not dflt.disabled and dflt.untrusted is None
    hidden = {
        (s.entry_name, s.spec.command if isinstance(s.spec, StdioSpec) else None)
        for s in config.shadowed
    }
    assert hidden == {("both", "user-both"), ("mine", "default-mine"), ("theirs", "x")}
    assert root_folder / "settings.json" in workspace.watched_paths()
    assert root_folder / "system-defaults.json" in workspace.watched_paths()


def test_the_system_files_exclusions_and_trust_count(project: Path, root_folder: Path) -> None:
    system = {"mcp": {"excluded": ["mine"]}, "security": {"folderTrust": {"enabled": False}}}
    _write(root_folder / "settings.json", system)
    home = project.parent / "home"
    _write(home / ".gemini" / "trustedFolders.json", {str(project): "DO_NOT_TRUST"})
    workspace = _open(project, root_folder)
    mine = _server(workspace, "mine")
    assert (
        mine.disabled and mine.hosts[0].off_by == f"mcp.excluded in {root_folder / 'settings.json'}"
    )
    assert not _server(workspace, "theirs").disabled  # folder trust is off: the project's runs
    with pytest.raises(OperationError, match=r"'mine' stays off for Gemini CLI: mcp.excluded in "):
        workspace.apply(SetServerDisabled(server="mine", disabled=False))
    assert "mcp" not in json.loads((home / ".gemini" / "settings.json").read_text())


def test_a_system_server_is_switched_off_in_the_users_settings_and_not_edited(
    project: Path, root_folder: Path
) -> None:
    path = _write(root_folder / "settings.json", {"mcpServers": {"sys": _entry("s")}})
    before = path.read_bytes()
    workspace = _open(project, root_folder)
    workspace.load()
    workspace.apply(SetServerDisabled(server="sys", disabled=True))
    user = json.loads((project.parent / "home" / ".gemini" / "settings.json").read_text())
    assert user["mcp"] == {"excluded": ["sys"]}
    sys = _server(workspace, "sys")
    assert sys.disabled
    workspace.apply(SetServerDisabled(server="sys", disabled=False))
    assert not _server(workspace, "sys").disabled
    with pytest.raises(
        OperationError, match=r"Gemini CLI's system file .*: Gemini CLI has no tool switch"
    ):
        workspace.apply(SetToolEnabled(server="sys", tool="t", enabled=False))
    with pytest.raises(OperationError, match=r"is Gemini CLI's system file, kept by"):
        workspace.apply(RemoveServer(name="sys"))
    assert path.read_bytes() == before


def test_a_system_file_gemini_skips_is_a_warning_and_left_out(project: Path) -> None:
    folder = project.parent / "etc"  # under /tmp: Gemini's check fails
    _write(
        folder / "settings.json",
        {"mcpServers": {"sys": _entry("s")}, "mcp": {"excluded": ["mine"]}},
    )
    workspace = _open(project, folder)
    config = workspace.load()
    assert config.server("sys") is None and not _server(workspace, "mine").disabled
    assert any(
        w.startswith(f"Gemini CLI skips its system settings {folder}") for w in config.warnings
    )
