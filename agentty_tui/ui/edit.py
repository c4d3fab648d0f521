"""The edit-server form (``E``): how a server is reached, prefilled, its saved values masked.

It shows the command line, working folder and env of a command server, or the URL and headers
of a URL server (every field of both, so a server can change kind), validates them as the add
form does (``connection_spec``) and dismisses with the new ``ServerSpec`` once valid. The app
writes it through ``plugin_update``, which restarts that server alone.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Input, Static

from agentty_tui.model import ServerSpec
from agentty_tui.ui.form_rules import FormError
from agentty_tui.ui.modal import Dialog
from agentty_tui.ui.server_form import (
    CONNECTION_FIELDS,
    connection_rows,
    connection_spec,
    saved_values,
)
from agentty_tui.ui.text import PlainText

__all__ = ["EditServerScreen"]


class EditServerScreen(Dialog[ServerSpec | None]):
    """A modal form; dismisses with the new spec once valid, or ``None`` when cancelled."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]
    AUTO_FOCUS = "#edit-command"

    def __init__(self, name: str, spec: ServerSpec, others: Collection[str]) -> None:
        super().__init__()
        self.server_name = name
        self._saved = spec
        self._others = frozenset(others)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="edit-form", classes="dialog"):
            title = f"Edit server {self.server_name}"
            yield PlainText(title, one_line=True, classes="dialog-title")
            yield from connection_rows("edit", saved_values(self._saved))
            yield Static(
                "•••• keeps a saved value · saving restarts this server only", classes="dialog-hint"
            )
            yield PlainText("", id="edit-error", classes="form-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Save", variant="primary", id="edit-ok", compact=True)
                yield Button("Cancel", id="edit-cancel", compact=True)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in any field saves."""
        event.stop()
        self.submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Save submits, Cancel closes."""
        event.stop()
        if event.button.id == "edit-ok":
            self.submit()
        else:
            self.dismiss(None)

    def submit(self) -> None:
        """Validate; show the problem in the form, or dismiss with the new spec."""
        fields = {f: self.query_one(f"#edit-{f}", Input) for f, _, _ in CONNECTION_FIELDS}
        for field in fields.values():
            field.remove_class("-invalid")
        values = {f: field.value for f, field in fields.items()}
        try:
            spec = connection_spec(self.server_name, values, self._others, self._saved)
        except FormError as exc:
            self.query_one("#edit-error", PlainText).update(exc.message)
            if exc.field in fields:
                fields[exc.field].add_class("-invalid")
                self.set_focus(fields[exc.field])
            return
        self.dismiss(spec)

    def action_cancel(self) -> None:
        """Close without changing anything."""
        self.dismiss(None)
