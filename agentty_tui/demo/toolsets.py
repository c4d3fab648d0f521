"""Demo MCP server ``toolsets``: a Godot-editor-like server that gates its tools.

Editor plugins often expose dozens of tools; to keep the model's tool list short, this one
starts with only four and reveals the rest in toolsets that the model (or you) switch on
at run time. Each switch changes the tool list of the live session and sends
``notifications/tools/list_changed``, which agentty_tui honours by re-listing the
server's tools in place.

Always present:
    enable_toolset(toolset)   reveal a toolset's tools
    disable_toolset(toolset)  hide them again
    list_toolsets()           which toolsets exist, which are on, what they contain
    project_info()            a summary of the (pretend) project

Toolsets:
    scene      scene_open, scene_add_node, scene_tree, scene_save
    script     script_create, script_read, script_edit, script_check
    animation  animation_create, animation_add_keyframe, animation_list

The project and the toolsets' tools are in ``godot_tools``; this module is the server that
switches them. Everything happens in memory on a pretend project; nothing touches the disk. The
notification reaches clients of both protocol eras (``subscriptions/listen`` on
2026-07-28, a session notification on the 2025 handshake).

Run with ``python -m agentty_tui.demo.toolsets [--enable TOOLSET ...]`` or the
``agentty-demo-toolsets`` script.
"""

from __future__ import annotations

import argparse
from typing import Annotated

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ToolAnnotations
from pydantic import Field

from agentty_tui.demo._serve import configure_logging, notify_tools_changed, run_stdio
from agentty_tui.demo.godot_tools import (
    READ_ONLY,
    TOOLSET_NAMES,
    Project,
    ToolsetName,
    ToolSpec,
    animation_tools,
    scene_tools,
    script_tools,
)

__all__ = ["TOOLSET_NAMES", "ToolsetName", "build_server", "main"]

ToolsetArg = Annotated[ToolsetName, Field(description="The toolset to switch.")]


def build_server(enabled: tuple[ToolsetName, ...] = ()) -> MCPServer:
    """Build the server; toolsets in ``enabled`` start switched on."""
    server: MCPServer = MCPServer(
        "toolsets",
        version="1.0.0",
        instructions=(
            "A Godot-like editor. Most tools are hidden: call list_toolsets to see them and "
            "enable_toolset to reveal the ones you need."
        ),
        log_level="WARNING",
    )
    project = Project()
    toolsets: dict[ToolsetName, list[ToolSpec]] = {
        "scene": scene_tools(project),
        "script": script_tools(project),
        "animation": animation_tools(project),
    }
    on: set[ToolsetName] = set()

    def switch(toolset: ToolsetName, enable: bool) -> bool:
        if (toolset in on) == enable:
            return False
        for spec in toolsets[toolset]:
            if enable:
                server.add_tool(
                    spec.fn,
                    name=spec.name,
                    title=spec.title,
                    description=spec.description,
                    annotations=spec.annotations,
                )
            else:
                server.remove_tool(spec.name)
        if enable:
            on.add(toolset)
        else:
            on.discard(toolset)
        return True

    @server.tool(
        title="Enable toolset",
        description="Reveal a toolset: its tools are added to this server's tool list.",
        annotations=ToolAnnotations(idempotent_hint=True),
    )
    async def enable_toolset(toolset: ToolsetArg, ctx: Context) -> str:
        if not switch(toolset, True):
            return f"{toolset} is already enabled"
        await notify_tools_changed(ctx)
        names = ", ".join(spec.name for spec in toolsets[toolset])
        return f"enabled {toolset}: {names}"

    @server.tool(
        title="Disable toolset",
        description="Hide a toolset: its tools are removed from this server's tool list.",
        annotations=ToolAnnotations(idempotent_hint=True),
    )
    async def disable_toolset(toolset: ToolsetArg, ctx: Context) -> str:
        if not switch(toolset, False):
            return f"{toolset} is already disabled"
        await notify_tools_changed(ctx)
        return f"disabled {toolset}"

    @server.tool(
        title="List toolsets",
        description="List the toolsets, whether each is enabled, and the tools it contains.",
        annotations=READ_ONLY,
    )
    def list_toolsets() -> str:
        return "\n".join(
            f"{name} ({'on' if name in on else 'off'}): "
            + ", ".join(spec.name for spec in toolsets[name])
            for name in TOOLSET_NAMES
        )

    @server.tool(
        title="Project info",
        description="Summarize the open project: scene, scripts and animations.",
        annotations=READ_ONLY,
    )
    def project_info() -> str:
        scene = project.scene_path or "none"
        return (
            f"scene: {scene} ({len(project.nodes)} nodes{', unsaved' if project.dirty else ''})\n"
            f"scripts: {len(project.scripts)}\nanimations: {len(project.animations)}"
        )

    for toolset in enabled:
        switch(toolset, True)
    return server


def main(argv: list[str] | None = None) -> None:
    """Entry point of ``agentty-demo-toolsets``."""
    parser = argparse.ArgumentParser(
        prog="agentty-demo-toolsets", description="Godot-like demo MCP server with toolsets."
    )
    parser.add_argument(
        "--enable",
        action="append",
        default=[],
        choices=TOOLSET_NAMES,
        help="start with this toolset enabled (repeatable)",
    )
    args = parser.parse_args(argv)
    configure_logging()
    run_stdio(build_server(tuple(args.enable)), tools_changed=True)


if __name__ == "__main__":
    main()
