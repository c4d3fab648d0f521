"""A switch flipped with ``agentty-tui`` is obeyed by every host program holding the server.

One fake home holds the same two servers (one connection each) in Claude Code's, Codex's and
Gemini CLI's user files. ``agentty-tui disable`` turns a tool of one off and the other server
off; each program's first model request (through its loopback stand-in) is then read, and again
after ``agentty-tui enable`` turned both back on. What each program sends, not what a file says,
is the judge (docs/HOSTS_MEASURED.md).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import tomlkit

from tests.helpers import run_cli
from tests.hosts import codex_cli
from tests.hosts.claude_code import ClaudeCodeHome, light_entry
from tests.hosts.codex_cli import CodexHome
from tests.hosts.gemini_cli import GeminiHome
from tests.hosts.programs import light_tools, program_path

SERVERS = ("shared", "parked")
"""Both held by all three hosts: ``shared`` loses one tool, ``parked`` is turned off."""


def _entry(name: str) -> dict[str, Any]:
    """The same connection in every host's file: one server to agentty."""
    entry = codex_cli.light_entry(name, 3)
    return {"command": entry["command"], "args": entry["args"]}


@pytest.fixture
def hosts(tmp_path: Path) -> tuple[ClaudeCodeHome, CodexHome, GeminiHome]:
    for program in ("claude", "codex", "gemini"):
        program_path(program)  # skips, with the reason, where one is not installed
    claude = ClaudeCodeHome.make(tmp_path)
    (claude.home / ".codex").mkdir()
    (claude.home / ".gemini").mkdir()
    codex = CodexHome(home=claude.home, project=claude.project)
    gemini = GeminiHome(home=claude.home, project=claude.project)
    for name in SERVERS:
        claude.add("user", name, {"type": "stdio", **_entry(name), "env": {}})
        codex.user.setdefault("mcp_servers", {})[name] = _entry(name)
        gemini.user.setdefault("mcpServers", {})[name] = _entry(name)
    claude.write()
    codex.write()
    gemini.write()
    return claude, codex, gemini


def _agentty(claude: ClaudeCodeHome, *args: str) -> str:
    env = {"HOME": str(claude.home), "PATH": "/usr/bin:/bin"}
    result = run_cli(*args, env=env, whole_env=True, cwd=claude.project)
    assert result.returncode == 0, result.stderr
    return result.stdout


def _sent(hosts: tuple[ClaudeCodeHome, CodexHome, GeminiHome]) -> dict[str, list[str]]:
    """Each program's MCP tools as ``server/tool``, on the files as agentty left them."""
    claude, codex, gemini = hosts
    # The programs' own harnesses write their dicts: take the files back first.
    codex.user = tomlkit.parse((codex.home / ".codex" / "config.toml").read_text()).unwrap()
    for key in ("model", "model_provider", "model_providers"):  # the last run's stand-in
        codex.user.pop(key, None)
    gemini.user = json.loads((gemini.home / ".gemini" / "settings.json").read_text())
    return {
        "claude": sorted(n[5:].replace("__", "/") for n in claude.mcp_tools_sent(write=False)),
        "codex": sorted(n[5:].replace("__", "/") for n in codex.mcp_tools_sent()),
        "gemini": sorted(n[4:].replace("_tool_", "/tool_", 1) for n in gemini.mcp_tools_sent()),
    }


def test_a_tool_and_a_server_switched_off_and_on_with_agentty_are_obeyed_by_every_host(
    hosts: tuple[ClaudeCodeHome, CodexHome, GeminiHome],
) -> None:
    claude = hosts[0]
    every = sorted(f"{server}/{tool}" for server in SERVERS for tool in light_tools(3))
    said = _agentty(claude, "disable", "shared", "tool_0001")
    assert "permissions.deny in ~/.claude/settings.json" in said, said
    assert "disabled_tools in" in said and "excludeTools in" in said, said
    said = _agentty(claude, "disable", "parked")
    assert "disabledMcpServers in ~/.claude.json" in said, said
    off = [name for name in every if name != "shared/tool_0001" and not name.startswith("parked/")]
    assert _sent(hosts) == {"claude": off, "codex": off, "gemini": off}
    listed = json.loads(_agentty(claude, "list", "--json"))
    shared = next(s for s in listed["servers"] if s["name"] == "shared")
    assert {host: view["enabled_tools"] for host, view in shared["hosts"].items()} == {
        host: ["tool_0000", "tool_0002"] for host in ("claude", "gemini", "codex")
    }
    _agentty(claude, "enable", "shared", "tool_0001")
    _agentty(claude, "enable", "parked")
    assert _sent(hosts) == {"claude": every, "codex": every, "gemini": every}
    # Nothing of the old in-entry switches was written into Claude Code's entries.
    state = json.loads((claude.home / ".claude.json").read_text())
    entries = state["mcpServers"].values()
    assert all(set(entry) == {"type", "command", "args", "env"} for entry in entries)


