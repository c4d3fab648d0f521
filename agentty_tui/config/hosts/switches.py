"""Which switches each host obeys: what a host does with its entry of a server, and where its
tool and server switches are written.

Measured with the host programs themselves (docs/HOSTS_MEASURED.md, tests/hosts):

- our own files, Gemini CLI and Codex obey switches inside the entry: ``tools.exclude`` and
  ``disabled`` (ours), ``excludeTools`` / ``includeTools`` and ``mcp.excluded`` (Gemini),
  ``disabled_tools`` / ``enabled_tools`` and ``enabled = false`` (Codex); the entry's dialect
  reads and writes them, so its ``ServerConfig.tools`` and ``disabled`` are what the host does;
- Claude Code ignores switches inside its entries and obeys its settings instead (deny rules,
  ``disabledMcpServers``): ``config/hosts/claude`` reads and writes those;
- VS Code, Cursor and Claude Desktop have no switch in their MCP files: they start every
  server of their files and send every tool; nothing we could write there would change that,
  so nothing is written and a switch says so.
"""

from __future__ import annotations

from agentty_tui.model import HostView, ServerConfig, SourceRef, ToolFilter

__all__ = [
    "HOST_NAMES",
    "IN_ENTRY",
    "NO_SWITCH",
    "entry_view",
    "no_switch",
    "no_switch_view",
]

HOST_NAMES = {
    "agentty": "agentty",
    "claude": "Claude Code",
    "claude-desktop": "Claude Desktop",
    "cursor": "Cursor",
    "gemini": "Gemini CLI",
    "codex": "Codex",
    "vscode": "VS Code",
}
"""How a message names each host."""

IN_ENTRY = {
    "agentty": ("tools.exclude", "disabled"),
    # Not what Claude Code obeys (its settings are): read from its entries until its own
    # switches are read and written.
    "claude": ("tools.exclude", "disabled"),
    "gemini": ("excludeTools", "mcp.excluded"),
    "codex": ("disabled_tools", "enabled = false"),
}
"""The hosts that obey switches inside their entries: (tool switch, server switch), as a row
names them."""

NO_SWITCH = frozenset({"claude-desktop", "cursor", "vscode"})
"""The hosts whose MCP files hold no switch at all."""


def entry_view(server: ServerConfig, ref: SourceRef) -> HostView:
    """What a host that obeys its entry's switches (``IN_ENTRY``) does with ``server``."""
    tool_key, server_key = IN_ENTRY[ref.host]
    return HostView(
        source=ref,
        tools=server.tools,
        off=server.disabled,
        tool_switch=f"{tool_key} in {ref.path}",
        server_switch=f"{server_key} in {ref.path}",
        off_by=f"{server_key} in {ref.path}" if server.disabled else None,
    )


def no_switch_view(ref: SourceRef) -> HostView:
    """What a host without switches (``NO_SWITCH``) does: it starts the server and sends
    every tool, whatever its entry holds."""
    return HostView(source=ref, tools=ToolFilter())


def no_switch(host: str, what: str) -> str:
    """The line that says ``host`` cannot be switched (``what``: ``tool`` or ``server``)."""
    name = HOST_NAMES.get(host, host)
    if what == "tool":
        return f"{name} has no per-tool switch in its files: it still sends every tool"
    return f"{name} has no server switch in its files: it still starts the server"
