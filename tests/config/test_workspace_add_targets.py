"""config/workspace.py: the files the add form offers in a workspace."""

from __future__ import annotations

from pathlib import Path

from agentty_tui.config.workspace import add_targets, open_workspace
from tests.fake_home import build_fake_home


def test_our_user_file_first_then_the_project_and_local_files_and_every_readable_one(
    tmp_path: Path,
) -> None:
    fake = build_fake_home(tmp_path, sources=("agentty-user", "cursor-user", "gemini-user"))
    (fake.home / ".gemini" / "settings.json").write_text("{ not json")
    workspace = open_workspace(fake.cwd, home=fake.home, env=fake.env)
    workspace.load()
    offered = add_targets(workspace)
    assert offered[0] == workspace.add_to
    kinds = [(ref.host, ref.scope) for ref in offered]
    # Created on the first add: Claude Code's local scope and the project's .mcp.json.
    assert kinds == [
        ("agentty", "user"),
        ("claude", "local"),
        ("claude", "project"),
        ("cursor", "user"),
    ]
    # Not there (Codex, VS Code, ...) or not readable (Gemini's): not offered.
    assert ("gemini", "user") not in kinds and ("codex", "user") not in kinds


def test_before_the_first_load_the_files_on_disk_decide(tmp_path: Path) -> None:
    fake = build_fake_home(tmp_path, sources=("agentty-user", "codex-user"))
    workspace = open_workspace(fake.cwd, home=fake.home, env=fake.env)
    kinds = [(ref.host, ref.scope) for ref in add_targets(workspace)]
    assert kinds == [
        ("agentty", "user"),
        ("claude", "local"),
        ("claude", "project"),
        ("codex", "user"),
    ]
