"""Calling a tool from the picker: a JSON form for its arguments, then the result or the error.

``prefill_arguments`` writes a JSON object with the schema's required fields (placeholder values
by type), ``parse_arguments`` checks what the user typed, and ``format_result`` turns a
``CallToolResult`` into text. The call itself goes through the source (the bridge's step runtime),
in a worker of the app, not of the dialog: escape closes the dialog while the call goes on, and
its ``CallRecord`` (the app keeps the last one) shows the result when the dialog is reopened.

A schema is whatever the server sent: ``prefill_arguments`` takes any JSON value anywhere in it
(a ``"required": 5`` is no required field). The result and every error are shown through
``PlainText``: the server's text with its controls made visible, never markup.

Here: the dialog. The texts are made in ``call_text``, the record kept in ``call_record``
(their names are re-exported here, where callers import them).
"""

from __future__ import annotations

import time
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Static, TextArea

from agentty_tui.model import ToolState
from agentty_tui.ui.call_record import CallRecord
from agentty_tui.ui.call_text import (
    SCHEMA_LIMIT,
    format_result,
    parse_arguments,
    prefill_arguments,
    schema_text,
)
from agentty_tui.ui.modal import Dialog
from agentty_tui.ui.source import PluginSource
from agentty_tui.ui.text import PlainText

__all__ = [
    "SCHEMA_LIMIT",
    "CallRecord",
    "CallToolScreen",
    "format_result",
    "parse_arguments",
    "prefill_arguments",
    "schema_text",
]

_HINT = "ctrl+s calls · escape closes (a call goes on; C shows its result)"


class CallToolScreen(Dialog[None]):
    """Edit a tool's JSON arguments beside its input schema, call it, and show what came back.

    The screen only shows its ``record``: the call runs in a worker of the app and fills the
    record in, and a timer shows its progress and, once, its result.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "call", "Call"),
        Binding("escape", "close", "Close"),
    ]
    AUTO_FOCUS = "#call-args"

    def __init__(
        self, source: PluginSource, server: str, tool: ToolState, record: CallRecord | None = None
    ) -> None:
        super().__init__()
        self._source = source
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
            yield PlainText(_HINT, id="call-progress", classes="dialog-hint")
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
            await record.run(self._source, arguments)
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
        if record.running:
            progress.update(record.progress(time.monotonic()))
            return
        progress.update(_HINT)
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
        """Close the dialog; a running call goes on, and ``C`` shows it again."""
        self.dismiss(None)
