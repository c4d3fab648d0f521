"""Claude Code's managed MCP file and managed settings, as the real program reads them.

Claude Code reads ``/etc/claude-code/managed-mcp.json`` and ``managed-settings.json`` at a
path fixed in its binary. Each test lays its files over ``/etc`` in a private mount namespace
(``etc_overlay``: nothing else on the machine sees them) and runs both Claude Code and
``agentty-tui`` inside it: what Claude Code sends to its model (the loopback stand-in's first
request) is the judge of what agentty shows and writes.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.hosts.claude_code import ClaudeCodeHome, light_entry, sent_names
from tests.hosts.etc_overlay import etc_overlay
from tests.hosts.programs import Ran, host_env, run_program

MANAGED_MCP = "claude-code/managed-mcp.json"
MANAGED_SETTINGS = "claude-code/managed-settings.json"


@pytest.fixture
def claude(claude: ClaudeCodeHome, tmp_path: Path) -> ClaudeCodeHome:
    """The fake home, its runs inside an ``/etc`` overlay (skips where there can be none),
    with a user, a local and an approved project server of its own."""
    claude.etc = etc_overlay(tmp_path / "etc")
    claude.add("user", "u", light_entry("u", 2))
    claude.add("local", "l", light_entry("l", 2))
    claude.add("project", "p", light_entry("p", 2))
    claude.settings["local"] = {"enableAllProjectMcpServers": True}
    claude.write()
    return claude


def _managed(claude: ClaudeCodeHome, servers: Any, *, raw: str | None = None) -> None:
    assert claude.etc is not None
    text = raw if raw is not None else json.dumps({"mcpServers": servers})
    claude.etc.files[MANAGED_MCP] = text


def _agentty(claude: ClaudeCodeHome, *args: str) -> Ran:
    """``agentty-tui ARGS`` in the project, inside the same ``/etc`` overlay as Claude Code,
    on the files as they are (the home's dicts are not written again: they would undo what
    agentty wrote)."""
    assert claude.etc is not None
    argv = claude.etc.wrap([sys.executable, "-m", "agentty_tui", *args])
    env = host_env(claude.home, {"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    return run_program(argv, cwd=claude.project, env=env, timeout=90)


def _claude_view(claude: ClaudeCodeHome) -> dict[str, tuple[bool, list[str], str | None]]:
    """What agentty says Claude Code runs: by server, (off, enabled tools, why off)."""
    ran = _agentty(claude, "list", "--json")
    assert ran.returncode == 0, ran.describe()
    view = {}
    for server in json.loads(ran.stdout)["servers"]:
        seen = server["hosts"]["claude"]
        view[server["name"]] = (seen["off"], seen["enabled_tools"], seen["off_by"])
    return view


def _sent_by_agentty(view: dict[str, tuple[bool, list[str], str | None]]) -> list[str]:
    """The ``mcp__`` tools agentty's view says Claude Code sends, sorted."""
    return sorted(
        f"mcp__{name}__{tool}"
        for name, (off, tools, _) in view.items()
        if not off
        for tool in tools
    )


def test_the_managed_file_takes_exclusive_control_as_agentty_shows(
    claude: ClaudeCodeHome,
) -> None:
    _managed(claude, {"m": light_entry("m", 3)})
    assert claude.mcp_tools_sent() == sent_names("m", 3)
    view = _claude_view(claude)
    assert _sent_by_agentty(view) == sent_names("m", 3)
    for name in ("u", "l", "p"):
        off, _, why = view[name]
        assert off and why is not None and "exclusive control" in why, view[name]


def test_an_empty_managed_file_is_a_lockdown_with_no_server(claude: ClaudeCodeHome) -> None:
    _managed(claude, {})
    assert claude.mcp_tools_sent() == []
    view = _claude_view(claude)
    assert _sent_by_agentty(view) == []
    assert sorted(view) == ["l", "p", "u"]


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param("{ not json", id="not-json"),
        pytest.param('{"mcpServers": []}', id="servers-not-an-object"),
        pytest.param(
            json.dumps({"mcpServers": {"m": light_entry("m", 3)}}) + " " * (2 * 1024 * 1024),
            id="over-2-MiB",
        ),
    ],
)
def test_a_managed_file_claude_code_skips_is_skipped_by_agentty_too(
    claude: ClaudeCodeHome, raw: str
) -> None:
    _managed(claude, None, raw=raw)
    # agentty asks before it runs a project's server (Claude Code's approval is its own).
    trusted = _agentty(claude, "trust", "p")
    assert trusted.returncode == 0, trusted.describe()
    everyone = sorted(sent_names("u", 2) + sent_names("l", 2) + sent_names("p", 2))
    assert claude.mcp_tools_sent(write=False) == everyone
    assert _sent_by_agentty(_claude_view(claude)) == everyone


def test_a_managed_servers_tool_and_the_server_switched_with_agentty_are_obeyed(
    claude: ClaudeCodeHome,
) -> None:
    _managed(claude, {"m": light_entry("m", 3), "n": light_entry("n", 2)})
    off_tool = _agentty(claude, "disable", "m", "tool_0001")
    assert off_tool.returncode == 0, off_tool.describe()
    off_server = _agentty(claude, "disable", "n")
    assert off_server.returncode == 0, off_server.describe()
    expected = ["mcp__m__tool_0000", "mcp__m__tool_0002"]
    assert claude.mcp_tools_sent(write=False) == expected
    assert _sent_by_agentty(_claude_view(claude)) == expected
    for args in (("enable", "m", "tool_0001"), ("enable", "n")):
        on = _agentty(claude, *args)
        assert on.returncode == 0, on.describe()
    everything = sorted(sent_names("m", 3) + sent_names("n", 2))
    assert claude.mcp_tools_sent(write=False) == everything
    assert _sent_by_agentty(_claude_view(claude)) == everything


def test_the_managed_policy_applies_to_the_managed_servers_as_agentty_shows(
    claude: ClaudeCodeHome,
) -> None:
    _managed(claude, {"m": light_entry("m", 2), "denied": light_entry("denied", 2)})
    assert claude.etc is not None
    claude.etc.files[MANAGED_SETTINGS] = json.dumps(
        {"deniedMcpServers": [{"serverName": "denied"}]}
    )
    assert claude.mcp_tools_sent() == sent_names("m", 2)
    view = _claude_view(claude)
    assert _sent_by_agentty(view) == sent_names("m", 2)
    off, _, why = view["denied"]
    assert off and why is not None and "deniedMcpServers" in why, view["denied"]


def test_adding_and_connecting_are_refused_under_exclusive_control_as_claude_refuses(
    claude: ClaudeCodeHome,
) -> None:
    _managed(claude, {"m": light_entry("m", 2)})
    refused = claude.run("mcp", "add", "x", "--", "true")
    assert refused.returncode != 0
    assert "exclusive control" in refused.stdout + refused.stderr, refused.describe()
    before = (claude.home / ".claude.json").read_text()
    source = str(claude.home / ".claude.json")
    added = _agentty(claude, "add", "x", "--scope", "user", "--source", source, "--", "true")
    assert added.returncode != 0 and "exclusive control" in added.stderr, added.describe()
    connected = _agentty(claude, "connect", "claude", "--yes")
    assert connected.returncode != 0, connected.describe()
    assert "cannot connect Claude Code" in connected.stderr, connected.describe()
    assert "exclusive control" in connected.stderr, connected.describe()
    # Nothing was moved: Claude Code's own file is as it was, and it is not connected.
    assert (claude.home / ".claude.json").read_text() == before
    assert not (claude.home / ".config" / "agentty" / "connected" / "claude").exists()
