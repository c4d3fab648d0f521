"""What Claude Code (the pinned version) sends to its model, for each switch in its files.

Each test writes real files in a fake home, runs ``claude -p hi`` against the loopback stand-in
for the Anthropic API and reads the ``tools`` of its first request. One run holds several
servers, one per case, named after the case (a run costs 3 to 10 s). A test that records that
Claude Code ignores something (``tools.exclude``, ``disabled``) is meant to break when Claude
Code starts obeying it: then the product's switches can change (docs/HOSTS_MEASURED.md).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.hosts.claude_code import ClaudeCodeHome, Scope, light_entry, sent_names

SCOPES: tuple[Scope, ...] = ("user", "project", "local")


def test_a_user_scope_servers_tools_are_sent_as_mcp__server__tool(claude: ClaudeCodeHome) -> None:
    claude.add("user", "t", light_entry("t", 3))
    assert claude.mcp_tools_sent() == [
        "mcp__t__tool_0000",
        "mcp__t__tool_0001",
        "mcp__t__tool_0002",
    ]


@pytest.mark.parametrize("settings_scope", SCOPES)
def test_a_deny_rule_in_any_settings_file_leaves_the_tool_out(
    claude: ClaudeCodeHome, settings_scope: Scope
) -> None:
    # The rule works whichever settings file holds it, for an entry of any scope.
    for scope in SCOPES:
        claude.add(scope, f"in_{scope}", light_entry(scope, 3))
    deny = [f"mcp__in_{scope}__tool_0001" for scope in SCOPES]
    claude.settings[settings_scope] = {"permissions": {"deny": deny}}
    expected = [n for scope in SCOPES for n in sent_names(f"in_{scope}", 3) if n not in deny]
    assert claude.mcp_tools_sent() == sorted(expected)


def test_a_server_wide_deny_rule_leaves_every_tool_out(claude: ClaudeCodeHome) -> None:
    for name in ("bare", "star", "kept"):
        claude.add("user", name, light_entry(name, 3))
    claude.settings["user"] = {"permissions": {"deny": ["mcp__bare", "mcp__star__*"]}}
    assert claude.mcp_tools_sent() == sent_names("kept", 3)


def test_deny_wins_over_an_allow_rule_of_a_narrower_scope(claude: ClaudeCodeHome) -> None:
    claude.add("user", "t", light_entry("t", 3))
    claude.settings["user"] = {"permissions": {"deny": ["mcp__t__tool_0001"]}}
    claude.settings["local"] = {"permissions": {"allow": ["mcp__t__tool_0001"]}}
    assert claude.mcp_tools_sent() == ["mcp__t__tool_0000", "mcp__t__tool_0002"]


def test_switches_inside_the_entry_are_ignored(claude: ClaudeCodeHome) -> None:
    # Today's truth: Claude Code reads no switch in the server's own entry. When this test
    # breaks, Claude Code obeys one; docs/HOSTS_MEASURED.md and the product follow.
    switches: dict[str, dict[str, Any]] = {
        "excluded": {"tools": {"exclude": ["tool_0001"]}},
        "disabled": {"disabled": True},
        "not_enabled": {"enabled": False},
        "disabled_tools": {"disabledTools": ["tool_0001"]},
    }
    for name, switch in switches.items():
        claude.add("user", name, {**light_entry(name, 3), **switch})
    assert claude.mcp_tools_sent() == sorted(n for s in switches for n in sent_names(s, 3))


def test_disabled_mcp_servers_in_the_projects_entry_stops_the_server(
    claude: ClaudeCodeHome,
) -> None:
    # What Claude Code's own /mcp writes; it stops a .mcp.json server too, and wins over
    # enabledMcpServers.
    for scope in SCOPES:
        claude.add(scope, f"off_{scope}", light_entry(scope, 3))
    claude.add("user", "both", light_entry("both", 3))
    claude.add("user", "kept", light_entry("kept", 3))
    claude.project_state["disabledMcpServers"] = [f"off_{scope}" for scope in SCOPES] + ["both"]
    claude.project_state["enabledMcpServers"] = ["both"]
    assert claude.mcp_tools_sent() == sent_names("kept", 3)


@pytest.mark.parametrize("trusted", [True, False], ids=["trusted", "trust-dialog-not-accepted"])
def test_an_mcp_json_server_starts_in_a_headless_run_without_approval(
    claude: ClaudeCodeHome, trusted: bool
) -> None:
    # `claude -p` asks nothing: neither the approval of .mcp.json servers nor the trust dialog
    # holds a project server back (the interactive program shows them as pending approval).
    # enableAllProjectMcpServers false is no off switch either.
    claude.add("project", "t", light_entry("t", 3))
    claude.project_state["hasTrustDialogAccepted"] = trusted
    claude.settings["local"] = {"enableAllProjectMcpServers": False}
    assert claude.mcp_tools_sent() == sent_names("t", 3)


def test_disabled_mcpjson_servers_stops_an_mcp_json_server_wherever_it_is_written(
    claude: ClaudeCodeHome,
) -> None:
    for name in ("in_local", "in_project", "in_claude_json", "both", "kept"):
        claude.add("project", name, light_entry(name, 3))
    claude.settings["local"] = {
        "disabledMcpjsonServers": ["in_local", "both"],
        "enabledMcpjsonServers": ["both"],  # disabled wins
    }
    claude.settings["project"] = {"disabledMcpjsonServers": ["in_project"]}
    claude.project_state["disabledMcpjsonServers"] = ["in_claude_json"]
    assert claude.mcp_tools_sent() == sent_names("kept", 3)


def test_server_names_are_spelled_with_each_other_character_as_an_underscore(
    claude: ClaudeCodeHome,
) -> None:
    names = {
        "dot.name": "dot_name",
        "space name": "space_name",
        "slash/name": "slash_name",
        "colon:name": "colon_name",
        "plus+at@": "plus_at_",
        "ünï": "_n_",  # one underscore per character, not per byte
        "under_score-dash": "under_score-dash",
        "UPPER": "UPPER",
        "a__b": "a__b",  # kept: mcp__a__b__tool_0000 is ambiguous to a reader
        "x" * 70: "x" * 70,  # not shortened
    }
    for name in names:
        claude.add("user", name, light_entry("n", 1))
    assert claude.mcp_tools_sent() == sorted(f"mcp__{s}__tool_0000" for s in names.values())


def test_a_deny_rule_matches_the_spelled_name_only(claude: ClaudeCodeHome) -> None:
    # A rule for a server whose name has other characters must use the spelled name.
    rules = {
        "one.spelled": "mcp__one_spelled__tool_0001",
        "all.spelled": "mcp__all_spelled",
        "one.raw": "mcp__one.raw__tool_0001",
        "all.raw": "mcp__all.raw",
    }
    for name in rules:
        claude.add("user", name, light_entry(name, 3))
    claude.settings["user"] = {"permissions": {"deny": list(rules.values())}}
    expected = [
        *sent_names("one_raw", 3),
        *sent_names("all_raw", 3),
        "mcp__one_spelled__tool_0000",
        "mcp__one_spelled__tool_0002",
    ]
    assert claude.mcp_tools_sent() == sorted(expected)


def test_the_same_name_in_several_scopes_runs_one_server_local_then_project_then_user(
    claude: ClaudeCodeHome,
) -> None:
    # Each scope's entry runs a server with its own number of tools: the count sent tells
    # which entry Claude Code started.
    tools: dict[Scope, int] = {"local": 1, "project": 2, "user": 3}
    cases: dict[str, tuple[tuple[Scope, ...], Scope]] = {
        "all_three": (("user", "project", "local"), "local"),
        "user_local": (("user", "local"), "local"),
        "project_local": (("project", "local"), "local"),
        "user_project": (("user", "project"), "project"),
    }
    for name, (scopes, _) in cases.items():
        for scope in scopes:
            claude.add(scope, name, light_entry(scope, tools[scope]))
    expected = [n for name, (_, won) in cases.items() for n in sent_names(name, tools[won])]
    assert claude.mcp_tools_sent() == sorted(expected)


def test_disable_autoupdater_does_not_stop_mcp_servers_here(claude: ClaudeCodeHome) -> None:
    # An earlier measurement saw no MCP server load with DISABLE_AUTOUPDATER=1; with this
    # harness (MCP_CONNECTION_NONBLOCKING=false) they load. Kept to catch a change either way.
    claude.add("user", "t", light_entry("t", 3))
    assert claude.mcp_tools_sent({"DISABLE_AUTOUPDATER": "1"}) == sent_names("t", 3)


@pytest.mark.parametrize(
    ("nonblocking", "sent"),
    [("false", sent_names("slow", 3)), ("true", ["WaitForMcpServers"])],
)
def test_the_first_request_waits_for_a_slow_server_only_with_nonblocking_false(
    claude: ClaudeCodeHome, nonblocking: str, sent: list[str]
) -> None:
    # Why every run sets MCP_CONNECTION_NONBLOCKING=false: otherwise a server that takes a
    # few seconds to start is not in the first request, which offers a waiting tool instead.
    entry = light_entry("slow", 3)
    delayed = 'sleep 3; exec "$0" "$@"'  # the server's own start-up delay
    claude.add(
        "user",
        "slow",
        {**entry, "command": "sh", "args": ["-c", delayed, entry["command"], *entry["args"]]},
    )
    names = claude.tools_sent({"MCP_CONNECTION_NONBLOCKING": nonblocking})
    assert sorted(n for n in names if n.startswith("mcp__") or "Mcp" in n) == sent


def test_claude_mcp_list_is_not_what_a_run_sends(claude: ClaudeCodeHome) -> None:
    # `claude mcp list` starts and shows a server that disabledMcpServers keeps out of a run,
    # shows an unapproved .mcp.json server as pending though a headless run starts it, and
    # leaves out a .mcp.json server disabledMcpjsonServers stops: a product that reads the
    # host's view must read the files, not this list.
    for name in ("kept", "off"):
        claude.add("user", name, light_entry(name, 1))
    for name in ("pending", "approved", "refused"):
        claude.add("project", name, light_entry(name, 1))
    claude.project_state["disabledMcpServers"] = ["off"]
    claude.settings["local"] = {
        "enabledMcpjsonServers": ["approved"],
        "disabledMcpjsonServers": ["refused"],
    }
    listed = claude.mcp_list()
    assert {name: status.split(" ", 1)[1] for name, status in listed.items()} == {
        "kept": "Connected",
        "off": "Connected",
        "pending": "Pending approval (run `claude` to approve)",
        "approved": "Connected",
    }
    expected = [*sent_names("kept", 1), *sent_names("pending", 1), *sent_names("approved", 1)]
    assert claude.mcp_tools_sent() == sorted(expected)


def test_claude_mcp_add_writes_entries_of_this_shape(claude: ClaudeCodeHome) -> None:
    # The bytes a product should imitate when it writes an entry (issue 21).
    claude.write()
    for args in (
        ("-s", "user", "u", "--", "python3", "/u.py", "--a", "1"),
        ("-s", "local", "l", "-e", "K=V", "--", "python3", "/l.py"),
        ("-s", "project", "p", "--", "python3", "/p.py"),
        ("-s", "user", "--transport", "http", "web", "http://127.0.0.1:9/mcp"),
    ):
        ran = claude.run("mcp", "add", *args, write=False)
        assert ran.returncode == 0, ran.describe()
    state = json.loads((claude.home / ".claude.json").read_text())
    assert state["mcpServers"] == {
        "u": {"type": "stdio", "command": "python3", "args": ["/u.py", "--a", "1"], "env": {}},
        "web": {"type": "http", "url": "http://127.0.0.1:9/mcp"},
    }
    local = state["projects"][str(claude.project)]
    assert local["mcpServers"] == {
        "l": {"type": "stdio", "command": "python3", "args": ["/l.py"], "env": {"K": "V"}}
    }
    mcp_json = (claude.project / ".mcp.json").read_text()
    assert json.loads(mcp_json) == {
        "mcpServers": {"p": {"type": "stdio", "command": "python3", "args": ["/p.py"], "env": {}}}
    }
    # Two-space indent, no newline at the end.
    assert mcp_json == json.dumps(json.loads(mcp_json), indent=2)
