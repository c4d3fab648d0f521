"""The picker benchmarks' probe: when a frame showing a given change was painted.

``TimedPickerApp`` is the real ``PickerApp`` run under pilot with a ``FrameDriver``: a Textual
``Driver`` (the documented seam between an app and its terminal) that is not headless, so the
app encodes every composed frame to terminal text exactly as it would for a real terminal and
hands it to the driver's ``write``; the driver offers each frame, at its ``flush``, to a
``PaintProbe`` instead of a terminal. A benchmark arms the probe with a predicate on the
frame's plain text, triggers a change, and waits for the probe's event; ``painted_at`` is the
``perf_counter()`` time of the first frame that matched.

So "on screen" means: composed, rendered to terminal text and handed to the driver; only the
write to a real terminal is left out. Only public Textual API is used (``Driver``,
``App.get_driver_class``, ``App.run_test(headless=False)``, which ``TimedPickerApp.run_test``
makes its default).
"""

from __future__ import annotations

import re
import time
from collections.abc import AsyncGenerator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
from textual import events
from textual.app import App
from textual.driver import Driver
from textual.geometry import Size
from textual.message import Message
from textual.pilot import Pilot

from agentty_tui.model import PluginModel
from agentty_tui.ui import app as app_module
from agentty_tui.ui.app import PickerApp

__all__ = ["FrameDriver", "PaintProbe", "TimedPickerApp", "plain"]

_ESCAPES = re.compile(r"\x1b\[[0-9;?<>=$ ]*[A-Za-z~]|\x1b[()][0-9A-Za-z]|\x1b[=>]")


def plain(terminal_text: str) -> str:
    """Terminal output without its escape sequences."""
    return _ESCAPES.sub("", terminal_text)


class PaintProbe:
    """Records the first painted frame that satisfies an armed predicate."""

    def __init__(self) -> None:
        self.frames = 0
        """Frames painted so far."""
        self.painted_at: float | None = None
        """``perf_counter()`` time of the matching frame (after it was rendered to text)."""
        self._predicate: Callable[[str], bool] | None = None
        self._event: anyio.Event | None = None

    def arm(self, predicate: Callable[[str], bool]) -> anyio.Event:
        """Watch the next frames for one whose plain text satisfies ``predicate``."""
        self.painted_at = None
        self._predicate = predicate
        self._event = anyio.Event()
        return self._event

    def disarm(self) -> None:
        """Stop watching."""
        self._predicate = None
        self._event = None

    def on_frame(self, painted_at: float, terminal_text: str) -> None:
        """Called by the app for every frame handed to the driver."""
        self.frames += 1
        predicate, event = self._predicate, self._event
        if predicate is None or event is None:
            return
        if predicate(plain(terminal_text)):
            self.painted_at = painted_at
            self.disarm()
            event.set()


class FrameDriver(Driver):
    """A terminal-less driver: every frame the app writes goes to its ``PaintProbe``.

    Input comes from pilot (which posts events to the app itself), so there is none to read;
    the size is the one ``run_test(size=...)`` asked for.
    """

    def __init__(
        self,
        app: App[Any],
        *,
        debug: bool = False,
        mouse: bool = True,
        size: tuple[int, int] | None = None,
    ) -> None:
        super().__init__(app, debug=debug, mouse=mouse, size=size)
        if not isinstance(app, TimedPickerApp):
            raise TypeError("FrameDriver drives a TimedPickerApp")
        self.probe = app.probe
        """Where the frames go."""
        self.terminal_size = Size(*(size or (80, 24)))
        """The size the app is told the terminal has."""
        self._pending: list[str] = []

    def write(self, data: str) -> None:
        """Keep what the app writes until it flushes (once per frame)."""
        self._pending.append(data)

    def flush(self) -> None:
        """A frame was written whole: offer it to the probe."""
        if self._pending:
            text = "".join(self._pending)
            self._pending.clear()
            self.probe.on_frame(time.perf_counter(), text)

    def start_application_mode(self) -> None:
        """Tell the app the terminal's size, as a terminal driver does when it starts."""
        self.send_message(events.Resize(self.terminal_size, self.terminal_size))

    def disable_input(self) -> None:
        """There is no input to stop reading."""

    def stop_application_mode(self) -> None:
        """There is no terminal to restore."""


class TimedPickerApp(PickerApp):
    """``PickerApp`` whose frames are rendered to terminal text and offered to ``probe``.

    ``run_test`` is Textual's, with ``headless=False`` as its default: a headless app renders
    no frames (the ``FrameDriver`` has no terminal either way).
    """

    CSS_PATH = str(Path(app_module.__file__).with_name("picker.tcss"))  # not relative to bench/

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.probe = PaintProbe()
        self.snapshot_spans: list[tuple[float, float]] = []
        """``(start, end)`` ``perf_counter()`` times of every ``show_snapshot`` call."""

    def get_driver_class(self) -> type[Driver]:
        """Frames go to the probe, not to a terminal."""
        return FrameDriver

    @asynccontextmanager
    async def run_test(
        self,
        *,
        headless: bool = False,
        size: tuple[int, int] | None = (80, 24),
        tooltips: bool = False,
        notifications: bool = False,
        message_hook: Callable[[Message], None] | None = None,
    ) -> AsyncGenerator[Pilot[None], None]:
        """``App.run_test``, rendering frames (to the ``FrameDriver``) unless told otherwise."""
        async with super().run_test(
            headless=headless,
            size=size,
            tooltips=tooltips,
            notifications=notifications,
            message_hook=message_hook,
        ) as pilot:
            yield pilot

    def show_snapshot(self, model: PluginModel) -> None:
        start = time.perf_counter()
        super().show_snapshot(model)
        self.snapshot_spans.append((start, time.perf_counter()))

    def last_snapshot_between(self, start: float, end: float) -> tuple[float, float] | None:
        """The last ``show_snapshot`` span that began after ``start`` and ended by ``end``."""
        for span in reversed(self.snapshot_spans):
            if span[0] >= start and span[1] <= end:
                return span
        return None
