"""What a command prints: ``say`` for a person, ``say_json`` for a script, ``warn`` on stderr.

The only ways the headless commands write: whatever a server, a file or an argument put into
the text, its controls reach the terminal as visible escapes (``terminal_text``), never raw.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from agentty_tui.terminal_text import safe_block, safe_message

__all__ = [
    "say",
    "say_json",
    "warn",
]


def say(text: str) -> None:
    """Print ``text`` for a person on stdout.

    With ``warn`` and ``say_json``, the only ways these commands write: whatever a server, a
    file or an argument put into the text, its controls are shown as visible escapes.
    """
    print(safe_block(text))


def warn(message: str) -> None:
    """``agentty-tui: message`` on stderr, one line, as ``cli.main`` prints errors (every
    control visible)."""
    print(f"agentty-tui: {safe_message(message)}", file=sys.stderr)


def say_json(value: Any) -> None:
    """Print ``value`` as indented JSON, lossless: the encoder escapes every control (and
    every non-ASCII character, bidi controls included), so the text is safe on a terminal."""
    print(json.dumps(value, indent=2, ensure_ascii=True))
