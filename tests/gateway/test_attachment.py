"""An attachment's first line read back (``gateway.attachment``): what it says, and the bounds
a line from any process of the user's cannot pass."""

from __future__ import annotations

import pytest

from agentty_tui.gateway.attachment import DEFAULT_WAIT, MAX_WAIT, Attachment


def test_a_line_reads_back_as_the_attachment_it_was() -> None:
    sent = Attachment("/p", config="/p/mcp.json", host="codex", trust=True, wait=12.5)
    assert Attachment.of_line(sent.line()) == sent


@pytest.mark.parametrize(
    ("wait", "taken"),
    [("1e9", MAX_WAIT), ("Infinity", MAX_WAIT), ("-3", 0.0), ("7", 7.0), (None, DEFAULT_WAIT)],
)
def test_a_wait_is_held_between_nothing_and_its_ceiling(wait: str | None, taken: float) -> None:
    """A wait of an hour or of ``Infinity`` (which JSON readers take) would hold the daemon's
    answer to a host that long; a negative one is none."""
    field = "" if wait is None else f', "wait": {wait}'
    assert Attachment.of_line(f'{{"cwd": "/p"{field}}}\n'.encode()).wait == taken


@pytest.mark.parametrize("wait", ["NaN", '"5"', "true", "[]"])
def test_a_wait_that_is_not_a_number_is_refused(wait: str) -> None:
    with pytest.raises(ValueError, match="wait is a number of seconds"):
        Attachment.of_line(f'{{"cwd": "/p", "wait": {wait}}}\n'.encode())
