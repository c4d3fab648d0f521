"""What the picker would write to the terminal, as text, for tests that inspect every cell.

The compositor's full update is the frame the driver writes; its control segments are the
app's own cursor moves and styles, every other segment is text put on screen.
"""

from __future__ import annotations

from textual.app import App

__all__ = ["screen_text"]


def screen_text(app: App[None]) -> str:
    """Every line of the current frame, as the text segments that make it up."""
    update = app.screen._compositor.render_full_update(simplify=True)
    return "\n".join(
        "".join(segment.text for strip in line for segment in strip if not segment.control)
        for line in update.strips
    )
