"""The host's default native tools: the core toolset that always ships before any MCP tool.

A host that embeds agentty_tui passes its own list (or the config names one); this is what the
catalog uses when neither does. Every name is provider-safe and every schema is a JSON Schema
object with its required fields listed and no extra properties allowed.
"""

from __future__ import annotations

from typing import Any

from agentty_tui.model import NativeTool

__all__ = ["DEFAULT_NATIVE_TOOLS"]


def _schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


_PATH = {
    "type": "string",
    "description": "Path of the file, absolute or relative to the workspace.",
}

DEFAULT_NATIVE_TOOLS: tuple[NativeTool, ...] = (
    NativeTool(
        name="read_file",
        description="Read a text file, optionally a range of its lines.",
        input_schema=_schema(
            {
                "path": _PATH,
                "offset": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "First line to read, counting from 1.",
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "Most lines to read.",
                },
            },
            ["path"],
        ),
    ),
    NativeTool(
        name="write_file",
        description="Create a file, or replace its whole content.",
        input_schema=_schema(
            {
                "path": _PATH,
                "content": {"type": "string", "description": "The file's new content."},
            },
            ["path", "content"],
        ),
    ),
    NativeTool(
        name="edit_file",
        description="Replace an exact piece of text in a file with new text.",
        input_schema=_schema(
            {
                "path": _PATH,
                "old_text": {
                    "type": "string",
                    "minLength": 1,
                    "description": "Text to find; must occur exactly once unless replace_all.",
                },
                "new_text": {"type": "string", "description": "Text to put in its place."},
                "replace_all": {
                    "type": "boolean",
                    "default": False,
                    "description": "Replace every occurrence instead of exactly one.",
                },
            },
            ["path", "old_text", "new_text"],
        ),
    ),
    NativeTool(
        name="list_directory",
        description="List the entries of a directory.",
        input_schema=_schema(
            {
                "path": {"type": "string", "description": "The directory to list."},
                "recursive": {
                    "type": "boolean",
                    "default": False,
                    "description": "Also list the entries of subdirectories.",
                },
            },
            ["path"],
        ),
    ),
    NativeTool(
        name="search_files",
        description="Search file contents for a regular expression.",
        input_schema=_schema(
            {
                "pattern": {"type": "string", "minLength": 1, "description": "Regular expression."},
                "path": {
                    "type": "string",
                    "description": "Directory or file to search; the workspace when absent.",
                },
                "glob": {
                    "type": "string",
                    "description": "Only search files whose path matches this glob, e.g. *.py.",
                },
            },
            ["pattern"],
        ),
    ),
    NativeTool(
        name="run_command",
        description="Run a shell command and return its exit code, stdout and stderr.",
        input_schema=_schema(
            {
                "command": {"type": "string", "minLength": 1, "description": "The command line."},
                "cwd": {
                    "type": "string",
                    "description": "Working directory; the workspace when absent.",
                },
                "timeout_seconds": {
                    "type": "number",
                    "exclusiveMinimum": 0,
                    "description": "Kill the command after this many seconds.",
                },
            },
            ["command"],
        ),
    ),
)
"""read_file, write_file, edit_file, list_directory, search_files, run_command."""
