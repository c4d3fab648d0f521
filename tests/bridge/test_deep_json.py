"""``cut_deep_json`` on arbitrary JSON (property-based): it cuts what the parsed value would."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from agentty_tui.bridge.stdio import TOO_DEEP, cut_deep_json

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=30,
)


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


def _cut(value: Any, depth: int, level: int = 0) -> Any:
    """The same cut, done on the parsed value."""
    if isinstance(value, dict | list) and level == depth:
        return TOO_DEEP
    if isinstance(value, dict):
        return {key: _cut(item, depth, level + 1) for key, item in value.items()}
    if isinstance(value, list):
        return [_cut(item, depth, level + 1) for item in value]
    return value


@given(JSON, st.integers(min_value=0, max_value=6), st.booleans())
def test_cutting_equals_the_cut_of_the_parsed_value(value: Any, depth: int, plain: bool) -> None:
    text = json.dumps(value, ensure_ascii=plain).encode()
    cut = json.loads(cut_deep_json(text, depth))
    assert cut == _cut(value, depth)
    assert _depth(cut) <= depth
    if _depth(value) <= depth:
        assert cut_deep_json(text, depth) == text  # nothing deep enough: the text is untouched


def test_ten_thousand_levels_are_cut_without_recursion() -> None:
    text = ('{"a": ' * 10_000 + "1" + "}" * 10_000).encode()
    cut = json.loads(cut_deep_json(text, 3))
    assert cut == {"a": {"a": {"a": TOO_DEEP}}}
