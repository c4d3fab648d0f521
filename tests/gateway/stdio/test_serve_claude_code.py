"""The real Claude Code (the pinned version) with ``agentty-tui serve`` as its one MCP server.

Claude Code runs headless in a fake home against the loopback stand-in for its model API
(``tests/hosts``), with one user entry, ``agentty``, that runs ``serve --config X``; what it
sends its model is read from the first request. Slow (a run is 3 to 10 s), and skipped where
Claude Code is not installed (``tests/hosts/install.sh``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from agentty_tui.catalog import ToolRef
from agentty_tui.gateway.host.naming import gateway_names
from tests.helpers import run_cli
from tests.hosts.claude_code import ClaudeCodeHome
from tests.hosts.programs import light_argv, light_tools, program_path

pytestmark = pytest.mark.slow

LONG = "a-very-long-server-name-that-someone-typed-into-their-config"


def test_claude_code_sends_the_gateways_tools_under_its_prefix_and_obeys_a_toggle(
    tmp_path: Path,
) -> None:
    program_path("claude")
    claude = ClaudeCodeHome.make(tmp_path / "claude")
    config = tmp_path / "agentty.json"
    servers = {
        "notes": light_argv("notes", 3),
        LONG: light_argv("long", 1),
    }
    config.write_text(
        json.dumps(
            {"mcpServers": {name: {"command": a[0], "args": a[1:]} for name, a in servers.items()}}
        )
    )
    state = tmp_path / "state"
    claude.add(
        "user",
        "agentty",
        {
            "type": "stdio",
            "command": sys.executable,
            "args": ["-m", "agentty_tui", "serve", "--no-daemon", "--config", str(config)],
            "env": {"XDG_STATE_HOME": str(state)},
        },
    )
    refs = [ToolRef("notes", tool) for tool in light_tools(3)] + [ToolRef(LONG, "tool_0000")]
    names = gateway_names(refs)
    expected = sorted(f"mcp__agentty__{names.wire(*ref)}" for ref in refs)
    sent = claude.mcp_tools_sent()
    assert sent == expected
    assert all(len(name) <= 64 for name in sent)
    assert f"mcp__agentty__{names.wire(LONG, 'tool_0000')}".endswith("__tool_0000")

    switched = run_cli("disable", "--config", str(config), "notes", "tool_0001")
    assert switched.returncode == 0, switched.stderr
    assert claude.mcp_tools_sent() == [n for n in expected if not n.endswith("notes__tool_0001")]
