"""The add-server form: a name, then either a command line or a URL.

``validate_add`` is the whole validation, pure: it turns the three fields into a name and a
``ServerSpec`` or raises ``FormError`` naming the field to fix. The screen shows that error in
the form and returns a value only once the input is valid, so nothing is written before. The
error quotes what the user typed, so it is shown as plain text (``[/]`` is text, not markup).
"""

from __future__ import annotations

import shlex
from collections.abc import Collection, Mapping, Sequence
from typing import ClassVar, Literal, NamedTuple

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Input, Label, Select, Static

from agentty_tui.config.entry_rules import (
    EntryError,
    EntryField,
    command_not_found,
    http_spec,
    new_server_name,
    stdio_spec,
)
from agentty_tui.model import ServerSpec, SourceRef
from agentty_tui.ui.modal import Dialog
from agentty_tui.ui.text import PlainText

__all__ = ["AddServerScreen", "FormError", "NewServer", "validate_add"]

Field = Literal["name", "command", "url", "cwd", "env", "headers"]
"""A field of the add or the edit form."""


class FormError(ValueError):
    """Invalid form input: which field, and what to do about it."""

    def __init__(self, field: Field, message: str) -> None:
        super().__init__(message)
        self.field: Field = field
        self.message = message


_FIELD_OF_RULE: Mapping[EntryField, Field] = {
    "name": "name",
    "command": "command",
    "url": "url",
    "env": "env",
    "header": "headers",
}
"""The form's field that shows a rule's refusal."""


def validate_add(
    name: str,
    command_line: str,
    url: str,
    existing: Collection[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> tuple[str, ServerSpec]:
    """Validate the form's fields into ``(name, spec)`` by the config's rule book
    (``config.entry_rules``, as ``agentty-tui add`` does); ``FormError`` says what is wrong and
    in which field. A header's refusal names the header, never its value."""
    name, command_line, url = name.strip(), command_line.strip(), url.strip()
    try:
        new_server_name(name, existing)
        if command_line and url:
            raise FormError("url", "Give either a command or a URL, not both.")
        if url:
            if env or cwd:
                raise FormError(
                    "env", "Env and a folder are for a command; a URL server takes headers."
                )
            return name, http_spec(url, headers)
        if headers:
            raise FormError("headers", "Headers are for a URL server; a command takes env.")
        try:
            argv = shlex.split(command_line)
        except ValueError as exc:
            raise FormError("command", f"The command line does not parse: {exc}.") from None
        spec = stdio_spec(argv, env, cwd)
        if (missing := command_not_found(spec.command)) is not None:
            raise FormError("command", missing)
        return name, spec
    except EntryError as exc:
        message = exc.message
        if exc.field == "header":
            # The header rule names what is wrong, not which header: the form says which.
            message = f"Header {exc.key!r}: {message}."
        raise FormError(_FIELD_OF_RULE[exc.field], message) from None


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
        # The connection fields are shared with the edit form, whose module builds on this one.
        from agentty_tui.ui.server_form import connection_rows

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
        from agentty_tui.ui.server_form import CONNECTION_FIELDS, connection_spec

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
