"""How Claude Code writes a server entry into its own files.

``claude mcp add`` (2.1.197, measured in tests/hosts/test_claude_code_entries.py) writes every
entry with its ``type``: a command as ``{"type": "stdio", "command", "args", "env"}``, the
arguments and the environment always present (empty when there are none); a URL as
``{"type": "http" | "sse", "url"}`` with ``headers`` when it has some. An entry we add to
``~/.claude.json`` or a project's ``.mcp.json`` is written the same way, so that a user who
reads the file, or Claude Code's own ``/mcp``, finds no second shape in it.

Reading needs nothing of this: ``McpJsonDialect`` reads both shapes.
"""

from __future__ import annotations

from typing import Any

from agentty_tui.config.hosts.mcpjson import McpJsonDialect, spec_to_entry
from agentty_tui.specs import HttpSpec, ServerSpec, StdioSpec

__all__ = ["ClaudeCodeDialect", "claude_code_entry"]


def claude_code_entry(spec: ServerSpec) -> dict[str, Any]:
    """The entry ``claude mcp add`` would write for ``spec`` (keys in its order); what Claude
    Code has no option for (a ``cwd``, an ``oauth`` block) kept as we spell it."""
    ours = spec_to_entry(spec)
    if isinstance(spec, StdioSpec):
        entry: dict[str, Any] = {
            "type": "stdio",
            "command": spec.command,
            "args": list(spec.args),
            "env": dict(spec.env),
        }
    else:
        assert isinstance(spec, HttpSpec)
        entry = {"type": "sse" if spec.transport == "sse" else "http", "url": spec.url}
    return {**entry, **{key: value for key, value in ours.items() if key not in entry}}


class ClaudeCodeDialect(McpJsonDialect):
    """Claude Code's ``mcpServers`` files (``~/.claude.json``'s user scope, ``.mcp.json``): the
    ``claude`` dialect, with new entries written as Claude Code writes them."""

    def new_entry(self, spec: ServerSpec) -> Any:
        """``claude_code_entry``."""
        return claude_code_entry(spec)
