"""Gemini CLI's extension servers: read from each enabled extension's file, shown as read-only
parts of host ``gemini`` whose server switch is ``mcp.excluded`` (measured in
tests/hosts/test_gemini_extensions.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentty_tui.config.engine import RemoveServer, SetServerDisabled, SetToolEnabled
from agentty_tui.config.hosts.gemini_extensions import (
    MAX_EXTENSIONS,
    extension_enabled,
    read_extension_servers,
)
from agentty_tui.config.workspace import Workspace, open_workspace
from agentty_tui.errors import OperationError
from agentty_tui.model import ServerConfig, StdioSpec


def _write(path: Path, value: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value if isinstance(value, str) else json.dumps(value, indent=2))
    return path


def _extension(gemini: Path, folder: str, manifest: object) -> Path:
    return _write(gemini / "extensions" / folder / "gemini-extension.json", manifest)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home whose Gemini CLI trusts the project and has the extension ``ext`` (server
    ``lite``, its tool ``b`` excluded in the entry)."""
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    _write(home / ".gemini" / "settings.json", {"mcpServers": {}})
    _write(home / ".gemini" / "trustedFolders.json", {str(project): "TRUST_FOLDER"})
    entry = {"command": "run", "args": ["${extensionPath}${/}x"], "excludeTools": ["b"]}
    _extension(home / ".gemini", "ext", {"name": "ext", "mcpServers": {"lite": entry}})
    return home


def _open(home: Path) -> Workspace:
    env = {"XDG_CONFIG_HOME": str(home / ".config")}
    return open_workspace(home.parent / "project", home=home, env=env, hosts=["gemini"])


def _server(workspace: Workspace, name: str = "lite") -> ServerConfig:
    server = workspace.load().server(name)
    assert server is not None, [s.name for s in workspace.load().servers]
    return server


def _json(path: Path) -> Any:
    return json.loads(path.read_text())


def test_an_extension_server_is_gemini_clis_under_its_own_name(home: Path) -> None:
    server = _server(_open(home))
    folder = home / ".gemini" / "extensions" / "ext"
    assert server.source is not None and server.source.plugin == "ext"
    assert server.source.path == str(folder / "gemini-extension.json")
    assert server.source.label == "gemini · extension ext (user)"
    assert isinstance(server.spec, StdioSpec) and server.spec.args == (f"{folder}/x",)
    (view,) = server.hosts
    assert view.source.host == "gemini" and not view.off
    assert server.tools.exclude == ("b",)  # its entry's excludeTools, obeyed (measured)


def test_mcp_excluded_in_any_settings_file_blocks_it(home: Path) -> None:
    settings = home / ".gemini" / "settings.json"
    _write(settings, {"mcp": {"excluded": ["lite"]}})
    (view,) = _server(_open(home)).hosts
    assert (view.off, view.off_by) == (True, f"mcp.excluded in {settings}")


def test_a_settings_entry_of_the_same_name_wins(home: Path) -> None:
    _write(home / ".gemini" / "settings.json", {"mcpServers": {"lite": {"command": "mine"}}})
    config = _open(home).load()
    server = config.server("lite")
    assert server is not None and server.source is not None and server.source.plugin is None
    assert [s.source.plugin for s in config.shadowed if s.source is not None] == ["ext"]


