"""The picker's word on an outside edit: what the live reload it caused changed.

An edit made elsewhere (an editor, another host, ``git pull``) reloads by itself
(``bridge.live_reload``); the rows show the result, and a notification says what changed, as
``r`` does. A reload that changed nothing says nothing: Claude Code rewrites ``~/.claude.json``
after every prompt.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.app import App

from agentty_tui.bridge.live_reload import LiveReload
from agentty_tui.bridge.reload_report import ReloadReport

__all__ = ["OutsideEdits"]


class OutsideEdits(App[None]):
    """Notifies what each reload an outside edit caused changed (for the picker app)."""

    _stop_hearing: Callable[[], None] | None = None

    def hear_outside_edits(self, source: object) -> None:
        """Listen to ``source``'s live reload, if it has one (a bridge does)."""
        live = getattr(source, "live", None)
        if isinstance(live, LiveReload):
            self._stop_hearing = live.add_listener(self.outside_reload)

    def stop_hearing_outside_edits(self) -> None:
        """Stop listening (the app is closing)."""
        if self._stop_hearing is not None:
            self._stop_hearing()
            self._stop_hearing = None

    def outside_reload(self, report: ReloadReport) -> None:
        """Say what an outside edit's reload did: its summary, or why the file was not read."""
        if not report.reloaded:
            self.notify(
                f"Outside edit: {report.summary}", severity="error", timeout=8, markup=False
            )
        elif report.changed:
            self.notify(f"Outside edit: {report.summary}", timeout=4, markup=False)
