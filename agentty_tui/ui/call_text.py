"""A tool call's arguments and result as text: the JSON the form starts with, what the user
typed checked, the result and the schema made readable.

No widget here: the dialog (``call``) shows these texts. A schema is whatever the server sent:
``prefill_arguments`` takes any JSON value anywhere in it (a ``"required": 5`` is no required
field).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import mcp_types as types

from agentty_tui.frozen import thaw
from agentty_tui.terminal_text import clip, safe_json

__all__ = ["SCHEMA_LIMIT", "format_result", "parse_arguments", "prefill_arguments", "schema_text"]

SCHEMA_LIMIT = 4_000
"""Characters of an input schema shown beside the editor (the details screen shows it whole)."""

_PLACEHOLDERS: dict[str, Any] = {
    "string": "",
    "integer": 0,
    "number": 0,
    "boolean": False,
    "array": [],
    "object": {},
    "null": None,
}


def _placeholder(schema: object) -> Any:
    """A value for a property whose schema is ``schema`` (any JSON value; ``None`` if unsure)."""
    if not isinstance(schema, Mapping):
        return None
    for key in ("default", "const"):
        if key in schema:
            return thaw(schema[key])
    enum = schema.get("enum")
    if isinstance(enum, list | tuple) and enum:
        return thaw(enum[0])
    kind = schema.get("type")
    if isinstance(kind, list | tuple):
        kind = next((k for k in kind if isinstance(k, str) and k != "null"), "null")
    return _PLACEHOLDERS.get(kind) if isinstance(kind, str) else None


def prefill_arguments(schema: object) -> str:
    """A JSON object holding every required property of ``schema`` with a placeholder value.

    Anything the schema holds where an object, a list or a name belongs is ignored, so no
    schema a server sends makes this raise.
    """
    if not isinstance(schema, Mapping):
        return "{}"
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        properties = {}
    required = schema.get("required")
    names = (
        [name for name in required if isinstance(name, str)]
        if isinstance(required, list | tuple)
        else []
    )
    values = {name: _placeholder(properties.get(name)) for name in names}
    try:
        return safe_json(values)
    except (ValueError, RecursionError):  # a default too deep (or too odd) to write back
        return safe_json(dict.fromkeys(values))


def parse_arguments(text: str) -> dict[str, Any]:
    """The arguments the user typed; ``ValueError`` with a readable message when not an object."""
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"Not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})."
        ) from None
    if not isinstance(value, dict):
        raise ValueError("The arguments must be a JSON object: { ... }.")
    return value


def format_result(result: types.CallToolResult) -> str:
    """A call's content as text: text parts verbatim, other parts summarized.

    Structured content is shown only when there is no text part (servers are asked to repeat it
    as text, and Python servers do).
    """
    parts: list[str] = []
    for item in result.content:
        if isinstance(item, types.TextContent):
            parts.append(item.text)
        elif isinstance(item, types.ImageContent | types.AudioContent):
            parts.append(f"[{item.type}: {item.mime_type}, {len(item.data)} base64 characters]")
        else:
            parts.append(f"[{getattr(item, 'type', type(item).__name__)}]")
    has_text = any(isinstance(item, types.TextContent) for item in result.content)
    if result.structured_content is not None and not has_text:
        parts.append(safe_json(result.structured_content))
    return "\n".join(parts) if parts else "(no content)"


def schema_text(schema: object) -> str:
    """The input schema as indented JSON, cut at ``SCHEMA_LIMIT`` characters."""
    try:
        text = safe_json(thaw(schema))
    except (ValueError, RecursionError):  # too deep or too odd to write out
        return "(the schema cannot be shown)"
    return clip(text, SCHEMA_LIMIT)
