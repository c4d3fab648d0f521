"""The serve process's book of its daemon's 2025-era sessions (``http.kept_sessions``): what it
keeps of the daemon's lines, within its bounds, and what an attachment may hand a daemon."""

from __future__ import annotations

import json

from agentty_tui.gateway.http.kept_sessions import (
    MAX_INITIALIZE,
    MAX_KEPT,
    KeptSessions,
    ended_line,
    kept_sessions,
    opened_line,
)

PARAMS = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "h"}}


def ident(number: int) -> str:
    return f"{number:032x}"


def test_opened_and_ended_lines_are_kept_and_forgotten() -> None:
    book = KeptSessions()
    for number in range(3):
        line = opened_line(ident(number), PARAMS)
        assert line is not None and line.endswith(b"\n")
        book.heard(line.rstrip(b"\n"))
    book.heard(ended_line(ident(1)))
    assert book.table() == {ident(0): PARAMS, ident(2): PARAMS}


def test_the_book_is_bounded_and_reads_only_its_own_lines() -> None:
    """At most ``MAX_KEPT`` sessions (the oldest go first); params over ``MAX_INITIALIZE``
    bytes, an id not of the gateway's making and lines of any other shape keep nothing."""
    book = KeptSessions()
    for number in range(MAX_KEPT + 5):
        line = opened_line(ident(number), PARAMS)
        assert line is not None
        book.heard(line)
    assert len(book) == MAX_KEPT and next(iter(book.table())) == ident(5)
    assert opened_line(ident(1), {"pad": "x" * MAX_INITIALIZE}) is None
    assert opened_line("../etc", PARAMS) is None
    fresh = KeptSessions()
    for said in [
        b"not json",
        b"[1]",
        json.dumps({"session": "short", "initialize": PARAMS}).encode(),
        json.dumps({"session": ident(1), "initialize": "no"}).encode(),
    ]:
        fresh.heard(said)
    assert fresh.table() == {}


def test_an_attachment_hands_over_only_sessions_of_the_right_shape() -> None:
    handed = {ident(n): PARAMS for n in range(MAX_KEPT + 2)}
    handed.update({"nope": PARAMS, ident(99): "params"})  # type: ignore[dict-item]
    kept = kept_sessions(handed)
    assert len(kept) == MAX_KEPT and ident(0) not in kept and ident(MAX_KEPT + 1) in kept
    assert kept_sessions(None) == {} and kept_sessions([1, 2]) == {}
