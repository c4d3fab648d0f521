"""What Codex (the pinned version) runs and sends to its model, for each switch.

``tools_sent`` reads the tools of its request to the loopback stand-in for the Responses API;
``mcp_list`` / ``mcp_get`` read ``codex mcp list --json`` / ``codex mcp get NAME --json`` (they
read the files only: no server is started). See docs/HOSTS_MEASURED.md.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.hosts.codex_cli import CodexHome, light_entry, sent_names
from tests.hosts.programs import light_tools


def test_disabled_tools_enabled_tools_and_enabled_false_shape_the_request(
    codex: CodexHome,
) -> None:
    codex.user["mcp_servers"] = {
        "dis": light_entry("dis", 3, disabled_tools=["tool_0001"]),
        "en": light_entry("en", 3, enabled_tools=["tool_0002"]),
        # disabled_tools wins over enabled_tools
        "both": light_entry(
            "both", 3, enabled_tools=["tool_0000", "tool_0001"], disabled_tools=["tool_0001"]
        ),
        "off": light_entry("off", 3, enabled=False),
        "kept": light_entry("kept", 2),
    }
    expected = [
        *sent_names("dis", ["tool_0000", "tool_0002"]),
        *sent_names("en", ["tool_0002"]),
        *sent_names("both", ["tool_0000"]),
        *sent_names("kept", light_tools(2)),
    ]
    assert codex.mcp_tools_sent() == sorted(expected)


def test_mcp_get_and_list_show_each_switch(codex: CodexHome) -> None:
    codex.user["mcp_servers"] = {
        "dis": light_entry("dis", 3, disabled_tools=["tool_0001"]),
        "en": light_entry("en", 3, enabled_tools=["tool_0002"]),
        "off": light_entry("off", 3, enabled=False),
    }
    got = codex.mcp_get("dis")
    assert (got["enabled"], got["disabled_tools"], got["enabled_tools"]) == (
        True,
        ["tool_0001"],
        None,
    )
    assert codex.mcp_get("en")["enabled_tools"] == ["tool_0002"]
    listed = codex.mcp_list()
    assert {name: row["enabled"] for name, row in listed.items()} == {
        "dis": True,
        "en": True,
        "off": False,
    }
    assert listed["dis"]["transport"]["args"][-2:] == ["--name", "dis"]


def test_server_names_are_spelled_with_dots_and_dashes_as_underscores_and_others_not_sent(
    codex: CodexHome,
) -> None:
    # A name with a space or a non-ASCII letter is listed by `codex mcp list` but its tools are
    # never sent (nothing is said on stderr).
    names = ["dot.name", "dash-x", "a__b", "UPPER", "space name", "ünï"]
    codex.user["mcp_servers"] = {name: light_entry("n", 1) for name in names}
    assert set(codex.mcp_list()) == set(names)
    spelled = ["dot_name", "dash_x", "a__b", "UPPER"]
    assert codex.mcp_tools_sent() == sorted(f"mcp__{s}__tool_0000" for s in spelled)


@pytest.mark.parametrize(
    ("trust", "read"),
    [("trusted", True), ("untrusted", False), (None, False)],
    ids=["trusted", "untrusted", "no-entry"],
)
def test_the_project_file_is_read_only_in_a_trusted_project(
    codex: CodexHome, trust: str | None, read: bool
) -> None:
    codex.trust = trust
    codex.user["mcp_servers"] = {"mine": light_entry("mine", 1)}
    codex.workspace["mcp_servers"] = {"theirs": light_entry("theirs", 1)}
    assert set(codex.mcp_list()) == ({"mine", "theirs"} if read else {"mine"})


def test_a_trusted_projects_server_is_sent(codex: CodexHome) -> None:
    codex.workspace["mcp_servers"] = {"theirs": light_entry("theirs", 2)}
    assert codex.mcp_tools_sent() == sent_names("theirs", light_tools(2))


def test_the_project_file_is_merged_into_the_user_entry_key_by_key(codex: CodexHome) -> None:
    # Not a replacement: keys the project's table leaves out keep the user's values.
    codex.user["mcp_servers"] = {
        "same": {
            "command": "python3",
            "args": ["user"],
            "env": {"FROM_USER": "1"},
            "enabled_tools": ["u"],
        }
    }
    codex.workspace["mcp_servers"] = {"same": {"args": ["project"], "disabled_tools": ["p"]}}
    got: dict[str, Any] = codex.mcp_get("same")
    assert got["transport"]["command"] == "python3"
    assert got["transport"]["args"] == ["project"]
    assert got["transport"]["env"] == {"FROM_USER": "1"}
    assert (got["enabled_tools"], got["disabled_tools"]) == (["u"], ["p"])


@pytest.mark.parametrize("git", [True, False], ids=["git-repository", "plain-folder"])
def test_from_a_subfolder_the_project_file_is_read_only_in_a_git_repository(
    codex: CodexHome, git: bool
) -> None:
    # The project root is the git repository's top; without git it is the working folder, so
    # a parent's .codex/config.toml is not read.
    if git:
        codex.git_init()
    codex.user["mcp_servers"] = {"mine": light_entry("mine", 1)}
    codex.workspace["mcp_servers"] = {"theirs": light_entry("theirs", 1)}
    sub = codex.project / "sub"
    sub.mkdir()
    assert set(codex.mcp_list(cwd=sub)) == ({"mine", "theirs"} if git else {"mine"})


def test_codex_mcp_add_writes_tables_of_this_shape(codex: CodexHome) -> None:
    # The bytes a product should imitate when it writes an entry (issue 21).
    codex.trust = None
    for args in (
        ("c", "--env", "K=V", "--", "python3", "/c.py", "--a", "1"),
        ("w", "--url", "http://127.0.0.1:9/mcp"),
    ):
        ran = codex.run("mcp", "add", *args)
        assert ran.returncode == 0, ran.describe()
    assert (codex.home / ".codex" / "config.toml").read_text() == (
        "[mcp_servers.c]\n"
        'command = "python3"\n'
        'args = ["/c.py", "--a", "1"]\n'
        "\n"
        "[mcp_servers.c.env]\n"
        'K = "V"\n'
        "\n"
        "[mcp_servers.w]\n"
        'url = "http://127.0.0.1:9/mcp"\n'
    )
