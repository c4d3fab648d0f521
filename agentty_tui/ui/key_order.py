"""Keys in a burst: each handed on only once the one before it took effect.

``KeyOrderApp`` is the picker app's base: a paste, fast typing or a key repeat is handled one
key after the other, each where focus is by then (a form a key opened gets the keys typed after
it), never faster than the widgets can follow.
"""

from __future__ import annotations

from textual import events
from textual.app import App
from textual.dom import DOMNode
from textual.timer import Timer

__all__ = ["STUCK_KEY_SECONDS", "KeyOrderApp"]

STUCK_KEY_SECONDS = 0.5
"""The longest a key waits for the one before it (a widget closed while handling it)."""


class KeyOrderApp(App[None]):
    """An app that hands keys on one at a time, each after the previous one took effect.

    Textual's app forwards every key to the widget focused at the moment it reads the key, and
    a binding runs only when the key has bubbled back up to the app: with a burst (a paste, fast
    typing, a key repeat) the app forwarded the next keys before the first one's binding ran.
    So after ``a`` the name typed next went to the list, not to the form ``a`` opened, and after
    a ``tab`` the next characters went to the field it was leaving. This app holds the keys that
    come while one is being handled, and hands the next one on only once the previous one has
    gone the whole way: through the focused widget and each of its parents up to the app (its
    binding done), and through the screen on top by then (a dialog it opened is mounted and has
    focused its first field).
    """

    def __init__(self) -> None:
        super().__init__()
        self._waiting_keys: list[events.Key] | None = None  # None: no key is being handled
        self._key_turn = 0  # counts handed-on keys, so a late or doubled signal is ignored
        self._stuck_timer: Timer | None = None

    async def on_event(self, event: events.Event) -> None:
        """Hold a key from the terminal while an earlier one is still being handled."""
        if not isinstance(event, events.Key) or event.is_forwarded:
            await super().on_event(event)
            return
        if self._waiting_keys is not None:
            self._waiting_keys.append(event)
            return
        await self._hand_on(event, [])

    async def _hand_on(self, key: events.Key, waiting: list[events.Key]) -> None:
        self._waiting_keys = waiting
        self._key_turn += 1
        turn = self._key_turn
        target: DOMNode = self.focused or self.screen
        await super().on_event(key)
        # The key is now in the target's queue: a marker queued behind it follows the same way
        # up, one node at a time, so it reaches the app after the key's binding ran there.
        if not target.call_later(self._climb, target, turn):
            self.call_later(self._through_screen, turn)
        if self._stuck_timer is not None:
            self._stuck_timer.stop()
        self._stuck_timer = self.set_timer(STUCK_KEY_SECONDS, lambda: self._next_key(turn))

    def _climb(self, node: DOMNode, turn: int) -> None:
        parent = node.parent
        if node is self or parent is None or not parent.call_later(self._climb, parent, turn):
            self.call_later(self._through_screen, turn)

    def _through_screen(self, turn: int) -> None:
        # Queued behind the Mount of a screen the key pushed: runs once it has its focus.
        if not self.screen.call_later(self._next_key, turn):
            self.call_later(self._next_key, turn)

    async def _next_key(self, turn: int) -> None:
        if turn != self._key_turn or self._waiting_keys is None:
            return
        if self._stuck_timer is not None:
            self._stuck_timer.stop()
            self._stuck_timer = None
        waiting = self._waiting_keys
        if not waiting:
            self._waiting_keys = None
            return
        await self._hand_on(waiting[0], waiting[1:])