def test_a_disabled_extension_is_not_read(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    enablement = home / ".gemini" / "extensions" / "extension-enablement.json"
    _write(enablement, {"ext": {"overrides": [f"!{project}/*"]}})
    assert _open(home).load().server("lite") is None
    # A later rule turns it on again for this folder.
    _write(enablement, {"ext": {"overrides": [f"!{tmp_path}/*", f"{project}/"]}})
    assert _open(home).load().server("lite") is not None


@pytest.mark.parametrize(
    ("rules", "enabled"),
    [
        ([], True),
        (["!/a/*"], False),
        (["!/a/b/*"], False),
        (["!/a/b/"], False),
        (["!/a/"], True),  # no *: that folder alone, not the ones below
        (["!/a/*", "/a/b/*"], True),
        (["/a/b/*", "!/a/*"], False),  # the last rule that matches decides
        (["!/x/*"], True),
        (["!/a*"], False),
    ],
)
def test_enablement_rules_as_gemini_reads_them(rules: list[str], enabled: bool) -> None:
    assert extension_enabled({"e": {"overrides": rules}}, "e", Path("/a/b")) is enabled


def test_a_bad_file_is_a_warning_naming_it_and_the_others_are_read(tmp_path: Path) -> None:
    gemini = tmp_path / ".gemini"
    bad = _extension(gemini, "bad", "{ not json")
    wrong = _extension(gemini, "wrong", {"name": "wrong", "mcpServers": []})
    _extension(gemini, "good", {"name": "good", "mcpServers": {"s": {"command": "c"}}})
    _write(gemini / "extensions" / "extension-enablement.json", "[1]")
    read = read_extension_servers(gemini, tmp_path)
    assert [source.ref.plugin for source, _ in read.parts] == ["good"]
    assert len(read.problems) == 3
    for path in (bad, wrong, gemini / "extensions" / "extension-enablement.json"):
        assert any(str(path) in problem for problem in read.problems), read.problems


def test_only_so_many_extensions_are_read(tmp_path: Path) -> None:
    gemini = tmp_path / ".gemini"
    for n in range(MAX_EXTENSIONS + 2):
        _extension(gemini, f"e{n:03}", {"name": f"e{n}", "mcpServers": {f"s{n}": {"command": "c"}}})
    read = read_extension_servers(gemini, tmp_path)
    assert len(read.parts) == MAX_EXTENSIONS
    assert read.problems == (
        f"{gemini / 'extensions'} holds {MAX_EXTENSIONS + 2} extensions: only the first "
        f"{MAX_EXTENSIONS} are read",
    )


def test_its_server_switch_is_mcp_excluded_in_the_user_settings(home: Path) -> None:
    workspace = _open(home)
    workspace.load()
    manifest = home / ".gemini" / "extensions" / "ext" / "gemini-extension.json"
    before = manifest.read_bytes()
    settings = home / ".gemini" / "settings.json"
    workspace.apply(SetServerDisabled("lite", True))
    assert _json(settings)["mcp"] == {"excluded": ["lite"]}
    assert _server(workspace).hosts[0].off
    workspace.apply(SetServerDisabled("lite", False))
    assert "mcp" not in _json(settings)
    assert not _server(workspace).hosts[0].off
    assert manifest.read_bytes() == before  # the extension's file is never written


def test_other_edits_are_refused_naming_the_extension(home: Path) -> None:
    workspace = _open(home)
    workspace.load()
    with pytest.raises(OperationError, match=r"extension ext.*gemini extensions"):
        workspace.apply(RemoveServer("lite"))
    with pytest.raises(OperationError, match="no tool switch for it"):
        workspace.apply(SetToolEnabled("lite", "a", False))


def test_a_linked_extension_is_read_where_its_link_points(tmp_path: Path) -> None:
    gemini, source = tmp_path / ".gemini", tmp_path / "src"
    _write(source / "gemini-extension.json", {"name": "lk", "mcpServers": {"s": {"command": "c"}}})
    link = {"source": str(source), "type": "link"}
    _write(gemini / "extensions" / "lk" / ".gemini-extension-install.json", link)
    _write(gemini / "extensions" / "bad" / ".gemini-extension-install.json", {"type": "link"})
    read = read_extension_servers(gemini, tmp_path)
    ((found, config),) = read.parts
    assert found.ref.path == str(source / "gemini-extension.json")
    assert [s.name for s in config.servers] == ["s"]
    (problem,) = read.problems
    assert str(gemini / "extensions" / "bad" / ".gemini-extension-install.json") in problem


def test_the_enablement_file_and_each_extensions_file_are_watched(home: Path) -> None:
    workspace = _open(home)
    workspace.load()
    extensions = home / ".gemini" / "extensions"
    watched = workspace.watched_paths()
    assert extensions / "extension-enablement.json" in watched
    assert extensions / "ext" / "gemini-extension.json" in watched
    before = workspace.version()
    _write(extensions / "extension-enablement.json", {"ext": {"overrides": ["!/*"]}})
    assert workspace.version() != before
