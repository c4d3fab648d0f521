"""An entry ``agentty-tui add`` writes into Claude Code's files is the entry ``claude mcp add``
writes for the same server, key for key, in each of its scopes (``config/hosts/claude/entries``).

Both programs add the same servers, each in a fresh home of its own; then each scope's
``mcpServers`` of the two homes are compared as JSON values (key order included).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run_cli
from tests.hosts.claude_code import ClaudeCodeHome, Scope

SERVERS: tuple[tuple[str, list[str], list[str]], ...] = (
    # (name, what follows ``claude mcp add -s SCOPE``, what follows ``agentty-tui add NAME``)
    ("cmd", ["cmd", "--", "python3", "-m", "srv", "--x"], ["--", "python3", "-m", "srv", "--x"]),
    ("bare", ["bare", "--", "srv"], ["--", "srv"]),
    ("envd", ["envd", "-e", "A=1", "--", "node", "s.js"], ["--env", "A=1", "--", "node", "s.js"]),
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


def _scope_servers(home: ClaudeCodeHome, scope: Scope) -> dict[str, Any]:
    if scope == "project":
        path = home.project / ".mcp.json"
        return dict(json.loads(path.read_text())["mcpServers"]) if path.exists() else {}
    state = json.loads((home.home / ".claude.json").read_text())
    holder = state if scope == "user" else state["projects"][str(home.project)]
    return dict(holder.get("mcpServers", {}))


@pytest.mark.parametrize("scope", ["user", "local", "project"])
def test_agentty_writes_the_entry_claude_mcp_add_writes(tmp_path: Path, scope: Scope) -> None:
    theirs = ClaudeCodeHome.make(tmp_path / "theirs")
    ours = ClaudeCodeHome.make(tmp_path / "ours")
    theirs.write()
    ours.write()
    for name, claude_args, agentty_args in SERVERS:
        ran = theirs.run("mcp", "add", "-s", scope, *claude_args, write=False)
        assert ran.returncode == 0, ran.describe()
        env = {"HOME": str(ours.home), "PATH": "/usr/bin:/bin"}
        # Our own file is the user scope's default: Claude Code's is named.
        where = ["--source", str(ours.home / ".claude.json")] if scope == "user" else []
        added = run_cli(
            "add",
            name,
            "--scope",
            scope,
            *where,
            *agentty_args,
            env=env,
            whole_env=True,
            cwd=ours.project,
        )
        assert added.returncode == 0, added.stderr
    written, expected = _scope_servers(ours, scope), _scope_servers(theirs, scope)
    assert list(expected) == [name for name, _, _ in SERVERS]
    for name in expected:
        assert json.dumps(written[name]) == json.dumps(expected[name]), name
