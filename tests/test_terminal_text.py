"""``safe_line`` and ``safe_block``: nothing a server sends reaches a terminal as a control."""

from __future__ import annotations

import sys
import unicodedata

from hypothesis import given, settings

from agentty_tui.terminal_text import NEWLINE_MARK, safe_block, safe_line, safe_message
from tests.hostile_text import UNSAFE_CATEGORIES, hostile_text, unsafe_chars


def test_terminal_commands_are_shown_not_sent() -> None:
    assert safe_line("\x1b]52;c;aGk=\x07clip") == "␛]52;c;aGk=␇clip"
    assert safe_line("a\x1b[2Jb") == "a␛[2Jb"
    assert safe_line("\x9b31m\x7f\x00") == "\\x9b31m␡␀"
    assert safe_block("x\x1b]0;t\x07y") == "x␛]0;t␇y"


def test_a_newline_on_one_line_is_a_mark_and_kept_in_a_block() -> None:
    assert (
        safe_line("one\ntwo\r\nthree\rfour\tfive")
        == f"one{NEWLINE_MARK}two{NEWLINE_MARK}three␍four␉five"
    )
    assert safe_block("one\ntwo\r\nthree\rfour\tfive") == "one\ntwo\nthree␍four\tfive"


def test_disguises_are_made_visible() -> None:
    assert safe_line("abc\u202edef\u202c") == "abc<U+202E>def<U+202C>"
    assert safe_line("ad\u200bmin\ufeff\u2066") == "ad<U+200B>min<U+FEFF><U+2066>"
    assert safe_block("x\u2028y\U000e0041") == "x<U+2028>y<U+E0041>"
    assert safe_line("lone \ud800") == "lone <U+D800>"


def test_ordinary_text_is_returned_as_it_is() -> None:
    text = "Ein Werkzeug — 工具 ✂ émoji 🎉 [bold]not markup[/]"
    assert safe_line(text) is text
    assert safe_block(text + "\nsecond\tline") == text + "\nsecond\tline"


def test_every_invisible_or_control_code_point_is_replaced() -> None:
    """The listed ranges of ``terminal_text`` against this Python's ``unicodedata``."""
    missed = [
        f"U+{code:04X}"
        for code in range(sys.maxunicode + 1)
        if unicodedata.category(chr(code)) in UNSAFE_CATEGORIES
        and safe_line(chr(code)) == chr(code)
    ]
    assert missed == []


@settings(max_examples=300, deadline=None)
@given(hostile_text(80))
def test_no_control_survives(text: str) -> None:
    line = safe_line(text)
    block = safe_block(text)
    assert unsafe_chars(line) == []
    assert unsafe_chars(block, allowed="\n\t") == []
    assert "\n" not in line
    line.encode("utf-8")  # raises on a lone surrogate, as printing would
    block.encode("utf-8")
    assert block.count("\n") == text.count("\n")
    assert safe_line(line) == line and safe_block(block) == block


def test_a_message_with_lines_is_one_line() -> None:
    assert safe_message("failed: it exited\n  dying \x1b]0;x\x07\n\n last  ") == (
        f"failed: it exited {NEWLINE_MARK} dying ␛]0;x␇ {NEWLINE_MARK} last"
    )


@given(hostile_text(80))
def test_a_message_is_always_one_safe_line(text: str) -> None:
    message = safe_message(text)
    assert "\n" not in message
    assert unsafe_chars(message) == []
