"""One call of a tool from the picker, kept while it runs and after: the app keeps the last one.

The call runs in a worker of the app, not of the dialog, so that escape closes the dialog while
the call goes on; the record is what a reopened dialog (``C``) shows.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from agentty_tui.errors import AgenttyError
from agentty_tui.model import ToolState
from agentty_tui.ui.call_text import format_result
from agentty_tui.ui.source import PluginSource

__all__ = ["CallRecord"]


@dataclass
class CallRecord:
    """One call of a tool from the picker: what was sent, and what came back once it did."""

    server: str
    """The server's name."""
    tool: ToolState
    """The tool called."""
    arguments: str
    """The arguments as the user typed them (what the editor shows when reopened)."""
    started: float | None = None
    """``time.monotonic()`` when the call was sent; ``None`` before the first call."""
    finished: float | None = None
    """``time.monotonic()`` when the answer came; ``None`` while it runs."""
    result: str | None = None
    """The result or the error, as text (from the server: shown through ``PlainText``)."""
    error: bool = False
    """Whether ``result`` is an error."""
    viewers: int = 0
    """How many dialogs show this record now (none: a finished call says so in a toast)."""

    @property
    def running(self) -> bool:
        """The call was sent and has not answered."""
        return self.started is not None and self.finished is None

    def progress(self, now: float) -> str:
        """``calling… 3 s`` while it runs (the seconds once it has run one)."""
        if self.started is None:
            return ""
        seconds = int(now - self.started)
        return "calling…" + (f" {seconds} s" if seconds >= 1 else "")

    async def run(self, source: PluginSource, arguments: dict[str, Any]) -> None:
        """Call the tool through ``source`` and keep what came back; never raises."""
        self.started, self.finished, self.result, self.error = time.monotonic(), None, None, False
        try:
            outcome = await source.call_tool(self.server, self.tool.bare, arguments)
        except AgenttyError as exc:
            self._done(str(exc), error=True)
            return
        except Exception as exc:  # a misbehaving server must not take the app down
            self._done(f"{type(exc).__name__}: {exc}", error=True)
            return
        if outcome.is_error:
            self._done("The tool reported an error:\n" + format_result(outcome), error=True)
        else:
            self._done(format_result(outcome), error=False)

    def _done(self, text: str, *, error: bool) -> None:
        self.result, self.error, self.finished = text, error, time.monotonic()
