"""The pretend Godot project of the ``toolsets`` demo server and the tools of each toolset.

Data and tool bodies only: which toolsets are switched on, and the notification that the tool
list changed, are the server's business (``toolsets``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import Field

__all__ = [
    "NODE_TYPES",
    "READ_ONLY",
    "TOOLSET_NAMES",
    "Project",
    "ToolSpec",
    "ToolsetName",
    "animation_tools",
    "scene_tools",
    "script_tools",
]

ToolsetName = Literal["scene", "script", "animation"]
TOOLSET_NAMES: tuple[ToolsetName, ...] = ("scene", "script", "animation")
READ_ONLY = ToolAnnotations(read_only_hint=True)
"""The annotations of a tool that only looks: the client may call it without asking."""

ScenePath = Annotated[
    str, Field(description="Scene resource path, e.g. res://levels/main.tscn.", pattern=r"^res://")
]
ScriptPath = Annotated[
    str, Field(description="Script resource path, e.g. res://player.gd.", pattern=r"^res://")
]
NODE_TYPES = ("Node", "Node2D", "Node3D", "Sprite2D", "CharacterBody2D", "Camera2D", "Label")


def _count(n: int, noun: str) -> str:
    """``n`` and ``noun``, plural unless ``n`` is one."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


@dataclass
class Project:
    """The pretend project every tool works on."""

    scene_path: str | None = None
    nodes: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # path -> (type, parent)
    dirty: bool = False
    scripts: dict[str, str] = field(default_factory=dict)
    animations: dict[str, tuple[str, float, list[tuple[str, float, str]]]] = field(
        default_factory=dict
    )  # name -> (player, length, [(track, time, value)])


@dataclass(frozen=True)
class ToolSpec:
    """One tool of a toolset, as the server adds it when the toolset is switched on."""

    fn: Callable[..., Any]
    """The tool's function (its signature is the input schema)."""
    name: str
    """The tool's name on the wire."""
    title: str
    """Its human-readable title."""
    description: str
    """What the model reads about it."""
    annotations: ToolAnnotations | None = None
    """Hints such as read-only; None for a tool that changes the project."""


def scene_tools(project: Project) -> list[ToolSpec]:
    """The tools of the ``scene`` toolset, working on ``project``."""

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
        ToolSpec(scene_open, "scene_open", "Open scene", "Open a scene in the editor."),
        ToolSpec(
            scene_add_node,
            "scene_add_node",
            "Add node",
            "Add a child node to the open scene.",
        ),
        ToolSpec(
            scene_tree,
            "scene_tree",
            "Scene tree",
            "Show the node tree of the open scene.",
            READ_ONLY,
        ),
        ToolSpec(scene_save, "scene_save", "Save scene", "Save the open scene."),
    ]


def script_tools(project: Project) -> list[ToolSpec]:
    """The tools of the ``script`` toolset, working on ``project``."""

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
        ToolSpec(
            script_create,
            "script_create",
            "Create script",
            "Create a GDScript file from the default template.",
        ),
        ToolSpec(script_read, "script_read", "Read script", "Return a script's source.", READ_ONLY),
        ToolSpec(
            script_edit,
            "script_edit",
            "Edit script",
            "Replace a script's source (creates the file if needed).",
        ),
        ToolSpec(
            script_check,
            "script_check",
            "Check script",
            "Run a quick static check on a script and list the problems.",
            READ_ONLY,
        ),
    ]


def animation_tools(project: Project) -> list[ToolSpec]:
    """The tools of the ``animation`` toolset, working on ``project``."""

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
        ToolSpec(
            animation_create,
            "animation_create",
            "Create animation",
            "Create an empty animation on an AnimationPlayer.",
        ),
        ToolSpec(
            animation_add_keyframe,
            "animation_add_keyframe",
            "Add keyframe",
            "Insert a keyframe on a property track of an animation.",
        ),
        ToolSpec(
            animation_list,
            "animation_list",
            "List animations",
            "List the animations with their length and key count.",
            READ_ONLY,
        ),
    ]
