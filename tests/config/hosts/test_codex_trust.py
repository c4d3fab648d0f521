"""Codex's trust in a project (``codex_untrusted``) and its merge of a project's table into
the user's (``merge_codex_tables``), as measured in tests/hosts/test_codex_project_trust.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentty_tui.config.hosts.codex_trust import (
    codex_config_file,
    codex_untrusted,
    merge_codex_tables,
)


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "codex" / "config.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    return path


def test_the_config_file_follows_codex_home(tmp_path: Path) -> None:
    assert codex_config_file(tmp_path, {}) == tmp_path / ".codex" / "config.toml"
    other = {"CODEX_HOME": str(tmp_path / "c")}
    assert codex_config_file(tmp_path, other) == tmp_path / "c" / "config.toml"


def test_only_trust_level_trusted_under_the_real_path_trusts(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    config = _config(tmp_path, f'[projects."{project}"]\ntrust_level = "trusted"\n')
    assert codex_untrusted(config, project) is None
    link = tmp_path / "link"
    link.symlink_to(project)
    assert codex_untrusted(config, link) is None  # the real path is the key
    config = _config(tmp_path, f'[projects."{link}"]\ntrust_level = "trusted"\n')
    assert "no trust_level" in (codex_untrusted(config, link) or "")


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ('trust_level = "untrusted"', '"untrusted"'),
        ('trust_level = "Trusted"', "not trusted or untrusted (Codex stops)"),
        ("other = 1", "no trust_level"),
    ],
)
def test_every_other_trust_level_is_not_trusted_and_says_why(
    tmp_path: Path, table: str, said: str
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    config = _config(tmp_path, f'[projects."{project}"]\n{table}\n')
    why = codex_untrusted(config, project)
    assert why is not None
    assert why.startswith("Codex reads .codex/config.toml only in a trusted project")
    assert said in why


@pytest.mark.parametrize("text", [None, "", "[projects\n", 'projects = "x"\n'])
def test_a_missing_or_unreadable_config_trusts_nothing(tmp_path: Path, text: str | None) -> None:
    config = tmp_path / "config.toml"
    if text is not None:
        config.write_text(text)
    assert codex_untrusted(config, tmp_path) is not None


def test_a_project_table_is_merged_into_the_users_key_by_key() -> None:
    user = {"command": "python3", "args": ["user"], "env": {"A": "1", "B": "2"}, "x": ["u"]}
    project = {"enabled": False, "args": ["project"], "env": {"B": "3"}}
    assert merge_codex_tables(user, project) == {
        "command": "python3",
        "args": ["project"],
        "env": {"A": "1", "B": "3"},
        "x": ["u"],
        "enabled": False,
    }
    assert user["env"] == {"A": "1", "B": "2"}  # the inputs are left as they were


def _worktree(tmp_path: Path) -> tuple[Path, Path]:
    """A main repository and a worktree of it, as git lays them out."""
    main, worktree = tmp_path / "main", tmp_path / "wt"
    (main / ".git" / "worktrees" / "wt").mkdir(parents=True)
    worktree.mkdir()
    (worktree / ".git").write_text(f"gitdir: {main}/.git/worktrees/wt\n")
    return main, worktree


@pytest.mark.parametrize(
    ("levels", "trusted"),
    [
        ({"main": "trusted"}, True),
        ({"main": "untrusted", "wt": "trusted"}, True),
        ({"main": "trusted", "wt": "untrusted"}, False),
        ({}, False),
    ],
    ids=["main", "own-trusted", "own-untrusted", "none"],
)
def test_a_worktree_without_an_entry_of_its_own_is_trusted_as_its_main_repository(
    tmp_path: Path, levels: dict[str, str], trusted: bool
) -> None:
    main, worktree = _worktree(tmp_path)
    where = {"main": main, "wt": worktree}
    text = "".join(
        f'[projects."{where[name]}"]\ntrust_level = "{level}"\n' for name, level in levels.items()
    )
    assert (codex_untrusted(_config(tmp_path, text), worktree) is None) is trusted
