"""The form a server asks the user to fill (elicitation, form mode), read from its schema.

A ``requestedSchema`` is a flat object of primitive fields: strings (with ``email``, ``uri``,
``date`` and ``date-time`` formats and length bounds), numbers and integers (with bounds),
booleans, a choice of one (``enum``, or ``oneOf`` of ``const``/``title``) and a choice of
several (an ``array`` whose ``items`` are such a choice). ``form_fields`` reads one into
``FormField`` values and ``FormField.parse`` turns what a person typed into the value the
answer carries, or a ``FieldError`` saying what is wrong; whoever asks (the terminal prompt of
``call``, a dialog) only shows and reads.

Everything in the schema is the server's: a field of a shape this does not know is asked as
text, at most ``MAX_FIELDS`` fields and ``MAX_OPTIONS`` options are read, and nothing here
raises for a schema of the wrong shape.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Literal
from urllib.parse import urlsplit

__all__ = [
    "MAX_FIELDS",
    "MAX_OPTIONS",
    "Answer",
    "FieldError",
    "FieldKind",
    "FormField",
    "form_fields",
]

MAX_FIELDS = 50
"""The most fields of one form that are asked (the rest are left out of the answer)."""
MAX_OPTIONS = 200
"""The most options of one choice that are offered."""

Answer = str | int | float | bool | list[str]
"""A value a form answer may carry."""

FieldKind = Literal["text", "number", "integer", "boolean", "choice", "choices"]
"""How a field is asked and read."""

_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
_YES = frozenset({"y", "yes", "true", "1"})
_NO = frozenset({"n", "no", "false", "0"})


class FieldError(ValueError):
    """What a person typed does not fit the field; the message says why, for them."""


@dataclass(frozen=True, slots=True)
class FormField:
    """One field of a form."""

    name: str
    """The property's key (what the answer is keyed by)."""
    title: str
    """What to call it: the schema's ``title``, else the key."""
    description: str | None
    """The schema's ``description``."""
    kind: FieldKind
    """How it is asked and read."""
    required: bool
    """Whether the form needs it (in the schema's ``required``)."""
    default: Answer | None = None
    """The schema's usable ``default`` (``None``: none)."""
    format: str | None = None
    """A text field's ``format`` (``email``, ``uri``, ``date``, ``date-time``)."""
    min_length: int | None = None
    """A text field's ``minLength``."""
    max_length: int | None = None
    """A text field's ``maxLength``."""
    minimum: float | None = None
    """A number's ``minimum``."""
    maximum: float | None = None
    """A number's ``maximum``."""
    options: tuple[tuple[str, str], ...] = ()
    """A choice's options: (value, label), in the schema's order."""
    min_items: int | None = None
    """A choice of several: the fewest to pick (``minItems``)."""
    max_items: int | None = None
    """A choice of several: the most to pick (``maxItems``)."""

    def hint(self) -> str:
        """What kind of answer is wanted, in a few words (``an integer from 1 to 9``)."""
        if self.kind == "boolean":
            return "yes or no"
        if self.kind in ("number", "integer"):
            noun = "an integer" if self.kind == "integer" else "a number"
            if self.minimum is not None and self.maximum is not None:
                return f"{noun} from {_number(self.minimum)} to {_number(self.maximum)}"
            if self.minimum is not None:
                return f"{noun}, at least {_number(self.minimum)}"
            if self.maximum is not None:
                return f"{noun}, at most {_number(self.maximum)}"
            return noun
        if self.kind == "choice":
            return "one of the numbers or values above"
        if self.kind == "choices":
            return "numbers or values above, separated by commas"
        words = {"email": "an email address", "uri": "a URI", "date": "a date (YYYY-MM-DD)"}
        words["date-time"] = "a date and time (YYYY-MM-DDTHH:MM:SS, with its offset)"
        hint = words.get(self.format or "", "text")
        if self.min_length is not None and self.max_length is not None:
            return f"{hint}, {self.min_length} to {self.max_length} characters"
        if self.max_length is not None:
            return f"{hint}, at most {self.max_length} characters"
        if self.min_length is not None:
            return f"{hint}, at least {self.min_length} characters"
        return hint

    def parse(self, text: str) -> Answer:
        """The value ``text`` gives this field; ``FieldError`` saying why it does not fit."""
        text = text.strip()
        if self.kind == "boolean":
            if text.lower() in _YES:
                return True
            if text.lower() in _NO:
                return False
            raise FieldError("answer yes or no")
        if self.kind == "integer":
            try:
                value: float = int(text)
            except ValueError:
                raise FieldError(f"not an integer: {text!r}") from None
            return self._bounded(value)
        if self.kind == "number":
            try:
                value = float(text)
            except ValueError:
                raise FieldError(f"not a number: {text!r}") from None
            if not math.isfinite(value):
                raise FieldError("not a finite number")
            return self._bounded(value)
        if self.kind == "choice":
            return self._option(text)
        if self.kind == "choices":
            return self.picked([self._option(part) for part in text.split(",") if part.strip()])
        return self._text(text)

    def read(self, text: str) -> Answer | None:
        """What a filled-in box of a form gives this field: ``None`` (left out of the answer)
        when it is empty and optional; ``FieldError`` when it is empty and required, or when
        what it holds does not fit (``parse``)."""
        if not text.strip():
            if self.required:
                raise FieldError("this field is required")
            return None
        return self.parse(text)

    def picked(self, values: Sequence[str]) -> list[str]:
        """The options ``values`` names for a choice of several, each once, in order;
        ``FieldError`` when one is no option, or when there are too few or too many."""
        known = {value for value, _ in self.options}
        for value in values:
            if value not in known:
                raise FieldError(f"not one of the options: {value!r}")
        chosen = list(dict.fromkeys(values))
        if self.min_items is not None and len(chosen) < self.min_items:
            raise FieldError(f"pick at least {self.min_items}")
        if self.max_items is not None and len(chosen) > self.max_items:
            raise FieldError(f"pick at most {self.max_items}")
        return chosen

    def _bounded(self, value: float) -> float:
        if self.minimum is not None and value < self.minimum:
            raise FieldError(f"must be at least {_number(self.minimum)}")
        if self.maximum is not None and value > self.maximum:
            raise FieldError(f"must be at most {_number(self.maximum)}")
        return value

    def _option(self, text: str) -> str:
        text = text.strip()
        if text.isdigit() and 1 <= int(text) <= len(self.options):
            return self.options[int(text) - 1][0]
        for value, label in self.options:
            if text in (value, label):
                return value
        raise FieldError(f"not one of the options: {text!r}")

    def _text(self, text: str) -> str:
        if self.min_length is not None and len(text) < self.min_length:
            raise FieldError(f"at least {self.min_length} characters")
        if self.max_length is not None and len(text) > self.max_length:
            raise FieldError(f"at most {self.max_length} characters")
        if self.format == "email" and not _EMAIL.fullmatch(text):
            raise FieldError(f"not an email address: {text!r}")
        if self.format == "uri":
            parts = urlsplit(text)
            if not parts.scheme or not (parts.netloc or parts.path):
                raise FieldError(f"not a URI: {text!r}")
        if self.format == "date":
            try:
                date.fromisoformat(text)
            except ValueError:
                raise FieldError(f"not a date (YYYY-MM-DD): {text!r}") from None
        if self.format == "date-time":
            try:
                datetime.fromisoformat(text.replace("Z", "+00:00"))
            except ValueError:
                raise FieldError(f"not a date and time: {text!r}") from None
        return text


