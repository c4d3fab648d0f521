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

Everything happens in memory on a pretend project; nothing touches the disk. The
notification reaches clients of both protocol eras (``subscriptions/listen`` on
2026-07-28, a session notification on the 2025 handshake).

Run with ``python -m agentty_tui.demo.toolsets [--enable TOOLSET ...]`` or the
``agentty-demo-toolsets`` script.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import Field

from agentty_tui.demo._serve import configure_logging, notify_tools_changed, run_stdio

ToolsetName = Literal["scene", "script", "animation"]
TOOLSET_NAMES: tuple[ToolsetName, ...] = ("scene", "script", "animation")
ToolsetArg = Annotated[ToolsetName, Field(description="The toolset to switch.")]

_READ_ONLY = ToolAnnotations(read_only_hint=True)

ScenePath = Annotated[
    str, Field(description="Scene resource path, e.g. res://levels/main.tscn.", pattern=r"^res://")
]
ScriptPath = Annotated[
    str, Field(description="Script resource path, e.g. res://player.gd.", pattern=r"^res://")
]
NODE_TYPES = ("Node", "Node2D", "Node3D", "Sprite2D", "CharacterBody2D", "Camera2D", "Label")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


@dataclass
class _Project:
    """The pretend project every tool works on."""

    scene_path: str | None = None
    nodes: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # path -> (type, parent)
    dirty: bool = False
    scripts: dict[str, str] = field(default_factory=dict)
    animations: dict[str, tuple[str, float, list[tuple[str, float, str]]]] = field(
        default_factory=dict
    )  # name -> (player, length, [(track, time, value)])


@dataclass(frozen=True)
class _ToolSpec:
    fn: Callable[..., Any]
    name: str
    title: str
    description: str
    annotations: ToolAnnotations | None = None


def _scene_tools(project: _Project) -> list[_ToolSpec]:
    def scene_open(path: ScenePath) -> str:
        project.scene_path = path
        root = path.rsplit("/", 1)[-1].removesuffix(".tscn").title().replace("_", "")
        project.nodes = {root: ("Node2D", None)}
        project.dirty = False
        return f"opened {path}; root node {root} (Node2D)"

    def scene_add_node(
        parent: Annotated[str, Field(description="Path of the parent node, e.g. Main/Player.")],
        name: Annotated[str, Field(description="Name of the new node.", pattern=r"^[A-Za-z_]\w*$")],
        node_type: Annotated[
            str, Field(description=f"Godot class of the node, one of: {', '.join(NODE_TYPES)}.")
        ] = "Node2D",
    ) -> str:
        if project.scene_path is None:
            raise ToolError("no scene is open; call scene_open first")
        if parent not in project.nodes:
            raise ToolError(f"no node {parent!r} in the open scene")
        if node_type not in NODE_TYPES:
            raise ToolError(f"unknown node type {node_type!r}")
        path = f"{parent}/{name}"
        if path in project.nodes:
            raise ToolError(f"{path} already exists")
        project.nodes[path] = (node_type, parent)
        project.dirty = True
        return f"added {path} ({node_type})"

    def scene_tree() -> str:
        if project.scene_path is None:
            return "no scene is open"
        lines = [project.scene_path]
        for path, (node_type, _parent) in sorted(project.nodes.items()):
            depth = path.count("/")
            lines.append(f"{'  ' * (depth + 1)}{path.rsplit('/', 1)[-1]} ({node_type})")
        return "\n".join(lines)

    def scene_save() -> str:
        if project.scene_path is None:
            raise ToolError("no scene is open")
        was_dirty, project.dirty = project.dirty, False
        state = "saved" if was_dirty else "no changes to save in"
        return f"{state} {project.scene_path} ({len(project.nodes)} nodes)"

    return [
        _ToolSpec(scene_open, "scene_open", "Open scene", "Open a scene in the editor."),
        _ToolSpec(
            scene_add_node,
            "scene_add_node",
            "Add node",
            "Add a child node to the open scene.",
        ),
        _ToolSpec(
            scene_tree,
            "scene_tree",
            "Scene tree",
            "Show the node tree of the open scene.",
            _READ_ONLY,
        ),
        _ToolSpec(scene_save, "scene_save", "Save scene", "Save the open scene."),
    ]


