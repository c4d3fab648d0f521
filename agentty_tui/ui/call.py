"""Calling a tool from the picker: a JSON form for its arguments, then the result or the error.

``prefill_arguments`` writes a JSON object with the schema's required fields (placeholder values
by type), ``parse_arguments`` checks what the user typed, and ``format_result`` turns a
``CallToolResult`` into text. The call itself goes through the source (the bridge's step runtime),
in a worker of the app, not of the dialog, with hooks (``bridge/call_hooks.py``) that keep the
server's latest ``notifications/progress`` in the call's ``CallRecord``: the dialog shows it as a
bar with the server's message and the time the call has run (``call_progress``). While the call
runs, escape cancels it (the worker's cancellation reaches the SDK's request, which tells the
server with ``notifications/cancelled``; attached to the gateway daemon, the daemon cancels its
call and the server hears the same) and ctrl+b closes the dialog with the call left running;
the app keeps the last record, and ``C`` shows it again (its result once it came).

A schema is whatever the server sent: ``prefill_arguments`` takes any JSON value anywhere in it
(a ``"required": 5`` is no required field). The result and every error are shown through
``PlainText``: the server's text with its controls made visible, never markup.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar

import anyio
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Static, TextArea

from agentty_tui.call_progress import CallProgress, progress_line
from agentty_tui.errors import AgenttyError
from agentty_tui.frozen import thaw
from agentty_tui.model import ToolState
from agentty_tui.terminal_text import clip, safe_json
from agentty_tui.ui.dialogs import Dialog
from agentty_tui.ui.server_asks import ServerAsks
from agentty_tui.ui.source import PluginSource
from agentty_tui.ui.text import PlainText

if TYPE_CHECKING:  # the picker's first frame comes before the SDK is imported
    import mcp_types as types

__all__ = [
    "SCHEMA_LIMIT",
    "CallRecord",
    "CallToolScreen",
    "format_result",
    "parse_arguments",
    "prefill_arguments",
    "schema_text",
]

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


def format_result(result: types.CallToolResult, output_schema: Any = None) -> str:
    """A call's content as a person reads it (``call_result.readable_result``), with a mismatch
    against the tool's ``output_schema`` stated."""
    from agentty_tui.call_result import readable_result  # the SDK's types: not before a call

    return readable_result(result, output_schema)


def schema_text(schema: object) -> str:
    """The input schema as indented JSON, cut at ``SCHEMA_LIMIT`` characters."""
    try:
        text = safe_json(thaw(schema))
    except (ValueError, RecursionError):  # too deep or too odd to write out
        return "(the schema cannot be shown)"
    return clip(text, SCHEMA_LIMIT)


# --- the record of a call -----------------------------------------------------------------


@dataclass
class CallRecord:
    """One call of a tool from the picker: what was sent, and what came back once it did."""

    server: str
    """The server's name."""
    tool: ToolState
    """The tool called."""
    arguments: str
    """The arguments as the user typed them (what the editor shows when reopened)."""
    started: float | None = None
    """``time.monotonic()`` when the call was sent; ``None`` before the first call."""
    finished: float | None = None
    """``time.monotonic()`` when the answer came; ``None`` while it runs."""
    result: str | None = None
    """The result or the error, as text (from the server: shown through ``PlainText``)."""
    error: bool = False
    """Whether ``result`` is an error."""
    viewers: int = 0
    """How many dialogs show this record now (none: a finished call says so in a toast)."""
    latest: CallProgress | None = None
    """The server's latest progress report for the running call; ``None``: none yet."""

    @property
    def running(self) -> bool:
        """The call was sent and has not answered."""
        return self.started is not None and self.finished is None

    def progress(self, now: float) -> str:
        """The running call on one line: ``calling… · 3 s``, or once the server reported
        progress, its bar, count and message (``call_progress.progress_line``)."""
        if self.started is None:
            return ""
        return progress_line(self.latest, now - self.started, width=DIALOG_BAR)

    async def _reported(self, progress: float, total: float | None, message: str | None) -> None:
        """The call's ``notifications/progress``: the latest is kept (the dialog's timer draws
        it; a flood of reports costs an assignment each)."""
        if self.running:
            self.latest = CallProgress(progress, total, message)

    async def run(
        self, source: PluginSource, arguments: dict[str, Any], asks: ServerAsks | None = None
    ) -> None:
        """Call the tool through ``source`` and keep what came back; never raises but the
        cancellation of its task (escape), which it records before passing it on. ``asks``:
        where a form or page the server asks for during the call is shown (``None``: the
        server hears a decline)."""
        self.started, self.finished, self.result, self.error = time.monotonic(), None, None, False
        self.latest = None
        # Imported at the first call: the hooks' module imports the SDK's client.
        from agentty_tui.bridge.call_hooks import CallHooks

        hooks = CallHooks(progress=self._reported)
        if asks is not None:
            hooks = replace(asks.hooks(self.server, self.tool.bare), progress=self._reported)
        try:
            outcome = await source.call_tool(self.server, self.tool.bare, arguments, hooks)
        except anyio.get_cancelled_exc_class():
            self._done(CANCELLED, error=True)
            raise
        except AgenttyError as exc:
            if asks is not None:  # a -32042 names pages to open before calling again
                asks.refused(self.server, self.tool.bare, exc)
            self._done(str(exc), error=True)
            return
        except Exception as exc:  # a misbehaving server must not take the app down
            self._done(f"{type(exc).__name__}: {exc}", error=True)
            return
        shown = format_result(outcome, self.tool.output_schema)
        if outcome.is_error:
            self._done("The tool reported an error:\n" + shown, error=True)
        else:
            self._done(shown, error=False)

    def _done(self, text: str, *, error: bool) -> None:
        self.result, self.error, self.finished = text, error, time.monotonic()


