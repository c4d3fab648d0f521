"""config/workspace.py:trust_prompt: the line an untrusted project server shows (in the list's
error, the picker's details and ``agentty-tui list``) never holds a URL's credentials."""

from __future__ import annotations

from agentty_tui.config.workspace import trust_prompt
from agentty_tui.model import ServerConfig, StdioSpec


def test_a_url_among_the_arguments_is_masked() -> None:
    spec = StdioSpec(command="npx", args=("mcp-remote", "https://h.example/mcp?token=s3cret-v"))
    line = trust_prompt(ServerConfig(name="remote", spec=spec))
    assert line.startswith(
        "not trusted — T to trust, or agentty-tui trust remote (runs: npx mcp-remote 'https://h.example/mcp"
    )
    assert "s3cret-v" not in line
