"""Pins of servers in Codex's and Gemini CLI's own files, made with ``agentty-tui pin``: kept
in agentty's pin store, so each host's file stays byte for byte as it was and the host programs
still read it (``codex mcp list --json``, ``gemini mcp list``); agentty's catalog ships the
pinned tools first."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run_cli
from tests.hosts import codex_cli
from tests.hosts.codex_cli import CodexHome
from tests.hosts.gemini_cli import GeminiHome
from tests.hosts.programs import light_tools, program_path


def _entry(name: str) -> dict[str, Any]:
    entry = codex_cli.light_entry(name, 3)
    return {"command": entry["command"], "args": entry["args"]}


@pytest.fixture
def hosts(tmp_path: Path) -> tuple[CodexHome, GeminiHome]:
    for program in ("codex", "gemini"):
        program_path(program)  # skips, with the reason, where one is not installed
    codex = CodexHome.make(tmp_path)
    gemini = GeminiHome(home=codex.home, project=codex.project)
    (gemini.home / ".gemini").mkdir()
    codex.user["mcp_servers"] = {"first": _entry("first")}
    gemini.user["mcpServers"] = {"second": _entry("second")}
    codex.write()
    gemini.write()
    return codex, gemini


def _agentty(home: Path, project: Path, *args: str) -> str:
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin"}
    result = run_cli(*args, "--hosts", "codex,gemini", env=env, whole_env=True, cwd=project)
    assert result.returncode == 0, result.stderr
    return result.stdout


def _bytes(home: Path) -> dict[str, bytes]:
    files = (home / ".codex" / "config.toml", home / ".gemini" / "settings.json")
    return {str(path): path.read_bytes() for path in files}


def test_pins_of_codex_and_gemini_servers_leave_their_files_to_them(
    hosts: tuple[CodexHome, GeminiHome],
) -> None:
    codex, gemini = hosts
    home, project = codex.home, codex.project
    before = _bytes(home)
    last = light_tools(3)[-1]
    _agentty(home, project, "pin", "second", last)
    _agentty(home, project, "pin", "first")
    assert _bytes(home) == before  # neither host's file was written for a pin
    # Both programs still read their files as before (run without rewriting them).
    ran = codex.run("mcp", "list", "--json")
    assert ran.returncode == 0, ran.describe()
    assert {server["name"] for server in json.loads(ran.stdout)} == {"first"}
    ran = gemini.run("mcp", "list", write=False)
    assert ran.returncode == 0, ran.describe()
    assert "second" in ran.stdout + ran.stderr
    # agentty's catalog ships the pinned ones first: every tool of first, then second's last.
    catalog = json.loads(_agentty(home, project, "catalog", "--json"))
    mcp = [(tool["server"], tool["tool"]) for tool in catalog["tools"] if tool["server"]]
    assert mcp[:4] == [("first", name) for name in light_tools(3)] + [("second", last)]
