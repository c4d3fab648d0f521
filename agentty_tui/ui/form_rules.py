"""The add and edit forms' validation, pure: fields in, a name and a ``ServerSpec`` out.

``validate_add`` turns the fields into a name and a ``ServerSpec`` by the config's rule book, or
raises ``FormError`` naming the field to fix. No widget here: the forms (``add.py``,
``server_form.py``, ``edit.py``) show the error.
"""

from __future__ import annotations

import shlex
from collections.abc import Collection, Mapping
from typing import Literal

from agentty_tui.config.entry_rules import (
    EntryError,
    EntryField,
    command_not_found,
    http_spec,
    new_server_name,
    stdio_spec,
)
from agentty_tui.model import ServerSpec

__all__ = ["Field", "FormError", "validate_add"]

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
