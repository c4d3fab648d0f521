"""The connection fields shared by the add form and the edit form, and their validation (pure).

A server is reached by a command line (with env and a working folder) or by a URL (with
headers). Env and headers are typed on one line each, as shell words: ``TZ=UTC "GREETING=hi
there"`` and ``"Authorization: Bearer …" "X-Team: a"``. A value already saved is never shown:
the edit form shows it as ``MASK``, and a ``MASK`` left in place keeps the saved value (a URL
with credentials the same way, as ``mask_url`` shows it).

Every field is checked by ``validate_add``, through the config's rule book of entries
(``config.entry_rules``): the form refuses what ``agentty-tui add`` refuses, in the same words.
"""

from __future__ import annotations

import shlex
from collections.abc import Collection, Mapping

from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Input, Label

from agentty_tui.model import HttpSpec, ServerSpec, StdioSpec
from agentty_tui.secrets import mask_url
from agentty_tui.ui.form_rules import Field, FormError, validate_add

__all__ = [
    "CONNECTION_FIELDS",
    "MASK",
    "ConnectionValues",
    "connection_rows",
    "connection_spec",
    "parse_pairs",
    "saved_values",
]

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
