"""Which switches each host obeys: what a host does with its entry of a server, and where its
tool and server switches are written.

Measured with the host programs themselves (docs/HOSTS_MEASURED.md, tests/hosts):

- our own files, Gemini CLI and Codex obey switches inside the entry: ``tools.exclude`` and
  ``disabled`` (ours), ``excludeTools`` / ``includeTools`` and ``mcp.excluded`` (Gemini),
  ``disabled_tools`` / ``enabled_tools`` and ``enabled = false`` (Codex); the entry's dialect
  reads and writes them, so its ``ServerConfig.tools`` and ``disabled`` are what the host does;
- Claude Code ignores switches inside its entries and obeys its settings instead (deny rules,
  ``disabledMcpServers``): ``config/hosts/claude`` reads and writes those, and its entries'
  view is what they say (``ClaudeSwitches.host_view``);
- VS Code, Cursor and Claude Desktop have no switch in their MCP files: they start every
  server of their files and send every tool; nothing we could write there would change that,
  so nothing is written and a switch says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from agentty_tui.config.engine import ConfigEdit, SetServerDisabled, SetToolEnabled
from agentty_tui.specs import HostView, Scope, ServerConfig, SourceRef, ToolFilter

if TYPE_CHECKING:
    from agentty_tui.config.hosts.claude.switches import ClaudeFiles

__all__ = [
    "HOST_NAMES",
    "IN_ENTRY",
    "NO_SWITCH",
    "entry_view",
    "no_switch",
    "no_switch_view",
    "switch_claude",
    "untrusted_view",
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


def untrusted_view(view: HostView, untrusted: str | None, *, project: bool = True) -> HostView:
    """``view`` as the host's own trust in the project leaves it (Codex's trusted projects,
    Gemini CLI's trusted folders): off, saying why, when ``untrusted`` is the reason it reads
    or runs nothing of the entry; a ``project`` entry it trusts is ``approved``."""
    if untrusted is not None:
        return view.model_copy(update={"off": True, "off_by": untrusted, "approved": False})
    return view.model_copy(update={"approved": True}) if project else view


def switch_claude(
    files: ClaudeFiles, name: str, scope: Scope, edits: Sequence[ConfigEdit]
) -> tuple[str, ...]:
    """Write ``edits`` (tool and server switches of the entry ``name`` of ``scope``) where
    Claude Code obeys them; the lines saying what was written. ``SwitchRefusedError`` (a
    ``ConfigError``) when a rule the user did not give us would keep it off."""
    # Here, not with the module: only a switch of a Claude Code entry needs Claude's files.
    from agentty_tui.config.hosts.claude.switching import set_server_enabled, set_tool_enabled

    lines: list[str] = []
    for edit in edits:
        if isinstance(edit, SetToolEnabled):
            lines += set_tool_enabled(files, name, scope, edit.tool, edit.enabled)
        elif isinstance(edit, SetServerDisabled):
            lines += set_server_enabled(files, name, scope, not edit.disabled)
    return tuple(lines)


def no_switch_view(ref: SourceRef) -> HostView:
    """What a host without switches (``NO_SWITCH``) does: it starts the server and sends
    every tool, whatever its entry holds."""
    return HostView(source=ref, tools=ToolFilter())


def no_switch(host: str, what: str) -> str:
    """The line that says ``host`` cannot be switched (``what``: ``tool`` or ``server``)."""
    name = HOST_NAMES.get(host, host)
    route = f"route {name} through agentty: agentty-tui connect {host}"
    if what == "tool":
        return f"{name} has no per-tool switch in its files: it still sends every tool ({route})"
    return f"{name} has no server switch in its files: it still starts the server ({route})"
