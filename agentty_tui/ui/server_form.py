"""The server form that adds (``a``) or edits (``E``) a server, with the rules of its fields.

The add form asks for a name, then either a command line or a URL; the edit form (``E``) shows
how a server is reached, prefilled, its saved values masked (every field of both kinds, so a
server can change kind), and the app writes it through ``plugin_update``, which restarts that
server alone. Both dismiss with a value only once the input is valid, so nothing is written
before; the error quotes what the user typed, so it is shown as plain text (``[/]`` is text,
not markup).

A server is reached by a command line (with env and a working folder) or by a URL (with
headers). Env and headers are typed on one line each, as shell words: ``TZ=UTC "GREETING=hi
there"`` and ``"Authorization: Bearer …" "X-Team: a"``. A value already saved is never shown:
the edit form shows it as ``MASK``, and a ``MASK`` left in place keeps the saved value (a URL
with credentials the same way, as ``mask_url`` shows it).

The rules are pure: ``validate_add`` turns the fields into a name and a ``ServerSpec`` through
the config's rule book of entries (``config.entry_rules``), or raises ``FormError`` naming the
field to fix: the form refuses what ``agentty-tui add`` refuses, in the same words.
"""

from __future__ import annotations

import shlex
from collections.abc import Collection, Mapping, Sequence
from typing import ClassVar, Literal, NamedTuple

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widget import Widget
from textual.widgets import Button, Input, Label, Select, Static

from agentty_tui.config.entry_rules import (
    EntryError,
    EntryField,
    command_not_found,
    http_spec,
    new_server_name,
    stdio_spec,
)
from agentty_tui.model import HttpSpec, PluginModel, ServerSpec, SourceRef, StdioSpec
from agentty_tui.secrets import mask_url
from agentty_tui.ui.dialogs import Dialog
from agentty_tui.ui.text import PlainText

__all__ = [
    "CONNECTION_FIELDS",
    "MASK",
    "AddServerScreen",
    "ConnectionValues",
    "EditServerScreen",
    "Field",
    "FormError",
    "NewServer",
    "connection_rows",
    "connection_spec",
    "names_held",
    "parse_pairs",
    "saved_values",
    "validate_add",
]

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


# --- the connection fields ----------------------------------------------------------------

MASK = "••••"
"""A saved value, not shown; left in place it keeps the value."""

CONNECTION_FIELDS: tuple[tuple[Field, str, str], ...] = (
    ("command", "Command", "e.g. npx -y @modelcontextprotocol/server-memory"),
    ("cwd", "Folder", "working folder of the command (optional)"),
    ("env", "Env", 'e.g. TZ=UTC "GREETING=hello there"'),
    ("url", "or URL", "e.g. http://127.0.0.1:8000/mcp"),
    ("headers", "Headers", 'e.g. "Authorization: Bearer ${TOKEN}"'),
)
"""Each field: its name, label and placeholder, in the order of the form."""

ConnectionValues = Mapping[Field, str]
"""What each connection field holds (missing fields are empty)."""


def connection_rows(prefix: str, values: ConnectionValues) -> list[Widget]:
    """The rows of the connection fields, with ids ``{prefix}-{field}``, prefilled."""
    return [
        Horizontal(
            Label(label),
            Input(values.get(field, ""), placeholder=placeholder, id=f"{prefix}-{field}"),
            classes="form-row",
        )
        for field, label, placeholder in CONNECTION_FIELDS
    ]


def _quoted(mapping: Mapping[str, str], sep: str) -> str:
    return " ".join(shlex.quote(f"{name}{sep}{MASK}") for name in mapping)


def saved_values(spec: ServerSpec) -> dict[Field, str]:
    """The fields of a saved server: its command line or URL, every value masked."""
    if isinstance(spec, StdioSpec):
        return {
            "command": shlex.join([spec.command, *spec.args]),
            "cwd": spec.cwd or "",
            "env": _quoted(spec.env, "="),
        }
    return {"url": mask_url(spec.url), "headers": _quoted(spec.headers, ": ")}


def parse_pairs(
    text: str, sep: str, field: Field, saved: Mapping[str, str] | None = None
) -> dict[str, str]:
    """``NAME{sep}value`` words into a mapping; ``MASK`` as a value keeps the saved one."""
    what = "env" if field == "env" else "a header"
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise FormError(field, f"The {field} line does not parse: {exc}.") from None
    pairs: dict[str, str] = {}
    for word in words:
        name, found, value = word.partition(sep.strip())
        name = name.strip()
        if not found or not name:
            raise FormError(field, f"Write {what} as NAME{sep}value, not {word!r}.")
        value = value.strip() if field == "headers" else value
        if value == MASK:
            if saved is None or name not in saved:
                raise FormError(field, f"{name!r} has no saved value: type its value.")
            value = saved[name]
        pairs[name] = value
    return pairs


def connection_spec(
    name: str,
    values: ConnectionValues,
    existing: Collection[str],
    saved: ServerSpec | None = None,
) -> ServerSpec:
    """The spec the fields describe; ``FormError`` names the field to fix.

    ``existing`` are the other servers' names; ``saved`` is the server's spec when editing
    (its masked values are kept).
    """
    get = {field: values.get(field, "").strip() for field, _, _ in CONNECTION_FIELDS}
    url = get["url"]
    if isinstance(saved, HttpSpec) and url == mask_url(saved.url):
        url = saved.url
    old = saved if isinstance(saved, HttpSpec) else None
    old_env = saved.env if isinstance(saved, StdioSpec) else None
    env = parse_pairs(get["env"], "=", "env", old_env)
    headers = parse_pairs(get["headers"], ": ", "headers", old.headers if old else None)
    # Env and headers go through the rule book with the rest, as ``agentty-tui add``'s do.
    _, spec = validate_add(
        name, get["command"], url, existing, env=env, cwd=get["cwd"] or None, headers=headers
    )
    if not isinstance(spec, HttpSpec) or old is None:
        return spec
    # An unchanged URL keeps its transport (a ``"type": "sse"``); an edit keeps OAuth settings.
    same = old.url == spec.url
    return spec.model_copy(
        update={"transport": old.transport if same else spec.transport, "oauth": old.oauth}
    )


# --- the add form -------------------------------------------------------------------------


class NewServer(NamedTuple):
    """What the add form asks for: the name, how it is reached, and (in a workspace) the file
    it goes to."""

    name: str
    """The new server's name."""
    spec: ServerSpec
    """How it is reached."""
    target: SourceRef | None = None
    """The workspace file chosen (``None``: one config file, or the default)."""


def names_held(model: PluginModel) -> dict[SourceRef, set[str]]:
    """The names each file of a workspace holds (shadowed entries and a server's other files
    too): what the add form refuses for that file (``AddServerScreen``'s ``held``)."""
    held: dict[SourceRef, set[str]] = {}
    for server in (*model.servers, *model.shadowed):
        for ref in (server.source, *server.also_in):
            if ref is not None:
                held.setdefault(ref, set()).add(server.name)
    return held


class AddServerScreen(Dialog[NewServer | None]):
    """A modal form; dismisses with a ``NewServer`` once valid, or ``None`` when cancelled.

    ``targets``: the files it may go to, the default first (the form shows a choice of them,
    each by its label and path, when there is more than one).
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
        # One file is no choice: the form shows none, and the server goes to the default.
        self._targets = tuple(targets or ()) if len(targets or ()) > 1 else ()
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


# --- the edit form ------------------------------------------------------------------------


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