# --- the dialog ---------------------------------------------------------------------------

DIALOG_BAR = 10
"""Cells of the dialog's progress bar (the line fits a 60-column terminal's dialog)."""

CANCELLED = "The call was cancelled."
"""What a call cancelled with escape shows (the server was told: by the picker's own bridge,
or by the gateway daemon the picker is attached to)."""

_HINT = "ctrl+s calls · escape closes"
_RUNNING_HINT = "escape cancels the call · ctrl+b leaves it running (C shows it again)"


class CallToolScreen(Dialog[None]):
    """Edit a tool's JSON arguments beside its input schema, call it, and show what came back.

    The screen only shows its ``record``: the call runs in a worker of the app and fills the
    record in, and a timer shows its progress and, once, its result.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "call", "Call"),
        Binding("escape", "close", "Close"),
        Binding("ctrl+b", "leave", "Leave it running", priority=True),
    ]
    AUTO_FOCUS = "#call-args"

    def __init__(
        self,
        source: PluginSource,
        server: str,
        tool: ToolState,
        record: CallRecord | None = None,
        *,
        asks: ServerAsks | None = None,
    ) -> None:
        """``asks``: the app's queue of server requests, where the call's forms are shown."""
        super().__init__()
        self._source = source
        self._asks = asks
        self.record = record or CallRecord(server, tool, prefill_arguments(tool.input_schema))
        """The call this dialog shows (the app keeps it for ``C``)."""
        self._shown: float | None = None  # ``finished`` of the result on screen

    def compose(self) -> ComposeResult:
        record = self.record
        with VerticalScroll(classes="dialog", id="call"):
            yield PlainText(
                f"Call {record.server} / {record.tool.bare}", one_line=True, classes="dialog-title"
            )
            with Horizontal(id="call-edit"):
                with Vertical(id="call-args-box"):
                    yield Static("Arguments (JSON):", classes="dialog-heading")
                    yield TextArea(
                        record.arguments, id="call-args", soft_wrap=True, show_line_numbers=False
                    )
                with Vertical(id="call-schema-box"):
                    yield Static("Input schema:", classes="dialog-heading")
                    with VerticalScroll(id="call-schema-scroll"):
                        yield PlainText(schema_text(record.tool.input_schema), id="call-schema")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Call", variant="primary", id="call-run", compact=True)
                yield Button("Close", id="call-close", compact=True)
            yield PlainText("", id="call-progress", one_line=True)
            yield PlainText(_HINT, id="call-hint", classes="dialog-hint")
            yield PlainText("", id="call-result")

    def on_mount(self) -> None:
        """Show the record now and follow it while the dialog is open."""
        self.record.viewers += 1
        self.refresh_record()
        self.set_interval(0.25, self.refresh_record)

    def on_unmount(self) -> None:
        """This dialog no longer shows the record."""
        self.record.viewers -= 1

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Call or Close."""
        event.stop()
        if event.button.id == "call-run":
            self.action_call()
        else:
            self.dismiss(None)

    def action_call(self) -> None:
        """Parse the arguments and call the tool in a worker of the app."""
        record = self.record
        if record.running:
            self.app.notify("The call is still running.", severity="warning", timeout=2)
            return
        text = self.query_one("#call-args", TextArea).text
        try:
            arguments = parse_arguments(text)
        except ValueError as exc:
            self._show(str(exc), error=True)
            return
        record.arguments = text
        app = self.app
        label = f"{record.server} / {record.tool.bare}"

        async def call() -> None:
            await record.run(self._source, arguments, self._asks)
            for screen in app.screen_stack:
                if isinstance(screen, CallToolScreen) and screen.record is record:
                    screen.refresh_record()
            if record.viewers == 0:  # the dialog was closed meanwhile
                app.notify(
                    f"The call of {label} is done: C shows its result.",
                    severity="error" if record.error else "information",
                    timeout=6,
                )

        app.run_worker(call(), group="call", exclusive=True, exit_on_error=False)
        self.refresh_record()

    def refresh_record(self) -> None:
        """Show the record's progress, or its result once (the timer and the call call this)."""
        record = self.record
        progress = self.query_one("#call-progress", PlainText)
        hint = self.query_one("#call-hint", PlainText)
        if record.running:
            progress.update(record.progress(time.monotonic()))
            hint.update(_RUNNING_HINT)
            return
        progress.update("")
        hint.update(_HINT)
        if record.result is not None and record.finished != self._shown:
            self._shown = record.finished
            self._show(record.result, error=record.error)

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
        """Cancel the running call (the dialog stays, to say so), else close the dialog."""
        if self.record.running:
            self.app.workers.cancel_group(self.app, "call")
            return
        self.dismiss(None)

    def action_leave(self) -> None:
        """Close the dialog with the call left running; ``C`` shows it again."""
        self.dismiss(None)
