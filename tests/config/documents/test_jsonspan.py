"""``value_span``: the span of the value at a path of keys, in any layout of plain JSON."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from agentty_tui.config.documents.jsonspan import value_span

KEYS = st.sampled_from(["a", "b", 'q"uote', "{brace}", "é", "/home/x", ""])
SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=12,
)
LAYOUTS = st.sampled_from(
    [
        {"indent": None},
        {"indent": None, "separators": (",", ":")},
        {"indent": 2},
        {"indent": "\t", "ensure_ascii": False},
        {"indent": 4, "separators": (" ,", " : ")},
    ]
)


def _at(value: Any, keys: tuple[str, ...]) -> tuple[bool, Any]:
    for key in keys:
        if not isinstance(value, dict) or key not in value:
            return False, None
        value = value[key]
    return True, value


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    document=st.dictionaries(KEYS, VALUES, max_size=5),
    keys=st.lists(KEYS, min_size=1, max_size=3).map(tuple),
    layout=LAYOUTS,
    padding=st.sampled_from(["", " ", "\n", " \r\n\t"]),
)
@example(document={"a": {"b": 1}}, keys=("a", "b"), layout={"indent": 2}, padding=" \r\n\t")
def test_the_span_holds_the_value_at_the_path(
    document: dict[str, Any], keys: tuple[str, ...], layout: dict[str, Any], padding: str
) -> None:
    text = padding + json.dumps(document, **layout) + padding
    span = value_span(text, keys)
    found, value = _at(document, keys)
    event(f"found: {found}")
    if not found:
        assert span is None
        return
    assert span is not None
    start, end = span
    assert json.loads(text[start:end]) == value
    # The span is exactly the value: no whitespace or comma around it.
    assert text[start] not in " \t\r\n," and text[end - 1] not in " \t\r\n,"


def test_the_last_of_repeated_keys_counts() -> None:
    text = '{"a": {"x": 1}, "a": {"x": 2}}'
    span = value_span(text, ("a", "x"))
    assert span is not None and text[span[0] : span[1]] == "2"


@pytest.mark.parametrize("text", ['{"a" 1}', '{"a": 1 "b": 2}', "{1: 2}", '{"a": tru}'])
def test_text_that_is_not_json_is_a_value_error(text: str) -> None:
    with pytest.raises(ValueError, match=r"xpect|key must be a string"):
        value_span(text, ("b",))


def test_a_path_through_a_non_object_is_not_found() -> None:
    assert value_span('{"a": [{"b": 1}], "c": "d"}', ("a", "b")) is None
    assert value_span('{"a": [{"b": 1}], "c": "d"}', ("c", "d")) is None
    assert value_span("[1]", ("a",)) is None
