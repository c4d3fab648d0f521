"""The config's values (``specs.py``): the rules they hold without any file."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agentty_tui.specs import ToolFilter

NAMES = st.sampled_from(["a", "b", "c", "d", "e"])
FILTERS = st.builds(
    ToolFilter,
    include=st.none() | st.lists(NAMES, unique=True).map(tuple),
    exclude=st.lists(NAMES, unique=True).map(tuple),
)


@given(FILTERS, FILTERS, NAMES)
def test_either_lets_through_what_one_or_the_other_lets_through(
    one: ToolFilter, other: ToolFilter, tool: str
) -> None:
    # What several hosts send together: a tool is on while any of them sends it.
    joined = one.either(other)
    assert joined.allows(tool) == (one.allows(tool) or other.allows(tool))
    assert other.either(one).allows(tool) == joined.allows(tool)
