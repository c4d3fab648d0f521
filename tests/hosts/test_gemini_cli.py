"""What Gemini CLI (the pinned version) runs and sends to its model, for each switch.

``tools_sent`` reads the function declarations of its request to the loopback stand-in for the
Gemini API; ``mcp_list`` reads ``gemini mcp list``. See docs/HOSTS_MEASURED.md.
"""

from __future__ import annotations

import json

from tests.hosts.gemini_cli import GeminiHome, light_entry, sent_names
from tests.hosts.programs import light_tools


def test_exclude_tools_include_tools_and_mcp_excluded_shape_the_request(
    gemini: GeminiHome,
) -> None:
    gemini.user["mcpServers"] = {
        "ex": light_entry("ex", 3, excludeTools=["tool_0001"]),
        "inc": light_entry("inc", 3, includeTools=["tool_0002"]),
        # exclude wins over include
        "both": light_entry(
            "both", 3, includeTools=["tool_0000", "tool_0001"], excludeTools=["tool_0001"]
        ),
        "blocked": light_entry("blocked", 3),
        "kept": light_entry("kept", 3),
    }
    gemini.user["mcp"] = {"excluded": ["blocked"]}
    expected = [
        *sent_names("ex", ["tool_0000", "tool_0002"]),
        *sent_names("inc", ["tool_0002"]),
        *sent_names("both", ["tool_0000"]),
        *sent_names("kept", light_tools(3)),
    ]
    assert gemini.mcp_tools_sent() == sorted(expected)


def test_server_names_keep_dots_and_dashes_and_other_characters_become_underscores(
    gemini: GeminiHome,
) -> None:
    names = {
        "dot.name": "dot.name",
        "dash-name": "dash-name",
        "space name": "space_name",
        "ünï": "_n_",
        "a__b": "a__b",
    }
    gemini.user["mcpServers"] = {name: light_entry("n", 1) for name in names}
    assert gemini.mcp_tools_sent() == sorted(f"mcp_{s}_tool_0000" for s in names.values())


def test_the_project_entry_replaces_the_user_entry_of_the_same_name_whole(
    gemini: GeminiHome,
) -> None:
    # The user entry's excludeTools does not carry over: the entries are not merged.
    gemini.user["mcpServers"] = {"same": light_entry("user", 3, excludeTools=["tool_0000"])}
    gemini.workspace["mcpServers"] = {"same": light_entry("project", 2)}
    assert gemini.mcp_tools_sent() == sent_names("same", light_tools(2))


def test_the_projects_mcp_excluded_blocks_a_user_server_in_mcp_list(
    gemini: GeminiHome,
) -> None:
    # The project's mcp.excluded blocks a server of the user's file.
    gemini.user["mcpServers"] = {"mine": light_entry("mine", 1)}
    gemini.workspace["mcpServers"] = {"theirs": light_entry("theirs", 1)}
    gemini.workspace["mcp"] = {"excluded": ["mine"]}
    listed = gemini.mcp_list()
    assert {name: row.state for name, row in listed.items()} == {
        "mine": "Blocked",
        "theirs": "Connected",
    }
    assert listed["theirs"].transport == "stdio"
    assert listed["theirs"].command.endswith("--tools 1 --name theirs")


def test_mcp_list_blocks_every_server_missing_from_mcp_allowed(gemini: GeminiHome) -> None:
    gemini.user["mcpServers"] = {"listed": light_entry("a", 1), "other": light_entry("b", 1)}
    gemini.user["mcp"] = {"allowed": ["listed"]}
    states = {name: row.state for name, row in gemini.mcp_list().items()}
    assert states == {"listed": "Connected", "other": "Blocked"}


def test_an_untrusted_folder_runs_no_server_not_even_a_user_one(gemini: GeminiHome) -> None:
    gemini.user["mcpServers"] = {"mine": light_entry("mine", 1)}
    gemini.workspace["mcpServers"] = {"theirs": light_entry("theirs", 1)}
    gemini.trusted = False
    states = {name: row.state for name, row in gemini.mcp_list().items()}
    assert states == {"mine": "Disabled", "theirs": "Disabled"}
    # A headless run there refuses to start at all.
    ran = gemini.run("-m", "gemini-2.5-flash", "-p", "hi", extra_env={"GEMINI_API_KEY": "x"})
    assert ran.returncode == 55, ran.describe()
    assert "not running in a trusted directory" in ran.stderr


def test_a_headless_run_in_the_default_mode_sends_only_trusted_servers_tools(
    gemini: GeminiHome,
) -> None:
    # Tools that would need a confirmation are left out of a non-interactive run.
    gemini.user["mcpServers"] = {
        "asks": light_entry("asks", 2),
        "trusted": light_entry("trusted", 2, trust=True),
    }
    sent = gemini.mcp_tools_sent("--approval-mode", "default")
    assert sent == sent_names("trusted", light_tools(2))


def test_gemini_mcp_disable_does_not_find_a_server_of_the_settings_files(
    gemini: GeminiHome,
) -> None:
    # 0.61.0: its own off switch answers "not found" for a server of either settings file and
    # writes nothing. When this breaks, read what it writes (and where) as a switch.
    gemini.user["mcpServers"] = {"mine": light_entry("mine", 1)}
    gemini.workspace["mcpServers"] = {"theirs": light_entry("theirs", 1)}
    gemini.write()
    before = sorted(p.read_bytes() for p in gemini.home.rglob("*.json") if "tmp" not in p.parts)
    for name in ("mine", "theirs"):
        ran = gemini.run("mcp", "disable", name)
        assert f"Server '{name}' not found" in ran.stdout + ran.stderr, ran.describe()
    after = sorted(p.read_bytes() for p in gemini.home.rglob("*.json") if "tmp" not in p.parts)
    assert after == before


def test_gemini_mcp_add_writes_entries_of_this_shape(gemini: GeminiHome) -> None:
    # The bytes a product should imitate when it writes an entry (issue 21).
    gemini.write()
    for args in (
        ("-s", "user", "-e", "K=V", "g", "python3", "/g.py", "--a", "1"),
        ("-s", "project", "--transport", "http", "gw", "http://127.0.0.1:9/mcp"),
    ):
        ran = gemini.run("mcp", "add", *args, write=False)
        assert ran.returncode == 0, ran.describe()
    user = json.loads((gemini.home / ".gemini" / "settings.json").read_text())
    assert user["mcpServers"] == {
        "g": {"command": "python3", "args": ["/g.py", "--a", "1"], "env": {"K": "V"}}
    }
    text = (gemini.project / ".gemini" / "settings.json").read_text()
    assert json.loads(text) == {
        "mcpServers": {"gw": {"url": "http://127.0.0.1:9/mcp", "type": "http"}}
    }
    # Two-space indent, no newline at the end.
    assert text == json.dumps(json.loads(text), indent=2)