def _script_tools(project: _Project) -> list[_ToolSpec]:
    def script_create(
        path: ScriptPath,
        extends: Annotated[str, Field(description="The class the script extends.")] = "Node",
    ) -> str:
        if path in project.scripts:
            raise ToolError(f"{path} already exists")
        project.scripts[path] = (
            f"extends {extends}\n\n\nfunc _ready() -> void:\n\tpass\n\n\n"
            "func _process(delta: float) -> void:\n\tpass\n"
        )
        return f"created {path} (extends {extends})"

    def script_read(path: ScriptPath) -> str:
        if path not in project.scripts:
            raise ToolError(f"no script {path}")
        return project.scripts[path]

    def script_edit(
        path: ScriptPath,
        content: Annotated[str, Field(description="The complete new GDScript source.")],
    ) -> str:
        project.scripts[path] = content
        return f"wrote {len(content.splitlines())} lines to {path}"

    def script_check(path: ScriptPath) -> str:
        source = project.scripts.get(path)
        if source is None:
            raise ToolError(f"no script {path}")
        problems: list[str] = []
        if not source.lstrip().startswith("extends "):
            problems.append("line 1: a script should start with 'extends <Class>'")
        for number, line in enumerate(source.splitlines(), 1):
            if line.count("(") != line.count(")"):
                problems.append(f"line {number}: unbalanced parentheses")
            if line.startswith(" ") and not line.startswith("\t"):
                problems.append(f"line {number}: indent with tabs")
        return "\n".join(problems) or f"{path}: no problems found"

    return [
        _ToolSpec(
            script_create,
            "script_create",
            "Create script",
            "Create a GDScript file from the default template.",
        ),
        _ToolSpec(
            script_read, "script_read", "Read script", "Return a script's source.", _READ_ONLY
        ),
        _ToolSpec(
            script_edit,
            "script_edit",
            "Edit script",
            "Replace a script's source (creates the file if needed).",
        ),
        _ToolSpec(
            script_check,
            "script_check",
            "Check script",
            "Run a quick static check on a script and list the problems.",
            _READ_ONLY,
        ),
    ]


def _animation_tools(project: _Project) -> list[_ToolSpec]:
    def animation_create(
        name: Annotated[str, Field(description="Animation name, e.g. walk.")],
        player: Annotated[
            str, Field(description="Path of the AnimationPlayer node.")
        ] = "AnimationPlayer",
        length: Annotated[float, Field(description="Length in seconds.", gt=0, le=600)] = 1.0,
    ) -> str:
        if name in project.animations:
            raise ToolError(f"animation {name!r} already exists")
        project.animations[name] = (player, length, [])
        return f"created animation {name!r} ({length:g} s) on {player}"

    def animation_add_keyframe(
        animation: Annotated[str, Field(description="Name of the animation.")],
        track: Annotated[str, Field(description="Property track, e.g. Player:position.")],
        time: Annotated[float, Field(description="Time of the key in seconds.", ge=0)],
        value: Annotated[str, Field(description="Value of the key, e.g. Vector2(10, 0).")],
    ) -> str:
        if animation not in project.animations:
            raise ToolError(f"no animation {animation!r}")
        _player, length, keys = project.animations[animation]
        if time > length:
            raise ToolError(f"time {time:g} s is past the end of {animation!r} ({length:g} s)")
        keys.append((track, time, value))
        return f"key at {time:g} s on {track} in {animation!r} ({_count(len(keys), 'key')})"

    def animation_list() -> str:
        if not project.animations:
            return "no animations"
        return "\n".join(
            f"{name}: {length:g} s on {player}, {_count(len(keys), 'key')}"
            for name, (player, length, keys) in project.animations.items()
        )

    return [
        _ToolSpec(
            animation_create,
            "animation_create",
            "Create animation",
            "Create an empty animation on an AnimationPlayer.",
        ),
        _ToolSpec(
            animation_add_keyframe,
            "animation_add_keyframe",
            "Add keyframe",
            "Insert a keyframe on a property track of an animation.",
        ),
        _ToolSpec(
            animation_list,
            "animation_list",
            "List animations",
            "List the animations with their length and key count.",
            _READ_ONLY,
        ),
    ]


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
    project = _Project()
    toolsets: dict[ToolsetName, list[_ToolSpec]] = {
        "scene": _scene_tools(project),
        "script": _script_tools(project),
        "animation": _animation_tools(project),
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
        annotations=_READ_ONLY,
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
        annotations=_READ_ONLY,
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
