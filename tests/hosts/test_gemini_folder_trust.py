"""Gemini CLI's trusted folders and the scope of ``mcp.excluded`` / ``mcp.allowed``
(docs/HOSTS_MEASURED.md)."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.hosts.gemini_cli import LIST_LINE, QUIET_ENV, GeminiHome, light_entry, sent_names
from tests.hosts.programs import host_env, light_tools, program_path, run_program


def _both(gemini: GeminiHome) -> None:
    gemini.user["mcpServers"] = {"mine": light_entry("mine", 1)}
    gemini.workspace["mcpServers"] = {"theirs": light_entry("theirs", 1)}


def _states(gemini: GeminiHome, rules: dict[str, str] | None) -> dict[str, str]:
    """``gemini mcp list`` with ``rules`` as ``trustedFolders.json`` (None: no file)."""
    gemini.write()
    folders = gemini.home / ".gemini" / "trustedFolders.json"
    if rules is None:
        folders.unlink()
    else:
        folders.write_text(json.dumps(rules))
    ran = gemini.run("mcp", "list", write=False)
    assert ran.returncode == 0, ran.describe()
    found = (LIST_LINE.match(line.strip()) for line in ran.stderr.splitlines())
    return {match["name"]: match["state"] for match in found if match}


def test_folder_trust_is_on_by_default_a_folder_without_a_rule_runs_no_server(
    gemini: GeminiHome,
) -> None:
    _both(gemini)
    assert _states(gemini, None) == {"mine": "Disabled", "theirs": "Disabled"}


def test_folder_trust_turned_off_in_the_user_settings_runs_every_server(
    gemini: GeminiHome,
) -> None:
    _both(gemini)
    gemini.user["security"] = {
        "auth": {"selectedType": "gemini-api-key"},
        "folderTrust": {"enabled": False},
    }
    assert _states(gemini, {str(gemini.project): "DO_NOT_TRUST"}) == {
        "mine": "Connected",
        "theirs": "Connected",
    }


def test_folder_trust_turned_off_in_the_projects_settings_is_ignored(
    gemini: GeminiHome,
) -> None:
    _both(gemini)
    gemini.workspace["security"] = {"folderTrust": {"enabled": False}}
    assert _states(gemini, None) == {"mine": "Disabled", "theirs": "Disabled"}


@pytest.mark.parametrize(
    ("rules", "trusted"),
    [
        ({"{parent}": "TRUST_FOLDER"}, True),
        ({"{parent}": "TRUST_FOLDER", "{project}": "DO_NOT_TRUST"}, False),
        ({"{parent}": "DO_NOT_TRUST", "{project}": "TRUST_FOLDER"}, True),
        ({"{project}/sub": "TRUST_PARENT"}, True),
        ({"{project}/sub": "TRUST_FOLDER"}, False),
    ],
    ids=["parent", "longest-distrusts", "longest-trusts", "trust-parent", "child-only"],
)
def test_the_longest_matching_rule_decides(
    gemini: GeminiHome, rules: dict[str, str], trusted: bool
) -> None:
    _both(gemini)
    where = {"parent": str(gemini.project.parent), "project": str(gemini.project)}
    written = {path.format(**where): level for path, level in rules.items()}
    state = "Connected" if trusted else "Disabled"
    assert _states(gemini, written) == {"mine": state, "theirs": state}


def test_mcp_excluded_of_every_file_counts_and_mcp_allowed_is_what_all_allow(
    gemini: GeminiHome,
) -> None:
    # The lists are not replaced file by file: excluded is their union, allowed the
    # intersection of every list given, names compared without case.
    gemini.user["mcpServers"] = {n: light_entry(n, 1) for n in ("a", "b", "c", "d")}
    gemini.user["mcp"] = {"excluded": ["a"], "allowed": ["B", "c", "d"]}
    gemini.workspace["mcp"] = {"excluded": ["b"], "allowed": ["b", "C"]}
    assert _states(gemini, {str(gemini.project): "TRUST_FOLDER"}) == {
        "a": "Blocked",
        "b": "Blocked",
        "c": "Connected",
        "d": "Blocked",
    }
    gemini.trusted = True
    assert gemini.mcp_tools_sent() == sent_names("c", light_tools(1))


def test_from_a_subfolder_the_roots_project_settings_are_not_read(gemini: GeminiHome) -> None:
    # Gemini's project settings are <working folder>/.gemini/settings.json, not the git
    # repository's top (where agentty looks); the folder's trust covers the subfolder.
    subprocess.run(["git", "init", "-q", str(gemini.project)], check=True)
    _both(gemini)
    gemini.write()
    sub = gemini.project / "sub"
    sub.mkdir()
    env = host_env(gemini.home, QUIET_ENV)
    ran = run_program([str(program_path("gemini")), "mcp", "list"], cwd=sub, env=env, timeout=90)
    assert ran.returncode == 0, ran.describe()
    found = (LIST_LINE.match(line.strip()) for line in ran.stderr.splitlines())
    assert {match["name"]: match["state"] for match in found if match} == {"mine": "Connected"}
