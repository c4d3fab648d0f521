"""Gemini CLI's trust in a folder (``gemini_folder_untrusted``) and the scope of its
``mcp.excluded`` / ``mcp.allowed`` (``gemini_mcp_block``), as measured in
tests/hosts/test_gemini_folder_trust.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentty_tui.config.hosts.gemini_trust import (
    gemini_folder_untrusted,
    gemini_mcp_block,
    gemini_trusted_folders_file,
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "work" / "project"
    folder.mkdir(parents=True)
    return folder


def _untrusted(
    tmp_path: Path,
    project: Path,
    rules: dict[str, str] | None,
    settings: str = "{}",
    env: dict[str, str] | None = None,
) -> str | None:
    folders = tmp_path / "trustedFolders.json"
    if rules is not None:
        folders.write_text(json.dumps(rules))
    user = tmp_path / "settings.json"
    user.write_text(settings)
    return gemini_folder_untrusted(folders, user, project, env or {})


def test_the_rules_file_follows_the_environment(tmp_path: Path) -> None:
    assert gemini_trusted_folders_file(tmp_path, {}) == tmp_path / ".gemini/trustedFolders.json"
    env = {"GEMINI_CLI_HOME": str(tmp_path / "g")}
    assert gemini_trusted_folders_file(tmp_path, env) == tmp_path / "g/.gemini/trustedFolders.json"
    env["GEMINI_CLI_TRUSTED_FOLDERS_PATH"] = str(tmp_path / "t.json")
    assert gemini_trusted_folders_file(tmp_path, env) == tmp_path / "t.json"


def test_no_rule_is_not_trusted(tmp_path: Path, project: Path) -> None:
    none: tuple[dict[str, str] | None, ...] = (None, {})
    for rules in none:
        why = _untrusted(tmp_path, project, rules)
        assert why is not None and "no rule for" in why


@pytest.mark.parametrize(
    ("rules", "trusted"),
    [
        ({"{parent}": "TRUST_FOLDER"}, True),
        ({"{parent}": "TRUST_FOLDER", "{project}": "DO_NOT_TRUST"}, False),
        ({"{parent}": "DO_NOT_TRUST", "{project}": "TRUST_FOLDER"}, True),
        ({"{project}/sub": "TRUST_PARENT"}, True),
        ({"{project}/sub": "TRUST_FOLDER"}, False),
        ({"{stem}": "TRUST_FOLDER"}, False),  # a sibling whose name starts the project's
    ],
    ids=["parent", "longest-distrusts", "longest-trusts", "trust-parent", "child", "sibling"],
)
def test_the_longest_matching_rule_decides(
    tmp_path: Path, project: Path, rules: dict[str, str], trusted: bool
) -> None:
    where = {"parent": str(project.parent), "project": str(project), "stem": str(project)[:-1]}
    written = {path.format(**where): level for path, level in rules.items()}
    assert (_untrusted(tmp_path, project, written) is None) is trusted


def test_folder_trust_off_in_the_user_settings_trusts_every_folder(
    tmp_path: Path, project: Path
) -> None:
    settings = '{\n  // mine\n  "security": {"folderTrust": {"enabled": false}}\n}'
    assert _untrusted(tmp_path, project, {str(project): "DO_NOT_TRUST"}, settings) is None


def test_the_environment_overrides_the_rules(tmp_path: Path, project: Path) -> None:
    trusted = {str(project): "TRUST_FOLDER"}
    no = {"GEMINI_CLI_TRUST_WORKSPACE": "false"}
    assert _untrusted(tmp_path, project, trusted, env=no) is not None
    assert _untrusted(tmp_path, project, None, env={"GEMINI_CLI_TRUST_WORKSPACE": "true"}) is None


@pytest.mark.parametrize("text", ["{", "[]", '{"/x": "TRUSTED"}'])
def test_a_rules_file_gemini_would_refuse_trusts_nothing(
    tmp_path: Path, project: Path, text: str
) -> None:
    (tmp_path / "trustedFolders.json").write_text(text)
    (tmp_path / "settings.json").write_text("{}")
    why = gemini_folder_untrusted(
        tmp_path / "trustedFolders.json", tmp_path / "settings.json", project, {}
    )
    assert why is not None and why.startswith("Gemini CLI runs no MCP server")


def test_excluded_counts_from_every_file_and_allowed_must_name_it_in_each() -> None:
    user = {"mcp": {"excluded": ["a"], "allowed": ["B", "c", "d"]}}
    project = {"mcp": {"excluded": ["b"], "allowed": ["b", " C "]}}
    files = [("user.json", user), ("project.json", project)]
    blocks = {name: gemini_mcp_block(name, files) for name in ("A", "b", "C", "d", "e")}
    assert blocks == {
        "A": "mcp.excluded in user.json",
        "b": "mcp.excluded in project.json",
        "C": None,
        "d": "mcp.allowed in project.json leaves it out",
        "e": "mcp.allowed in user.json leaves it out",
    }
    assert gemini_mcp_block("a", [("user.json", {"mcp": {}})]) is None
