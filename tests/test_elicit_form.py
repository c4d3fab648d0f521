"""A server's form read from its schema: every field kind, what a person types made into the
answer's value or a reason it does not fit, and no schema that can break it."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentty_tui.elicit_form import MAX_FIELDS, FieldError, form_fields

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "minLength": 2, "maxLength": 5},
        "mail": {"type": "string", "format": "email"},
        "site": {"type": "string", "format": "uri"},
        "born": {"type": "string", "format": "date"},
        "when": {"type": "string", "format": "date-time"},
        "age": {"type": "integer", "minimum": 0, "maximum": 130, "default": 36},
        "ratio": {"type": "number", "maximum": 1},
        "ok": {"type": "boolean", "default": True},
        "color": {"type": "string", "enum": ["red", "green"]},
        "size": {
            "type": "string",
            "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}],
        },
        "tags": {
            "type": "array",
            "items": {"type": "string", "enum": ["a", "b", "c"]},
            "minItems": 1,
            "maxItems": 2,
        },
    },
    "required": ["name", "age"],
}


def fields() -> dict[str, Any]:
    return {field.name: field for field in form_fields(SCHEMA)}


def test_each_kind_of_field_is_read_in_the_schemas_order() -> None:
    found = form_fields(SCHEMA)
    assert [f.name for f in found] == list(SCHEMA["properties"])
    kinds = {f.name: f.kind for f in found}
    assert kinds == {
        "name": "text", "mail": "text", "site": "text", "born": "text", "when": "text",
        "age": "integer", "ratio": "number", "ok": "boolean", "color": "choice",
        "size": "choice", "tags": "choices",
    }  # fmt: skip
    by_name = fields()
    assert by_name["name"].required and by_name["name"].title == "Name"
    assert not by_name["mail"].required and by_name["mail"].title == "mail"
    assert by_name["age"].default == 36 and by_name["ok"].default is True
    assert by_name["size"].options == (("s", "Small"), ("l", "Large"))


@pytest.mark.parametrize(
    ("field", "typed", "value"),
    [
        ("name", "Ada", "Ada"),
        ("mail", "ada@example.org", "ada@example.org"),
        ("site", "https://example.org/x", "https://example.org/x"),
        ("born", "1815-12-10", "1815-12-10"),
        ("when", "2026-12-02T10:00:00Z", "2026-12-02T10:00:00Z"),
        ("age", "36", 36),
        ("ratio", "0.5", 0.5),
        ("ok", "no", False),
        ("ok", "Y", True),
        ("color", "2", "green"),
        ("color", "red", "red"),
        ("size", "Large", "l"),
        ("tags", "1, c", ["a", "c"]),
    ],
)
def test_what_fits_becomes_the_answers_value(field: str, typed: str, value: object) -> None:
    assert fields()[field].parse(typed) == value


@pytest.mark.parametrize(
    ("field", "typed", "why"),
    [
        ("name", "A", "at least 2 characters"),
        ("name", "Adaline", "at most 5 characters"),
        ("mail", "ada", "not an email address"),
        ("site", "example", "not a URI"),
        ("born", "10/12/1815", "not a date"),
        ("when", "noon", "not a date and time"),
        ("age", "3.5", "not an integer"),
        ("age", "131", "at most 130"),
        ("ratio", "nan", "not a finite number"),
        ("ratio", "2", "at most 1"),
        ("ok", "maybe", "yes or no"),
        ("color", "3", "not one of the options"),
        ("tags", "a,b,c", "pick at most 2"),
        ("tags", " , ", "pick at least 1"),
    ],
)
def test_what_does_not_fit_says_why(field: str, typed: str, why: str) -> None:
    with pytest.raises(FieldError, match=why):
        fields()[field].parse(typed)


def test_hints_say_the_kind_and_bounds() -> None:
    by_name = fields()
    assert by_name["age"].hint() == "an integer from 0 to 130"
    assert by_name["name"].hint() == "text, 2 to 5 characters"
    assert by_name["mail"].hint() == "an email address"


def test_a_form_has_at_most_max_fields() -> None:
    schema = {"properties": {f"f{i}": {"type": "string"} for i in range(MAX_FIELDS + 7)}}
    assert len(form_fields(schema)) == MAX_FIELDS


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(st.sampled_from(["type", "properties", "required", "items"]), JSON, max_size=4),
    st.text(max_size=8),
)
def test_no_schema_breaks_it(schema: dict[str, Any], typed: str) -> None:
    """Whatever the server sends as a schema, fields come out (or none) and typing into any
    of them gives a value or a ``FieldError``, never anything else."""
    for field in form_fields(schema):
        with contextlib.suppress(FieldError):
            field.parse(typed)
        assert isinstance(field.hint(), str)


def test_a_filled_in_box_is_read_by_the_same_rules_and_empty_is_left_out_or_required() -> None:
    """``read`` is what the picker's form uses: ``parse``'s rules, and an empty box is no value
    for an optional field and an error for a required one."""
    found = fields()
    assert found["site"].read("  ") is None
    with pytest.raises(FieldError, match="this field is required"):
        found["name"].read("")
    assert found["age"].read("41") == 41
    with pytest.raises(FieldError, match="must be at most 130"):
        found["age"].read("131")


def test_options_picked_in_a_list_are_checked_like_typed_ones() -> None:
    tags = fields()["tags"]
    assert tags.picked(["b", "a", "b"]) == ["b", "a"]
    with pytest.raises(FieldError, match="pick at most 2"):
        tags.picked(["a", "b", "c"])
    with pytest.raises(FieldError, match="pick at least 1"):
        tags.picked([])
    with pytest.raises(FieldError, match="not one of the options: 'z'"):
        tags.picked(["z"])
    assert tags.parse("1, 2") == tags.picked(["a", "b"])  # typed or picked: one rule
