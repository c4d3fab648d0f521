"""Which files a workspace reads: the places, their order, and what limits them."""

from __future__ import annotations

from pathlib import Path

from agentty_tui.config.sources import find_project_root, is_project_file, workspace_sources


def places(home: Path, root: Path, **options: object) -> list[tuple[str, str, str]]:
    found = workspace_sources(home, {}, root, **options)  # type: ignore[arg-type]
    return [(s.ref.scope, s.ref.host, s.ref.path) for s in found]


def test_local_then_project_then_user_ours_first_in_each(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "project"
    found = places(home, root, platform="linux")
    scopes = [scope for scope, _, _ in found]
    assert scopes == sorted(scopes, key=["local", "project", "user"].index)
    assert found[0] == ("local", "claude", str(home / ".claude.json"))
    assert found[1] == ("project", "claude", str(root / ".mcp.json"))
    assert ("user", "agentty", str(home / ".config" / "agentty" / "mcp.json")) == next(
        place for place in found if place[0] == "user"
    )


def test_claude_desktop_and_vscode_are_where_each_system_keeps_them(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "project"
    mac = dict((host, path) for _, host, path in places(home, root, platform="darwin"))
    support = home / "Library" / "Application Support"
    assert mac["claude-desktop"] == str(support / "Claude" / "claude_desktop_config.json")
    assert mac["vscode"] == str(support / "Code" / "User" / "mcp.json")
    linux = dict((host, path) for _, host, path in places(home, root, platform="linux"))
    assert linux["vscode"] == str(home / ".config" / "Code" / "User" / "mcp.json")


def test_a_project_at_home_has_no_project_files_of_the_hosts(tmp_path: Path) -> None:
    home = tmp_path / "home"
    found = places(home, home, platform="linux")
    assert ("user", "cursor", str(home / ".cursor" / "mcp.json")) in found
    assert not [p for p in found if p[0] == "project" and p[1] != "claude"]


def test_hosts_limit_the_files_but_never_ours(tmp_path: Path) -> None:
    found = places(tmp_path / "h", tmp_path / "p", hosts=["codex"], platform="linux")
    assert {host for _, host, _ in found} == {"agentty", "codex"}


def test_the_project_root_is_the_nearest_git_folder_upwards(tmp_path: Path) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    inner = tmp_path / "repo" / "a" / "b"
    inner.mkdir(parents=True)
    assert find_project_root(inner) == tmp_path / "repo"
    lone = tmp_path / "lone"
    lone.mkdir()
    assert find_project_root(lone) == lone


def test_a_projects_host_file_is_told_from_a_users(tmp_path: Path) -> None:
    home = tmp_path / "home"
    repo = tmp_path / "repo"
    for place in (".mcp.json", ".cursor/mcp.json", ".gemini/settings.json", ".codex/config.toml"):
        assert is_project_file(repo / place, home), place
        # The same places below the home folder are the user's own files (Cursor's, Gemini's).
        if place != ".mcp.json":
            assert not is_project_file(home / place, home), place
    assert is_project_file(repo / ".vscode" / "mcp.json", home)
    assert not is_project_file(repo / "mcp.json", home)
    assert not is_project_file(home / ".claude.json", home)
