"""A tool call's result as a person reads it: the one rendering of ``call`` and the picker.

Each content block is said the way a person takes it in: text as the text; an image or audio
clip by its type and size (``[image: image/png, 5.3 KB]``), never its base64 on a terminal; a
resource link by its name and URI; an embedded resource by its URI and type. Structured
content is shown beside the text, as indented JSON, under a line that says so (alone when
there is no other content; not at all when a text block holds the same JSON already).

A tool with an output schema promises structured content that matches it. The SDK client raises
on a mismatch and the result is lost (the bridge turns that check off: ``bridge/_sdk.py``);
``output_mismatch`` checks it here instead, and ``readable_result`` shows the result with the
mismatch stated under it.

The text returned is the server's: a caller makes it safe for where it goes
(``terminal_text.safe_block`` on a terminal; the picker shows it as plain text).
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

import mcp_types as types

from agentty_tui.frozen import thaw

__all__ = [
    "MISMATCH_HEADING",
    "NO_CONTENT",
    "block_text",
    "byte_size",
    "output_mismatch",
    "readable_result",
]

NO_CONTENT = "(no content)"
"""What a result without any content says."""

STRUCTURED_HEADING = "structured content:"
"""The line above the structured content when text comes before it."""


MISMATCH_HEADING = "⚠ the structured content does not match the tool's output schema:"
"""The line above what a mismatch is (the result itself is shown above it)."""

MISMATCH_LIMIT = 500
"""Characters of a mismatch's description (it may quote a large value of the server's)."""


def output_mismatch(schema: Any, result: types.CallToolResult) -> str | None:
    """How ``result``'s structured content breaks ``schema`` (the tool's advertised output
    schema, any JSON value), or ``None`` when it matches, or there is no schema, or the
    result is an error (whose content need not match)."""
    if schema is None or result.is_error:
        return None
    if result.structured_content is None:
        return "there is no structured content, though the tool has an output schema"
    # Imported here: only a call of a tool with an output schema pays for jsonschema.
    from jsonschema import exceptions, validators
    from referencing import Registry
    from referencing.exceptions import Unresolvable

    try:
        schema = thaw(schema)  # the model keeps it frozen; the checker wants plain JSON
        checker = validators.validator_for(schema)
        checker.check_schema(schema)
        # An empty registry: a ``$ref`` outside the schema is never fetched.
        found = exceptions.best_match(
            checker(schema, registry=Registry()).iter_errors(result.structured_content)
        )
    except exceptions.SchemaError as exc:
        return _bounded(f"the output schema itself is not valid: {exc.message}")
    except (Unresolvable, RecursionError, TypeError, ValueError) as exc:
        return _bounded(f"the output schema cannot be checked: {type(exc).__name__}: {exc}")
    if found is None:
        return None
    where = "/".join(str(part) for part in found.absolute_path)
    return _bounded(f"at {where or 'the top'}: {found.message}")


def _bounded(text: str) -> str:
    if len(text) <= MISMATCH_LIMIT:
        return text
    return text[:MISMATCH_LIMIT] + "…"


def byte_size(count: int) -> str:
    """``count`` bytes for a person: ``812 B``, ``5.3 KB``, ``1.2 MB`` (powers of 1000)."""
    if count < 1000:
        return f"{count} B"
    value = count / 1000
    for unit in ("KB", "MB"):
        if value < 999.95:  # what would round to 1000.0 is said in the next unit
            return f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} GB"


def _decoded_size(data: str) -> int:
    """How many bytes base64 ``data`` holds, without decoding it."""
    text = "".join(data.split())
    padding = len(text) - len(text.rstrip("="))
    return max(0, len(text) * 3 // 4 - padding)


def _kind(mime: str | None) -> str:
    return mime if mime else "no type given"


def block_text(block: Any) -> str:
    """One content block as a person reads it."""
    if isinstance(block, types.TextContent):
        return block.text
    if isinstance(block, types.ImageContent | types.AudioContent):
        return f"[{block.type}: {_kind(block.mime_type)}, {byte_size(_decoded_size(block.data))}]"
    if isinstance(block, types.ResourceLink):
        size = f", {byte_size(block.size)}" if block.size is not None else ""
        return f"[resource link: {block.name} <{block.uri}>, {_kind(block.mime_type)}{size}]"
    if isinstance(block, types.EmbeddedResource):
        resource = block.resource
        if isinstance(resource, types.TextResourceContents):
            held = f"text, {len(resource.text)} characters"
        else:
            held = byte_size(_decoded_size(resource.blob))
        return f"[resource: {resource.uri}, {_kind(resource.mime_type)}, {held}]"
    return f"[{getattr(block, 'type', type(block).__name__)}]"


def _structured(value: Any) -> str:
    try:
        return json.dumps(value, indent=2, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):  # too deep or not JSON
        return "(the structured content cannot be shown)"


def _said_in_text(result: types.CallToolResult) -> bool:
    """Whether a text block already holds the structured content (what servers are asked to
    do, and SDK servers do): shown once, not twice. A value that is not an object is wrapped
    by SDK servers as ``{"result": value}`` beside its text; that counts as said too."""
    structured = result.structured_content
    for block in result.content:
        if not isinstance(block, types.TextContent):
            continue
        said: list[Any] = [block.text]
        with contextlib.suppress(ValueError, RecursionError):
            said.append(json.loads(block.text))
        if any(structured in (value, {"result": value}) for value in said):
            return True
    return False


def readable_result(result: types.CallToolResult, output_schema: Any = None) -> str:
    """Every content block of ``result``, one after another, then its structured content
    unless a text block already said it; then, when ``output_schema`` (the tool's) is given
    and the structured content does not match it, the mismatch."""
    parts = [block_text(block) for block in result.content]
    if result.structured_content is not None and not _said_in_text(result):
        if parts:
            parts.append(STRUCTURED_HEADING)
        parts.append(_structured(result.structured_content))
    text = "\n".join(parts) if parts else NO_CONTENT
    mismatch = output_mismatch(output_schema, result)
    return text if mismatch is None else f"{text}\n{MISMATCH_HEADING}\n{mismatch}"
