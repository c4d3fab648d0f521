"""Codex's project scope: which trust makes it read ``<project>/.codex/config.toml``, and how
a project's table of a server combines with the user's (docs/HOSTS_MEASURED.md)."""

from __future__ import annotations

import subprocess

import pytest

from tests.hosts.codex_cli import CodexHome, light_entry


@pytest.mark.parametrize(("trust", "enabled"), [("trusted", False), ("untrusted", True)])
def test_a_project_table_holding_only_enabled_false_turns_the_user_entry_off(
    codex: CodexHome, trust: str, enabled: bool
) -> None:
    # Merged key by key: the project's one key switches the user's server off, but only in a
    # trusted project; an untrusted project's table is not merged at all.
    codex.trust = trust
    codex.user["mcp_servers"] = {"time": light_entry("time", 3)}
    codex.workspace["mcp_servers"] = {"time": {"enabled": False}}
    assert codex.mcp_get("time")["enabled"] is enabled
    assert codex.mcp_list()["time"]["enabled"] is enabled


def test_trust_is_keyed_by_the_real_path_of_the_project(codex: CodexHome) -> None:
    # Run through a symbolic link to the project: a trust entry under the real path applies,
    # one under the link's path does not.
    codex.workspace["mcp_servers"] = {"theirs": light_entry("theirs", 1)}
    link = codex.project.parent / "link"
    link.symlink_to(codex.project)
    assert set(codex.mcp_list(cwd=link)) == {"theirs"}
    real, codex.project = codex.project, link
    codex.write()  # the trust entry now names the link
    codex.project = real
    ran = codex.run("mcp", "list", "--json", cwd=link)
    assert ran.returncode == 0, ran.describe()
    assert ran.stdout.strip() == "[]"


def test_a_trust_level_other_than_trusted_or_untrusted_stops_codex(codex: CodexHome) -> None:
    codex.trust = "Trusted"
    codex.write()
    ran = codex.run("mcp", "list", "--json")
    assert ran.returncode != 0
    assert "expected `trusted` or `untrusted`" in ran.stderr, ran.describe()


@pytest.mark.parametrize("trust", ["trusted", "untrusted"])
def test_a_project_file_that_does_not_parse_stops_codex_only_when_trusted(
    codex: CodexHome, trust: str
) -> None:
    codex.trust = trust
    codex.user["mcp_servers"] = {"mine": light_entry("mine", 1)}
    codex.write()
    (codex.project / ".codex").mkdir()
    (codex.project / ".codex" / "config.toml").write_text("[mcp_servers.x\n")
    ran = codex.run("mcp", "list", "--json")
    if trust == "trusted":
        assert ran.returncode != 0
        assert "Error parsing project config file" in ran.stderr, ran.describe()
    else:
        assert ran.returncode == 0, ran.describe()
        assert '"mine"' in ran.stdout


def test_a_project_table_without_a_transport_for_a_new_name_stops_codex(codex: CodexHome) -> None:
    # Only a table merged into a user entry may leave out command and url.
    codex.workspace["mcp_servers"] = {"ghost": {"enabled": False}}
    codex.write()
    ran = codex.run("mcp", "list", "--json")
    assert ran.returncode != 0
    assert "invalid transport" in ran.stderr, ran.describe()


def test_from_a_subfolder_every_codex_folder_down_to_it_is_read(codex: CodexHome) -> None:
    # In a git repository, the root's .codex/config.toml and the subfolder's are both read
    # (trust keyed by the root); agentty reads only the root's.
    codex.git_init()
    codex.user["mcp_servers"] = {"mine": light_entry("mine", 1)}
    codex.workspace["mcp_servers"] = {"root": light_entry("root", 1)}
    codex.write()
    sub = codex.project / "sub"
    (sub / ".codex").mkdir(parents=True)
    (sub / ".codex" / "config.toml").write_text('[mcp_servers.deep]\ncommand = "x"\n')
    assert set(codex.mcp_list(cwd=sub)) == {"mine", "root", "deep"}


@pytest.mark.parametrize(
    ("levels", "read"),
    [
        ({"main": "trusted"}, True),
        ({"main": "untrusted", "worktree": "trusted"}, True),
        ({"main": "trusted", "worktree": "untrusted"}, False),
    ],
    ids=["main", "own-trusted", "own-untrusted"],
)
def test_a_worktree_without_an_entry_of_its_own_is_trusted_as_its_main_repository(
    codex: CodexHome, levels: dict[str, str], read: bool
) -> None:
    codex.git_init()
    codex.workspace["mcp_servers"] = {"theirs": light_entry("theirs", 1)}
    codex.trust = None
    codex.write()
    git = ["git", "-C", str(codex.project), "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "files"], check=True)
    worktree = codex.project.parent / "worktree"
    subprocess.run([*git, "worktree", "add", "-q", str(worktree)], check=True)
    where = {"main": codex.project, "worktree": worktree}
    projects = {str(where[name]): {"trust_level": level} for name, level in levels.items()}
    codex.write({"projects": projects})
    ran = codex.run("mcp", "list", "--json", cwd=worktree)
    assert ran.returncode == 0, ran.describe()
    assert ('"theirs"' in ran.stdout) is read, ran.describe()