def _number(value: float) -> str:
    return f"{value:g}"


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _float(value: object) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value) if math.isfinite(value) else None
    return None


def _options(prop: Mapping[str, Any]) -> tuple[tuple[str, str], ...] | None:
    """A choice's (value, label) pairs: ``enum`` (with the older ``enumNames``), or ``oneOf``
    / ``anyOf`` of ``const`` with ``title``; ``None`` when ``prop`` is no choice."""
    enum = prop.get("enum")
    if isinstance(enum, Sequence) and not isinstance(enum, str):
        names = prop.get("enumNames")
        labels = names if isinstance(names, Sequence) and not isinstance(names, str) else enum
        pairs = [
            (value, label if isinstance(label, str) else value)
            for value, label in zip(enum, list(labels) + list(enum[len(labels) :]), strict=False)
            if isinstance(value, str)
        ]
        return tuple(pairs[:MAX_OPTIONS])
    for key in ("oneOf", "anyOf"):
        alternatives = prop.get(key)
        if isinstance(alternatives, Sequence) and not isinstance(alternatives, str):
            pairs = []
            for item in alternatives:
                if isinstance(item, Mapping) and isinstance(item.get("const"), str):
                    title = item.get("title")
                    const = item["const"]
                    pairs.append((const, title if isinstance(title, str) else const))
            return tuple(pairs[:MAX_OPTIONS])
    return None


def _default(prop: Mapping[str, Any], kind: FieldKind) -> Answer | None:
    value = prop.get("default")
    if kind == "boolean":
        return value if isinstance(value, bool) else None
    if kind in ("number", "integer"):
        return value if _float(value) is not None else None
    if kind == "choices":
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            return list(value)
        return None
    return value if isinstance(value, str) else None


def _field(name: str, prop: Mapping[str, Any], required: bool) -> FormField:
    kind: FieldKind = "text"
    options: tuple[tuple[str, str], ...] = ()
    kind_of = prop.get("type")
    items = prop.get("items")
    if kind_of == "boolean":
        kind = "boolean"
    elif kind_of in ("number", "integer"):
        kind = "integer" if kind_of == "integer" else "number"
    elif kind_of == "array" and isinstance(items, Mapping) and (found := _options(items)):
        kind, options = "choices", found
    elif (found := _options(prop)) is not None and found:
        kind, options = "choice", found
    title = prop.get("title")
    description = prop.get("description")
    text_format = prop.get("format")
    return FormField(
        name=name,
        title=title if isinstance(title, str) and title else name,
        description=description if isinstance(description, str) and description else None,
        kind=kind,
        required=required,
        default=_default(prop, kind),
        format=text_format if isinstance(text_format, str) and kind == "text" else None,
        min_length=_int(prop.get("minLength")),
        max_length=_int(prop.get("maxLength")),
        minimum=_float(prop.get("minimum")),
        maximum=_float(prop.get("maximum")),
        options=options,
        min_items=_int(prop.get("minItems")),
        max_items=_int(prop.get("maxItems")),
    )


def form_fields(schema: object) -> tuple[FormField, ...]:
    """The fields of a ``requestedSchema``, in its order (at most ``MAX_FIELDS``)."""
    if not isinstance(schema, Mapping):
        return ()
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return ()
    required = schema.get("required")
    needed = (
        {name for name in required if isinstance(name, str)}
        if isinstance(required, Sequence) and not isinstance(required, str)
        else set()
    )
    fields = [
        _field(name, prop, name in needed)
        for name, prop in properties.items()
        if isinstance(name, str) and isinstance(prop, Mapping)
    ]
    return tuple(fields[:MAX_FIELDS])
