"""The picker's dialog for a form a server asks the user to fill (elicitation, form mode).

The form is built from ``elicit_form.form_fields`` (the schema read once, the same way ``call``
reads it on a terminal) and checked by the same rules (``FormField.read``, ``FormField.picked``):
text (its format and length in the hint, the length capped while typing), numbers and integers
(their bounds in the hint), a yes/no checkbox, a choice of one (a drop-down) and a choice of
several (a list of checkable options). Defaults are filled in, required fields carry ``*``, and
a value that does not fit is said under its field when Accept is pressed (and cleared as soon
as it is fixed). Accept sends the answer, Decline refuses, escape (or Cancel) cancels: the
server hears which.

Titles, descriptions, option labels and the message are the server's: plain text only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, Select, SelectionList
from textual.widgets.selection_list import Selection

from agentty_tui.elicit_form import Answer, FieldError, FormField, form_fields
from agentty_tui.terminal_text import safe_line
from agentty_tui.ui.ask_dialog import AskDialog, Asker
from agentty_tui.ui.text import LINE_LIMIT, PlainText

if TYPE_CHECKING:  # the SDK's types: imported when a server asks, not at the picker's start
    import mcp_types as types

__all__ = ["FormDialog", "field_label", "field_widget", "read_field"]

_KEYS = "ctrl+s or Accept sends · Decline refuses · escape cancels · tab: next field"


def _shown_default(field: FormField) -> str:
    """A text box's starting value: the default as typed (an integer's without ``.0``)."""
    value = field.default
    if value is None or isinstance(value, bool | list):
        return ""
    if isinstance(value, float) and field.kind == "integer" and value.is_integer():
        return str(int(value))
    return str(value)


def _label(text: str) -> Text:
    """An option's label: the server's text as one plain line (never markup)."""
    return Text(safe_line(text[:LINE_LIMIT]))


def field_widget(field: FormField, widget_id: str) -> Widget:
    """The widget that asks ``field``, its default filled in."""
    if field.kind == "boolean":
        return Checkbox("yes", value=field.default is True, id=widget_id, compact=True)
    if field.kind == "choice":
        values = [value for value, _ in field.options]
        default = field.default if field.default in values else Select.NULL
        return Select(
            [(_label(label), value) for value, label in field.options],
            value=default,
            allow_blank=True,
            prompt="choose one",
            id=widget_id,
        )
    if field.kind == "choices":
        chosen = field.default if isinstance(field.default, list) else []
        return SelectionList[str](
            *(Selection(_label(label), value, value in chosen) for value, label in field.options),
            id=widget_id,
            compact=True,
        )
    kinds = {"integer": "integer", "number": "number"}
    return Input(
        _shown_default(field),
        type=kinds.get(field.kind, "text"),  # type: ignore[arg-type]
        max_length=field.max_length or 0,
        id=widget_id,
    )


def field_label(field: FormField) -> str:
    """``Age * · an integer from 0 to 150``: the title, ``*`` when required, and what kind of
    answer fits (for a choice of several, how many)."""
    label = field.title + (" *" if field.required else "")
    if field.kind in ("text", "number", "integer"):
        return f"{label} · {field.hint()}"
    if field.kind == "choices" and (field.min_items or field.max_items):
        return f"{label} · {_items_hint(field)}"
    return label


def read_field(field: FormField, widget: Widget) -> Answer | None:
    """What ``widget`` gives ``field`` (``None``: left out); ``FieldError`` saying why not."""
    if isinstance(widget, Checkbox):
        return widget.value
    if isinstance(widget, Select):
        value = widget.value
        if value is Select.NULL or not isinstance(value, str):
            return field.read("")
        return field.parse(value)
    if isinstance(widget, SelectionList):
        picked = [str(value) for value in widget.selected]
        return field.picked(picked) if picked else field.read("")
    assert isinstance(widget, Input)
    return field.read(widget.value)


class FormDialog(AskDialog):
    """A server's form: fill it in and accept, decline or cancel."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "accept", "Accept"),
        Binding("escape", "cancel", "Cancel"),
    ]
    AUTO_FOCUS = "#ask-field-0"

    def __init__(
        self, asker: Asker, params: types.ElicitRequestFormParams, *, waiting: int = 0
    ) -> None:
        super().__init__(asker, params.message, waiting=waiting)
        self.fields = form_fields(params.requested_schema)
        """The form's fields, in the schema's order."""

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog", id="ask-form"):
            yield from self.compose_header(f"A form from {self.asker.server}")
            for number, field in enumerate(self.fields):
                yield PlainText(field_label(field), classes="ask-label")
                if field.description:
                    yield PlainText(field.description, classes="ask-about")
                yield field_widget(field, f"ask-field-{number}")
                error = PlainText("", id=f"ask-error-{number}", classes="form-error")
                error.display = False  # no line of its own until there is something to say
                yield error
            if not self.fields:
                yield PlainText("(the form has no fields: accept only agrees)", classes="ask-about")
            elif any(field.required for field in self.fields):
                yield PlainText("* required", classes="ask-hint")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Accept", variant="primary", id="ask-accept", compact=True)
                yield Button("Decline", id="ask-decline", compact=True)
                yield Button("Cancel", id="ask-cancel", compact=True)
            yield from self.compose_footer(_KEYS)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Accept, Decline or Cancel."""
        event.stop()
        if event.button.id == "ask-accept":
            self.action_accept()
        else:
            self.answer("decline" if event.button.id == "ask-decline" else "cancel")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in a text field accepts, as ctrl+s does."""
        event.stop()
        self.action_accept()

    def on_input_changed(self, event: Input.Changed) -> None:
        """A field whose error shows is checked again as it is typed (the error goes once it
        fits)."""
        self._recheck(event.input)

    def on_select_changed(self, event: Select.Changed) -> None:
        """The same for a choice."""
        self._recheck(event.select)

    def on_selection_list_selected_changed(self, event: SelectionList.SelectedChanged[str]) -> None:
        """The same for a choice of several."""
        self._recheck(event.selection_list)

    def _recheck(self, widget: Widget) -> None:
        number = self._number_of(widget)
        if number is None:
            return
        error = self.query_one(f"#ask-error-{number}", PlainText)
        if str(error.render()):
            self._check(number)

    def _number_of(self, widget: Widget) -> int | None:
        prefix = "ask-field-"
        if widget.id is None or not widget.id.startswith(prefix):
            return None
        return int(widget.id[len(prefix) :])

    def _check(self, number: int) -> tuple[bool, Answer | None]:
        """Read field ``number``, showing its error (or none); (fits, value)."""
        field = self.fields[number]
        widget = self.query_one(f"#ask-field-{number}", Widget)
        error = self.query_one(f"#ask-error-{number}", PlainText)
        try:
            value = read_field(field, widget)
        except FieldError as exc:
            error.update(str(exc))
            error.display = True
            return False, None
        error.update("")
        error.display = False
        return True, value

    def answers(self) -> dict[str, Answer] | None:
        """Every field's value (left-out ones omitted); ``None`` when one does not fit (its
        error is shown under it, and the first such field has the focus)."""
        values: dict[str, Answer] = {}
        first_bad: int | None = None
        for number, field in enumerate(self.fields):
            fits, value = self._check(number)
            if not fits:
                first_bad = number if first_bad is None else first_bad
            elif value is not None:
                values[field.name] = value
        if first_bad is not None:
            self.query_one(f"#ask-field-{first_bad}", Widget).focus()
            return None
        return values

    def action_accept(self) -> None:
        """ctrl+s: send the answer, once every field fits."""
        values = self.answers()
        if values is not None:
            import mcp_types as types

            self.dismiss(types.ElicitResult(action="accept", content=values))


def _items_hint(field: FormField) -> str:
    if field.min_items is not None and field.max_items is not None:
        return f"pick {field.min_items} to {field.max_items}"
    if field.min_items is not None:
        return f"pick at least {field.min_items}"
    return f"pick at most {field.max_items}"
