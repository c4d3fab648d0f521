"""Hostile strings for property tests, and an independent check of what reached a terminal.

``unsafe_chars`` decides with ``unicodedata`` (not with the regex of ``terminal_text``), so
a character missing from that regex is caught here rather than agreed with.
"""

from __future__ import annotations

import unicodedata

from hypothesis import strategies as st

__all__ = ["ESCAPES", "hostile_text", "unsafe_chars"]

UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
"""Controls, format characters (bidi, zero-width), surrogates, line and paragraph separators."""

ESCAPES = (
    "\x1b]52;c;aGk=\x07",
    "\x1b]0;title\x07",
    "\x1b[2J",
    "\x1b]8;;http://x/\x1b\\",
    "\x9b31m",
    "\r",
    "\n",
    "\r\n",
    "\t",
    "\x00",
    "\x7f",
    "\u202e",
    "\u2066",
    "\u200b",
    "\ufeff",
    "\u2028",
    "\U000e0041",
    "\ud800",
    "[/]",
    "[bold]",
)
"""Pieces a hostile server would send: terminal commands, line forgers, disguises, markup."""


def hostile_text(max_size: int = 40) -> st.SearchStrategy[str]:
    """Arbitrary text (surrogates included) interleaved with pieces of ``ESCAPES``."""
    piece = st.one_of(
        st.sampled_from(ESCAPES),
        st.text(alphabet=st.characters(exclude_categories=()), max_size=8),
    )
    return st.lists(piece, max_size=max_size // 4).map("".join)


def unsafe_chars(text: str, allowed: str = "") -> list[str]:
    """The characters of ``text`` a terminal must not be given raw (other than ``allowed``)."""
    return [
        char
        for char in text
        if char not in allowed and unicodedata.category(char) in UNSAFE_CATEGORIES
    ]
