"""The book of the 2025-era sessions a gateway may take up (``http.kept_sessions``): what it
keeps of the daemon's lines, within its bounds, what an attachment may hand a daemon, and its
file, read by the next gateway on the port."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from agentty_tui.gateway.http.kept_sessions import (
    MAX_FILE,
    MAX_INITIALIZE,
    MAX_KEPT,
    KeptSessions,
    ended_line,
    kept_sessions,
    opened_line,
    sessions_path,
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


def test_the_book_in_a_file_is_read_by_the_next_and_is_the_users_alone(tmp_path: Path) -> None:
    """A book with a file writes it at each change (0600, in a 0700 folder) and a new book of
    that file starts from it, oldest first; a DELETE's ``ended`` leaves it."""
    file = sessions_path({"XDG_STATE_HOME": str(tmp_path / "state")}, 8731)
    assert file == tmp_path / "state" / "agentty" / "http-sessions-8731.json"
    book = KeptSessions(file)
    for number in range(3):
        book.opened(ident(number), PARAMS)
    book.ended(ident(1))
    assert stat.S_IMODE(file.stat().st_mode) == 0o600
    assert stat.S_IMODE(file.parent.stat().st_mode) == 0o700
    assert list(KeptSessions(file).table()) == [ident(0), ident(2)]
    assert [path.name for path in file.parent.iterdir()] == [file.name]  # no temporary left


def test_a_sessions_file_not_the_users_own_or_not_ours_is_not_read(tmp_path: Path) -> None:
    """Others may read it, a link, a folder, too large, not JSON: the book starts empty."""
    file = tmp_path / "http-sessions-1.json"
    KeptSessions(file).opened(ident(1), PARAMS)
    file.chmod(0o644)
    assert KeptSessions(file).table() == {}
    file.chmod(0o600)
    link = tmp_path / "link.json"
    link.symlink_to(file)
    assert KeptSessions(link).table() == {} and len(KeptSessions(file)) == 1
    for content in [b"not json", b"[1]", b'{"sessions": 3}', b" " * (MAX_FILE + 1)]:
        file.write_bytes(content)
        assert KeptSessions(file).table() == {}
    assert KeptSessions(tmp_path).table() == {}
