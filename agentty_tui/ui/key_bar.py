"""The key bar under the picker: every key the screen offers now, wrapping on a narrow terminal.

``key_hints`` lists a screen's shown bindings that are enabled now; ``KeyBar`` shows them as one
text of ``key description`` pairs that wraps (Textual's ``Footer`` is one line that scrolls
sideways) and follows the screen's binding changes.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.content import Content
from textual.markup import escape
from textual.screen import Screen
from textual.widgets import Static

__all__ = ["KeyBar", "key_hints"]


def key_hints(screen: Screen[object]) -> list[tuple[Binding, str]]:
    """The screen's shown bindings that are enabled now, each with the key as displayed."""
    app = screen.app
    return [
        (active.binding, app.get_key_display(active.binding))
        for active in screen.active_bindings.values()
        if active.binding.show and active.enabled
    ]


class KeyBar(Static):
    """The key bar under the picker: every shown key of the screen, wrapping on a narrow
    terminal.

    Textual's ``Footer`` is one line that scrolls sideways, so at 60 columns half the keys were
    cut. This bar lists the same bindings (those with ``show=True`` that ``check_action``
    allows) as one text of ``key description`` pairs that wraps, and follows the screen's
    binding changes. A click on a key runs its action.
    """

    def on_mount(self) -> None:
        """Show the keys now and whenever the screen's bindings change."""
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self._show_keys()

    def _bindings_changed(self, screen: Screen[object]) -> None:
        if screen is self.screen:
            self._show_keys()

    def _show_keys(self) -> None:
        # Our own key names and descriptions only; each is escaped and made a click target.
        parts = [
            Content.from_markup(
                f"[@click=app.simulate_key({binding.key.split(',')[0]!r})]"
                f"[b $footer-key-foreground]{escape(key)}[/] {escape(binding.description)}[/]"
            )
            for binding, key in key_hints(self.screen)
        ]
        self.update(Content("  ").join(parts))
