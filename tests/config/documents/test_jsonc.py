"""The JSONC splicer: syntax, and edits that change only the text of what changed."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentty_tui.config.documents.jsonc import parse_jsonc, splice
from agentty_tui.errors import ConfigError

TEXT = """// head
{
  "a": 1, // one
  /* block */ "b": [1, 2,],
  "c": {
    // about d
    "d": "x",
    "e": null
  },
}
"""


def test_parses_comments_and_trailing_commas() -> None:
    assert parse_jsonc(TEXT).value == {"a": 1, "b": [1, 2], "c": {"d": "x", "e": None}}


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [('{"a": 1,,}', 1, 9), ('{\n  "a" 1}', 2, 7), ("{/* open", 1, 2), ('{"a": tru}', 1, 7)],
)
def test_syntax_errors_name_line_and_column(text: str, line: int, column: int) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_jsonc(text, "f.json")
    assert (caught.value.line, caught.value.column) == (line, column)
    assert str(caught.value).startswith(f"f.json:{line}:{column}: invalid JSON")


def test_equal_value_leaves_the_text_alone() -> None:
    assert splice(TEXT, copy.deepcopy(parse_jsonc(TEXT).value)) == TEXT


def test_removing_an_entry_takes_its_comment_lines_and_keeps_the_others() -> None:
    value = parse_jsonc(TEXT).value
    del value["c"]["d"]
    out = splice(TEXT, value)
    assert "about d" not in out
    assert "// head" in out and "// one" in out and "/* block */" in out
    assert out.endswith('    "e": null\n  },\n}\n')


def test_removing_the_last_entry_drops_the_comma_before_it() -> None:
    text = '{\n  "a": 1,\n  "b": 2\n}\n'
    assert splice(text, {"a": 1}) == '{\n  "a": 1\n}\n'
    assert splice(text, {}) == "{}\n"


def test_inserting_follows_the_siblings_layout() -> None:
    text = '{\n    "a": 1 // note\n}\n'
    assert splice(text, {"a": 1, "b": [1, 2]}) == '{\n    "a": 1, // note\n    "b": [1, 2]\n}\n'
    inline = '{"a": {"x": 1}}'
    assert splice(inline, {"a": {"x": 1, "y": 2}}) == '{"a": {"x": 1, "y": 2}}'


def test_an_array_item_is_appended_and_removed_in_place() -> None:
    text = '{"l": ["a", /* keep */ "b"]}'
    assert splice(text, {"l": ["a", "b", "c"]}) == '{"l": ["a", /* keep */ "b", "c"]}'
    assert splice(text, {"l": ["b"]}) == '{"l": [/* keep */ "b"]}'


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=4), children, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(
    old=st.dictionaries(st.text(max_size=4), _json, max_size=4),
    new=st.dictionaries(st.text(max_size=4), _json, max_size=4),
    indent=st.sampled_from([None, 2, 4]),
)
def test_splice_always_gives_text_that_parses_to_the_new_value(
    old: dict[str, Any], new: dict[str, Any], indent: int | None
) -> None:
    text = "// c\n" + json.dumps(old, indent=indent) + "\n"
    out = splice(text, new)
    assert parse_jsonc(out).value == new
    assert json.loads(out.split("\n", 1)[1]) == new  # still plain JSON below the comment
