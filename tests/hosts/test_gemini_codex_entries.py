"""An entry ``agentty-tui add`` writes into Gemini CLI's or Codex's user file is the entry the
host's own ``mcp add`` writes for the same server (``config/hosts/gemini``, ``codex``): the
same keys with the same values, compared as parsed values (the layout of a new array or
table may differ: both read it alike)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import tomlkit

from tests.helpers import run_cli
from tests.hosts.codex_cli import CodexHome
from tests.hosts.gemini_cli import GeminiHome
from tests.hosts.programs import program_path

GEMINI: tuple[tuple[str, list[str], list[str]], ...] = (
    # (name, what follows ``gemini mcp add -s user``, what follows ``agentty-tui add NAME``)
    ("cmd", ["cmd", "python3", "-m", "srv", "--x"], ["--", "python3", "-m", "srv", "--x"]),
    ("envd", ["-e", "A=1", "envd", "node", "s.js"], ["--env", "A=1", "--", "node", "s.js"]),
    (
        "web",
        ["--transport", "http", "web", "https://example.invalid/mcp", "-H", "X-K: v"],
        ["--url", "https://example.invalid/mcp", "--header", "X-K: v"],
    ),
    (
        "old",
        ["--transport", "sse", "old", "https://example.invalid/sse"],
        ["--url", "https://example.invalid/sse", "--sse"],
    ),
)

CODEX: tuple[tuple[str, list[str], list[str]], ...] = (
    ("cmd", ["cmd", "--", "python3", "-m", "srv", "--x"], ["--", "python3", "-m", "srv", "--x"]),
    (
        "envd",
        ["envd", "--env", "A=1", "--", "node", "s.js"],
        ["--env", "A=1", "--", "node", "s.js"],
    ),
    (
        "web",
        ["web", "--url", "https://example.invalid/mcp"],
        ["--url", "https://example.invalid/mcp"],
    ),
)


def _add(home: Path, project: Path, name: str, source: Path, args: list[str]) -> None:
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin"}
    where = ["--source", str(source), "--scope", "user"]
    added = run_cli("add", name, *where, *args, env=env, whole_env=True, cwd=project)
    assert added.returncode == 0, added.stderr


def test_agentty_writes_the_entry_gemini_mcp_add_writes(tmp_path: Path) -> None:
    program_path("gemini")  # skips, with the reason, where it is not installed
    theirs, ours = GeminiHome.make(tmp_path / "theirs"), GeminiHome.make(tmp_path / "ours")
    for home in (theirs, ours):
        home.write()
    for name, gemini_args, agentty_args in GEMINI:
        ran = theirs.run("mcp", "add", "-s", "user", *gemini_args, write=False)
        assert ran.returncode == 0, ran.describe()
        _add(ours.home, ours.project, name, ours.home / ".gemini" / "settings.json", agentty_args)
    read: list[dict[str, Any]] = [
        json.loads((home.home / ".gemini" / "settings.json").read_text())["mcpServers"]
        for home in (theirs, ours)
    ]
    assert list(read[0]) == [name for name, _, _ in GEMINI]
    for name in read[0]:
        assert read[1][name] == read[0][name], name


def test_agentty_writes_the_entry_codex_mcp_add_writes(codex: CodexHome, tmp_path: Path) -> None:
    ours = CodexHome.make(tmp_path / "ours")
    codex.write()
    ours.write()
    for name, codex_args, agentty_args in CODEX:
        ran = codex.run("mcp", "add", *codex_args)
        assert ran.returncode == 0, ran.describe()
        _add(ours.home, ours.project, name, ours.home / ".codex" / "config.toml", agentty_args)
    read = [
        tomlkit.parse((home.home / ".codex" / "config.toml").read_text()).unwrap()["mcp_servers"]
        for home in (codex, ours)
    ]
    assert list(read[0]) == [name for name, _, _ in CODEX]
    for name in read[0]:
        assert read[1][name] == read[0][name], name