def test_two_hosts_servers_of_one_name_are_each_switched_for_their_own_host(
    tmp_path: Path,
) -> None:
    """Claude Code's local ``time`` and Codex's user ``time`` run different commands: each host
    runs its own (no host reads the other's files). agentty shows them as ``time`` and
    ``time@codex``, and a switch of one reaches its own host alone: the programs' requests say
    so."""
    for program in ("claude", "codex"):
        program_path(program)
    claude = ClaudeCodeHome.make(tmp_path)
    (claude.home / ".codex").mkdir()
    codex = CodexHome(home=claude.home, project=claude.project)
    mine = codex_cli.light_entry("time", 3)
    claude.add(
        "local",
        "time",
        {"type": "stdio", "command": mine["command"], "args": mine["args"], "env": {}},
    )
    codex.user.setdefault("mcp_servers", {})["time"] = codex_cli.light_entry("time", 2)
    claude.write()
    codex.write()
    listed = json.loads(_agentty(claude, "list", "--json"))
    by_name = {server["name"]: server for server in listed["servers"]}
    assert by_name["time"]["source"]["host"] == "claude"
    assert by_name["time@codex"]["entry"] == "time"
    assert by_name["time@codex"]["status"] != "shadowed"
    said = _agentty(claude, "disable", "time@codex", "tool_0001")
    assert "disabled_tools in" in said and "permissions.deny" not in said, said
    said = _agentty(claude, "disable", "time", "tool_0000")
    assert "permissions.deny in .claude/settings.local.json" in said, said
    codex.user = tomlkit.parse((codex.home / ".codex" / "config.toml").read_text()).unwrap()
    assert codex.user["mcp_servers"]["time"]["disabled_tools"] == ["tool_0001"]
    claude_sent = claude.mcp_tools_sent(write=False)
    assert claude_sent == ["mcp__time__tool_0001", "mcp__time__tool_0002"]
    assert codex.mcp_tools_sent() == ["mcp__time__tool_0000"]


def test_claude_codes_server_policy_in_any_settings_file_is_its_view(tmp_path: Path) -> None:
    """``deniedMcpServers`` (by name) and ``allowedMcpServers`` (by command) in the user's
    settings keep servers from starting in the real Claude Code; agentty's Claude Code view
    says so, naming the list."""
    program_path("claude")
    claude = ClaudeCodeHome.make(tmp_path)
    for name in ("time", "clock", "notes"):
        claude.add("user", name, light_entry(name, 2))
    notes = light_entry("notes", 2)
    claude.settings["user"] = {
        "deniedMcpServers": [{"serverName": "time"}],
        "allowedMcpServers": [
            {"serverName": "time"},
            {"serverCommand": [notes["command"], *notes["args"]]},
        ],
    }
    claude.write()
    assert claude.mcp_tools_sent(write=False) == ["mcp__notes__tool_0000", "mcp__notes__tool_0001"]
    listed = json.loads(_agentty(claude, "list", "--json"))
    views = {s["name"]: s["hosts"]["claude"] for s in listed["servers"]}
    assert (views["time"]["off"], views["time"]["off_by"]) == (
        True,
        "deniedMcpServers in ~/.claude/settings.json",
    )
    assert views["clock"]["off"] is True
    assert views["clock"]["off_by"] == "not in allowedMcpServers in ~/.claude/settings.json"
    assert views["notes"]["off"] is False
