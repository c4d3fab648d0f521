"""The picker benchmarks' probe: when a frame showing a given change was painted.

``TimedPickerApp`` is the real ``PickerApp`` with ``App._display`` (where Textual hands each
composed frame to the terminal driver) wrapped: every frame is encoded to terminal text exactly
as it would be written (``CompositorUpdate.render_segments``: the last step before the write,
which a headless app skips) and offered to a ``PaintProbe``. A benchmark arms the probe with a
predicate on the frame's plain text (and/or the app's state), triggers a change, and waits for
the probe's event; ``painted_at`` is the ``perf_counter()`` time of the first frame that matched.

So "on screen" means: composed, rendered to terminal text and handed to the driver; only the
write to a real terminal is left out.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from rich.console import RenderableType
from textual._compositor import CompositorUpdate
from textual.screen import Screen

from agentty_tui.model import PluginModel
from agentty_tui.ui import app as app_module
from agentty_tui.ui.app import PickerApp

__all__ = ["PaintProbe", "TimedPickerApp", "plain"]

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


class TimedPickerApp(PickerApp):
    """``PickerApp`` whose frames are rendered to terminal text and offered to ``probe``."""

    CSS_PATH = str(Path(app_module.__file__).with_name("picker.tcss"))  # not relative to bench/

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.probe = PaintProbe()
        self.snapshot_spans: list[tuple[float, float]] = []
        """``(start, end)`` ``perf_counter()`` times of every ``show_snapshot`` call."""

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

    def _display(self, screen: Screen[Any], renderable: RenderableType | None) -> None:
        super()._display(screen, renderable)  # headless: returns without writing
        if renderable is None or self._batch_count:
            return
        if isinstance(renderable, CompositorUpdate):
            text = renderable.render_segments(self.console)
        else:  # not used by full-screen apps; rendered the way App._display would
            text = self.console._render_buffer(self.console.render(renderable))
        self.probe.on_frame(time.perf_counter(), text)
