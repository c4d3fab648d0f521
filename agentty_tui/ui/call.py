"""Calling a tool from the picker: a JSON form for its arguments, then the result or the error.

``prefill_arguments`` writes a JSON object with the schema's required fields (placeholder values
by type), ``parse_arguments`` checks what the user typed, and ``format_result`` turns a
``CallToolResult`` into text. The call itself goes through the source (the bridge's step runtime).

A schema is whatever the server sent: ``prefill_arguments`` takes any JSON value anywhere in it
(a ``"required": 5`` is no required field). The result and every error are shown through
``PlainText``: the server's text with its controls made visible, never markup.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

import mcp_types as types
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Static, TextArea

from agentty_tui.errors import AgenttyError
from agentty_tui.frozen import thaw
from agentty_tui.model import ToolState
from agentty_tui.terminal_text import safe_json
from agentty_tui.ui.modal import Dialog
from agentty_tui.ui.source import PluginSource
from agentty_tui.ui.text import PlainText

__all__ = ["CallToolScreen", "format_result", "parse_arguments", "prefill_arguments"]

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


class CallToolScreen(Dialog[None]):
    """Edit a tool's JSON arguments, call it, and show what came back."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "call", "Call"),
        Binding("escape", "close", "Close"),
    ]
    AUTO_FOCUS = "#call-args"

    def __init__(self, source: PluginSource, server: str, tool: ToolState) -> None:
        super().__init__()
        self._source = source
        self._server = server
        self._tool = tool

    def compose(self) -> ComposeResult:
        prefill = prefill_arguments(self._tool.input_schema)
        with VerticalScroll(classes="dialog", id="call"):
            yield PlainText(
                f"Call {self._server} / {self._tool.bare}", one_line=True, classes="dialog-title"
            )
            yield Static("Arguments (JSON):", classes="dialog-heading")
            yield TextArea(prefill, id="call-args", soft_wrap=True, show_line_numbers=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Call", variant="primary", id="call-run", compact=True)
                yield Button("Close", id="call-close", compact=True)
            yield PlainText("ctrl+s calls · escape closes", id="call-result")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Call or Close."""
        event.stop()
        if event.button.id == "call-run":
            self.action_call()
        else:
            self.dismiss(None)

    def action_call(self) -> None:
        """Parse the arguments and call the tool in a worker."""
        result = self.query_one("#call-result", PlainText)
        result.remove_class("-error")
        try:
            arguments = parse_arguments(self.query_one("#call-args", TextArea).text)
        except ValueError as exc:
            self._show(str(exc), error=True)
            return
        result.update("calling…")
        self._call(arguments)

    @work(exclusive=True, group="call", exit_on_error=False)
    async def _call(self, arguments: dict[str, Any]) -> None:
        try:
            outcome = await self._source.call_tool(self._server, self._tool.bare, arguments)
        except AgenttyError as exc:
            self._show(str(exc), error=True)
            return
        except Exception as exc:  # a misbehaving server must not take the app down
            self._show(f"{type(exc).__name__}: {exc}", error=True)
            return
        if outcome.is_error:
            self._show("The tool reported an error:\n" + format_result(outcome), error=True)
        else:
            self._show(format_result(outcome), error=False)

    def _show(self, text: str, *, error: bool) -> None:
        result = self.query_one("#call-result", PlainText)
        result.set_class(error, "-error")
        result.update(text)
        # The result is below the editor: bring it into view, and let the keys scroll the
        # dialog (tab goes back to the editor).
        dialog = self.query_one("#call", VerticalScroll)
        dialog.focus()
        self.call_after_refresh(dialog.scroll_to_widget, result, top=True, animate=False)

    def action_close(self) -> None:
        """Close the form."""
        self.dismiss(None)
