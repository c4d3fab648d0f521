"""The add-server form: a name, then either a command line or a URL.

The validation is ``form_rules.validate_add`` (pure): the screen shows its ``FormError`` in the
form and returns a value only once the input is valid, so nothing is written before. The error
quotes what the user typed, so it is shown as plain text (``[/]`` is text, not markup).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import ClassVar, NamedTuple

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Input, Label, Select, Static

from agentty_tui.model import ServerSpec, SourceRef
from agentty_tui.ui.form_rules import FormError, validate_add
from agentty_tui.ui.modal import Dialog
from agentty_tui.ui.server_form import CONNECTION_FIELDS, connection_rows, connection_spec
from agentty_tui.ui.text import PlainText

__all__ = ["AddServerScreen", "FormError", "NewServer", "validate_add"]


class NewServer(NamedTuple):
    """What the add form asks for: the name, how it is reached, and (in a workspace) the file
    it goes to."""

    name: str
    """The new server's name."""
    spec: ServerSpec
    """How it is reached."""
    target: SourceRef | None = None
    """The workspace file chosen (``None``: one config file, or the default)."""


class AddServerScreen(Dialog[NewServer | None]):
    """A modal form; dismisses with a ``NewServer`` once valid, or ``None`` when cancelled.

    ``targets``: in a workspace, the files it may go to, the default first (the form shows a
    choice of them, each by its label and path); ``None`` for one config file.
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]
    AUTO_FOCUS = "#add-name"

    def __init__(
        self,
        existing: Collection[str],
        targets: Sequence[SourceRef] | None = None,
        held: Mapping[SourceRef, Collection[str]] | None = None,
    ) -> None:
        """``held``: in a workspace, the names each file holds. A name in use is refused for
        the default file; another file, chosen on purpose, refuses only the names it holds
        (an entry there over another scope's, as the command line's ``--scope`` allows)."""
        super().__init__()
        self._existing = frozenset(existing)
        self._targets = tuple(targets or ())
        self._held = {ref: frozenset(names) for ref, names in (held or {}).items()}

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="add-form", classes="dialog"):
            yield Static(
                "Add a server: a name, then a command line or a URL", classes="dialog-title"
            )
            with Horizontal(classes="form-row"):
                yield Label("Name")
                yield Input(placeholder="e.g. memory", id="add-name")
            yield from connection_rows("add", {})
            if self._targets:
                with Horizontal(classes="form-row"):
                    yield Label("File")
                    # Labels are text, never markup: each is a plain ``Text``.
                    options = [(Text(t.label), t) for t in self._targets]
                    yield Select(options, value=self._targets[0], allow_blank=False, id="add-file")
                # A path is longer than the choice is wide: the chosen file's goes under it.
                yield PlainText(
                    self._targets[0].path, one_line=True, id="add-file-path", classes="form-path"
                )
            yield PlainText("", id="add-error", classes="form-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Add", variant="primary", id="add-ok", compact=True)
                yield Button("Cancel", id="add-cancel", compact=True)

    def on_select_changed(self, event: Select.Changed) -> None:
        """Show the path of the file chosen."""
        if isinstance(event.value, SourceRef):
            self.query_one("#add-file-path", PlainText).update(event.value.path)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in any field submits the form."""
        event.stop()
        self.submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Add submits, Cancel closes."""
        event.stop()
        if event.button.id == "add-ok":
            self.submit()
        else:
            self.dismiss(None)

    def submit(self) -> None:
        """Validate; show the problem in the form, or dismiss with the result."""
        fields = {field.id.removeprefix("add-"): field for field in self.query(Input) if field.id}
        for field in fields.values():
            field.remove_class("-invalid")
        error = self.query_one("#add-error", PlainText)
        name = fields["name"].value.strip()
        values = {f: fields[f].value for f, _, _ in CONNECTION_FIELDS}
        target = None
        if self._targets:
            chosen = self.query_one("#add-file", Select).value
            target = chosen if isinstance(chosen, SourceRef) else None
        existing = self._existing
        if target is not None and target != self._targets[0]:
            existing = self._held.get(target, frozenset())
        try:
            result = name, connection_spec(name, values, existing)
        except FormError as exc:
            error.update(exc.message)
            fields[exc.field].add_class("-invalid")
            self.set_focus(fields[exc.field])
            return
        error.update("")
        self.dismiss(NewServer(*result, target))

    def action_cancel(self) -> None:
        """Close without adding anything."""
        self.dismiss(None)
