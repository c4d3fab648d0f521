"""``agentty-tui connect`` leaves a host one MCP server, agentty's gateway, and ``disconnect``
gives the host its own servers back: as the host programs themselves list them
(``codex mcp list``, ``gemini mcp list``, ``claude mcp get``), not as a file says."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import tomlkit

from tests.helpers import run_cli
from tests.hosts import codex_cli, gemini_cli
from tests.hosts.claude_code import ClaudeCodeHome, light_entry
from tests.hosts.claude_session import interactive_session
from tests.hosts.codex_cli import CodexHome
from tests.hosts.gemini_cli import LIST_LINE, GeminiHome
from tests.hosts.programs import light_argv, light_tools, program_path


def _agentty(home: Path, project: Path, *args: str) -> str:
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin"}
    result = run_cli(*args, env=env, whole_env=True, cwd=project)
    assert result.returncode == 0, result.stderr
    return result.stdout


def _agentty_process(home: Path, project: Path, *args: str) -> str:
    """``_agentty`` in a process of its own, as a user runs it: beside a host program this
    process started, since a command's way out ends its own children outside its session."""
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin"}
    argv = [sys.executable, "-m", "agentty_tui", *args]
    result = subprocess.run(argv, env=env, cwd=project, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout


def _codex_names(codex: CodexHome) -> list[str]:
    ran = codex.run("mcp", "list", "--json")
    assert ran.returncode == 0, ran.describe()
    return sorted(str(server["name"]) for server in json.loads(ran.stdout))


def _gemini_names(gemini: GeminiHome) -> list[str]:
    ran = gemini.run("mcp", "list", write=False)
    assert ran.returncode == 0, ran.describe()
    lines = (ran.stdout + "\n" + ran.stderr).splitlines()
    return sorted(m["name"] for line in lines if (m := LIST_LINE.match(line.strip())))


def test_codex_lists_agentty_alone_once_connected_and_its_own_after(codex: CodexHome) -> None:
    for name in ("time", "notes"):
        codex.user.setdefault("mcp_servers", {})[name] = codex_cli.light_entry(name, 2)
    codex.write()
    before = (codex.home / ".codex" / "config.toml").read_bytes()
    said = _agentty(codex.home, codex.project, "connect", "codex", "--yes")
    assert "move 2 server(s)" in said, said
    assert _codex_names(codex) == ["agentty"]
    entry = tomlkit.parse((codex.home / ".codex" / "config.toml").read_text())["mcp_servers"]
    assert entry["agentty"]["args"][-6:] == ["serve", "--shared", "--host", "codex", "--wait", "50"]
    # Codex's own 10 s start limit would cut the gateway's wait short: the entry raises it, and
    # the real program reads it so.
    got = codex.run("mcp", "get", "agentty", "--json")
    assert got.returncode == 0, got.describe()
    assert json.loads(got.stdout)["startup_timeout_sec"] == 60, got.stdout
    listed = json.loads(_agentty(codex.home, codex.project, "list", "--json"))
    assert {s["name"] for s in listed["servers"]} == {"time", "notes"}
    _agentty(codex.home, codex.project, "disconnect", "codex", "--yes")
    assert _codex_names(codex) == ["notes", "time"]
    assert (codex.home / ".codex" / "config.toml").read_bytes() == before


def test_gemini_lists_agentty_alone_once_connected_and_its_own_after(gemini: GeminiHome) -> None:
    gemini.user["mcpServers"] = {"time": gemini_cli.light_entry("time", 2)}
    gemini.write()
    _agentty(gemini.home, gemini.project, "connect", "gemini", "--yes")
    assert _gemini_names(gemini) == ["agentty"]
    _agentty(gemini.home, gemini.project, "disconnect", "gemini", "--yes")
    assert _gemini_names(gemini) == ["time"]


def test_claude_code_lists_agentty_alone_once_connected_and_its_own_after(
    claude: ClaudeCodeHome,
) -> None:
    claude.add("user", "time", light_entry("time", 2))
    claude.write()
    _agentty(claude.home, claude.project, "connect", "claude", "--yes")
    got = claude.run("mcp", "get", "agentty", write=False)
    assert got.returncode == 0 and "serve --shared --host claude" in got.stdout, got.describe()
    assert claude.run("mcp", "get", "time", write=False).returncode != 0
    state = json.loads((claude.home / ".claude.json").read_text())
    assert list(state["mcpServers"]) == ["agentty"]
    _agentty(claude.home, claude.project, "disconnect", "claude", "--yes")
    got = claude.run("mcp", "get", "time", write=False)
    assert got.returncode == 0, got.describe()
    assert claude.run("mcp", "get", "agentty", write=False).returncode != 0


def test_claude_code_sends_a_connected_servers_tools_through_agentty_once_and_obeys_a_toggle(
    claude: ClaudeCodeHome,
) -> None:
    """After ``connect claude`` the real Claude Code starts agentty's gateway for its user
    server ``time`` and sends its tools as ``mcp__agentty__time__…`` only; a local server it
    still starts itself is sent directly, not through agentty too; ``agentty-tui disable``
    leaves the tool out of the next request."""
    claude.add("user", "time", light_entry("time", 3))
    claude.add("local", "clock", light_entry("clock", 2))
    claude.write()
    assert sorted(claude.mcp_tools_sent(write=False)) == [
        "mcp__clock__tool_0000",
        "mcp__clock__tool_0001",
        "mcp__time__tool_0000",
        "mcp__time__tool_0001",
        "mcp__time__tool_0002",
    ]
    _agentty(claude.home, claude.project, "connect", "claude", "--yes")
    through = [f"mcp__agentty__time__tool_000{i}" for i in range(3)]
    direct = ["mcp__clock__tool_0000", "mcp__clock__tool_0001"]
    assert sorted(claude.mcp_tools_sent(write=False)) == sorted([*through, *direct])
    said = _agentty(claude.home, claude.project, "disable", "time", "tool_0001")
    # Claude Code's own switch, which the gateway obeys for it (and Claude Code after disconnect).
    assert "permissions.deny in ~/.claude/settings.json" in said, said
    sent = sorted(claude.mcp_tools_sent(write=False))
    assert sent == sorted([through[0], through[2], *direct]), sent


LIVE = 20.0
"""Seconds a running Claude Code session may take to carry a change in its requests (about
one second measured; a loaded machine starts a new server more slowly)."""


def test_a_running_claude_code_session_takes_a_toggle_and_a_new_server_live(
    claude: ClaudeCodeHome,
) -> None:
    """Claude Code's interactive mode (its TUI under a pty), connected: within one session,
    a turn soon after ``agentty-tui disable`` leaves the tool out, one after ``enable`` has it
    back, and a server added to the connected servers' file while it runs comes in too (that
    one only ``tools/list_changed`` can tell it: Claude Code's own files did not change)."""
    claude.add("user", "time", light_entry("time", 3))
    claude.write()
    _agentty(claude.home, claude.project, "connect", "claude", "--yes")
    through = [f"mcp__agentty__time__{tool}" for tool in light_tools(3)]
    with interactive_session(claude) as session:
        assert session.first_turn("first") == through
        _agentty_process(claude.home, claude.project, "disable", "time", "tool_0001")
        taken = [through[0], through[2]]
        assert session.turns_until("second", taken, within=LIVE) == taken
        _agentty_process(claude.home, claude.project, "enable", "time", "tool_0001")
        assert session.turns_until("third", through, within=LIVE) == through
        moved = claude.home / ".config" / "agentty" / "connected" / "claude" / "servers.json"
        servers = json.loads(moved.read_text())
        servers["mcpServers"]["clock"] = light_entry("clock", 2)
        _replace_as_an_editor_saves(moved, json.dumps(servers, indent=2) + "\n")
        clock = [f"mcp__agentty__clock__{tool}" for tool in light_tools(2)]
        both = sorted([*clock, *through])
        assert session.turns_until("fourth", both, within=LIVE) == both


def _replace_as_an_editor_saves(path: Path, text: str) -> None:
    """Write ``text`` to a file beside ``path`` and rename it over ``path``."""
    temporary = path.with_name(path.name + ".saving")
    temporary.write_text(text)
    temporary.replace(path)


def test_claude_code_gets_the_tools_of_a_server_slower_to_start_than_serves_default_wait(
    claude: ClaudeCodeHome,
) -> None:
    """Claude Code keeps the first ``tools/list`` for the whole session, so the gateway it is
    given waits for the servers behind it as long as Claude Code lets a server start (30 s):
    a server that takes 8 s to answer, longer than ``serve``'s own default wait, still has its
    tools in the first model request."""
    entry = light_entry("time", 2)
    entry["args"] = [*entry["args"], "--start-delay", "8"]
    claude.add("user", "time", entry)
    claude.write()
    _agentty(claude.home, claude.project, "connect", "claude", "--yes")
    sent = claude.mcp_tools_sent(write=False)
    assert sent == ["mcp__agentty__time__tool_0000", "mcp__agentty__time__tool_0001"], sent


def _counted_entry(name: str, starts: Path) -> dict[str, Any]:
    """One connection, the same in every host's file: ``light_server.py`` started by a shell
    that first writes its process id (the server's own, kept by ``exec``) to ``starts``."""
    server = shlex.join(light_argv(name, 2))
    return {
        "command": "/bin/sh",
        "args": ["-c", f"echo $$ >> {shlex.quote(str(starts))}; exec {server}"],
    }


def test_three_connected_hosts_share_one_process_of_their_server_through_the_daemon(
    claude: ClaudeCodeHome,
) -> None:
    """Claude Code, Gemini CLI and Codex, all connected, hold the same server: each reaches it
    through agentty's gateway daemon (``serve --shared``), which starts it once for all three,
    though each host gives the gateway another environment (Codex passes only a few variables
    and puts a folder of its own first on PATH)."""
    program_path("gemini")
    program_path("codex")
    (claude.home / ".gemini").mkdir()
    (claude.home / ".codex").mkdir()
    gemini = GeminiHome(home=claude.home, project=claude.project)
    codex = CodexHome(home=claude.home, project=claude.project)
    starts = claude.home / "starts.txt"
    entry = _counted_entry("shared", starts)
    claude.add("user", "shared", {"type": "stdio", **entry, "env": {}})
    gemini.user["mcpServers"] = {"shared": entry}
    codex.user["mcp_servers"] = {"shared": entry}
    claude.write()
    gemini.write()
    codex.write()
    for host in ("claude", "gemini", "codex"):
        _agentty(claude.home, claude.project, "connect", host, "--yes")
    sent = claude.mcp_tools_sent(write=False)
    assert sent == [f"mcp__agentty__shared__{tool}" for tool in light_tools(2)], sent
    # Gemini CLI's harness writes its settings: take the file back first.
    gemini.user = json.loads((gemini.home / ".gemini" / "settings.json").read_text())
    sent = gemini.mcp_tools_sent()
    assert sent == gemini_cli.sent_names("agentty", [f"shared__{t}" for t in light_tools(2)])
    codex.user = tomlkit.parse((codex.home / ".codex" / "config.toml").read_text()).unwrap()
    sent = codex.mcp_tools_sent()
    assert sent == [f"mcp__agentty__shared__{tool}" for tool in light_tools(2)], sent
    assert len(starts.read_text().split()) == 1, starts.read_text()  # one process, not three


def test_codex_is_told_to_hand_the_gateway_the_variables_its_moved_entries_name(
    codex: CodexHome,
) -> None:
    """Codex passes a server only ``HOME``, ``LANG``, ``PATH``, ``PWD`` and ``TERM`` besides
    the variables its entry names: the gateway's entry names every variable the moved entries
    did (``env_vars``, ``bearer_token_env_var``), as the real ``codex mcp get`` reads back, and
    the plan says so."""
    servers = codex.user.setdefault("mcp_servers", {})
    servers["notes"] = codex_cli.light_entry("notes", 2, env_vars=["NOTES_TOKEN", "NOTES_HOME"])
    servers["time"] = codex_cli.light_entry("time", 2, env_vars=["NOTES_HOME"])
    servers["web"] = {"url": "http://127.0.0.1:9/mcp", "bearer_token_env_var": "WEB_TOKEN"}
    codex.write()
    said = _agentty(codex.home, codex.project, "connect", "codex", "--yes")
    assert "hands the variables they use: NOTES_HOME, NOTES_TOKEN, WEB_TOKEN" in said, said
    got = codex.run("mcp", "get", "agentty", "--json")
    assert got.returncode == 0, got.describe()
    shown = json.loads(got.stdout)
    assert shown["startup_timeout_sec"] == 60, got.stdout
    assert "NOTES_TOKEN" in got.stdout and "WEB_TOKEN" in got.stdout, got.stdout
    entry = tomlkit.parse((codex.home / ".codex" / "config.toml").read_text())["mcp_servers"]
    assert list(entry["agentty"]["env_vars"]) == ["NOTES_HOME", "NOTES_TOKEN", "WEB_TOKEN"]
    _agentty(codex.home, codex.project, "disconnect", "codex", "--yes")
    assert _codex_names(codex) == ["notes", "time", "web"]
