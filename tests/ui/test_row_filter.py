"""row_filter.py: the filter text split into ``is:`` state words and name text."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agentty_tui.ui.row_filter import STATE_WORDS, RowFilter, parse_filter


def test_state_words_of_both_kinds_and_name_text() -> None:
    parsed = parse_filter("  IS:Off note  is:needs_login  is:failed  Add ")
    assert parsed == RowFilter(
        text="note add",
        statuses=frozenset({"needs_login", "failed"}),
        tool_states=frozenset({"off"}),
    )
    assert parsed.active


def test_an_unknown_state_is_kept_as_typed_and_keeps_nothing() -> None:
    parsed = parse_filter("is:Broken x")
    assert parsed.unknown == ("is:Broken",) and parsed.text == "x"
    assert parsed.active
    assert not parse_filter("").active and not parse_filter("   ").active


@given(st.lists(st.sampled_from([*STATE_WORDS, "a", "B_c", "is:", "is:nope"]), max_size=6))
def test_every_word_lands_in_exactly_one_place(words: list[str]) -> None:
    parsed = parse_filter(" ".join(words))
    states = [w for w in words if w in STATE_WORDS]
    unknown = [w for w in words if w.startswith("is:") and w not in STATE_WORDS]
    names = [w.casefold() for w in words if not w.startswith("is:")]
    assert parsed.text == " ".join(names)
    assert parsed.unknown == tuple(unknown)
    assert len(parsed.statuses) + len(parsed.tool_states) == len(set(states))
