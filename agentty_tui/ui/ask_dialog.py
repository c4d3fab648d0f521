"""What the picker's dialogs for a server's request (a form, a page to open) have in common.

Each says which server asks and when (during which call of the user's, or outside any), shows
the server's message, how many other requests wait behind it and how long it may stay
unanswered; it answers with an ``ElicitResult`` (accept, decline and cancel are distinct) or
``None`` when it was withdrawn (the request was cancelled, or timed out). Everything the server
sent is shown through ``PlainText``: no markup, every control visible.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal

from textual.app import ComposeResult
from textual.binding import Binding, BindingType

from agentty_tui.ui.dialogs import Dialog
from agentty_tui.ui.text import PlainText

if TYPE_CHECKING:  # the SDK's types: imported when a server asks, not at the picker's start
    import mcp_types as types  # noqa: F401  (named in the base class's quoted parameter)

__all__ = ["AskDialog", "Asker", "waiting_text"]

Refusal = Literal["decline", "cancel"]
"""An answer that carries no content."""


@dataclass(frozen=True, slots=True)
class Asker:
    """Who asks, and in answer to what."""

    server: str
    """The server's name."""
    tool: str | None = None
    """The tool of the user's call that the request came during; ``None``: outside any call
    of the user's (a background request)."""
    timeout: float | None = None
    """Seconds after which an unanswered request is declined (``None``: never)."""
    host_call: str | None = None
    """The host attached to the gateway daemon whose call of ``tool`` asks, with its project
    (``host claude (project /home/u/app)``); ``None``: a call of the user's, or none."""
    during: str | None = None
    """Outside any one call, but during calls of several hosts attached to the gateway daemon,
    none of them known to be the one it is for: those hosts, already bounded and made safe
    (``host claude (project /a), host cursor (project /b)``); ``None``: not so."""

    def who(self) -> str:
        """``Server 'x' asks, during your call of 'y'`` (or ``outside any call of yours``, or
        ``during the call of 'y' by host claude (project /p)``, or ``during calls of several
        hosts at once, not saying whose: host claude (project /a), ...``)."""
        if self.during is not None:
            when = f"during calls of several hosts at once, not saying whose: {self.during}"
        elif self.host_call is not None:
            when = f"during the call of {self.tool!r} by {self.host_call}"
        elif self.tool is not None:
            when = f"during your call of {self.tool!r}"
        else:
            when = "outside any call of yours"
        return f"Server {self.server!r} asks, {when}:"

    def deadline(self) -> str:
        """How long it may wait, in words (empty without a timeout)."""
        if self.timeout is None:
            return ""
        minutes = self.timeout / 60
        span = f"{minutes:g} min" if minutes >= 1 else f"{self.timeout:g} s"
        return f"Unanswered for {span}, it is declined."


def waiting_text(count: int) -> str:
    """``2 more requests wait after this one`` (empty for none)."""
    if count <= 0:
        return ""
    if count == 1:
        return "1 more request waits after this one."
    return f"{count} more requests wait after this one."


class AskDialog(Dialog["types.ElicitResult | None"]):
    """A modal that answers one server request; subclasses compose the body between
    ``compose_header`` and ``compose_footer``."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    AskDialog .ask-who {
        margin-bottom: 0;
    }
    /* The server's message, set apart by a bar: its words, not ours. */
    AskDialog .ask-message {
        border-left: outer $warning;
        padding-left: 1;
        margin-bottom: 1;
    }
    AskDialog .ask-label {
        text-style: bold;
        margin-top: 1;
    }
    AskDialog .ask-about {
        color: $text-muted;
    }
    AskDialog Select {
        width: 1fr;
    }
    AskDialog SelectionList {
        height: auto;
        max-height: 10;
    }
    /* A short terminal: a choice is one line, as the text fields are (picker.tcss). */
    AskDialog.-short Select > SelectCurrent {
        border: none;
        padding: 0 1;
        background: $boost;
    }
    AskDialog.-short .ask-label {
        margin-top: 0;
    }
    """

    def __init__(self, asker: Asker, message: str, *, waiting: int = 0) -> None:
        super().__init__()
        self.asker = asker
        """Who asks."""
        self.message = message
        """The server's message (untrusted: shown as plain text)."""
        self._waiting = waiting
        self.withdrawn = False
        """Set when the request went away while another screen covered this one: it closes
        as soon as it is on top again."""

    def compose_header(self, title: str) -> ComposeResult:
        """The title (ours, naming the server), who asks and the server's message."""
        yield PlainText(title, one_line=True, classes="dialog-title")
        yield PlainText(self.asker.who(), classes="ask-who")
        yield PlainText(self.message or "(no message)", classes="ask-message")

    def compose_footer(self, keys: str) -> ComposeResult:
        """The key hint, the deadline and the count of requests waiting."""
        yield PlainText(keys, classes="dialog-hint")
        yield PlainText(self.asker.deadline(), classes="dialog-hint ask-deadline")
        yield PlainText(
            waiting_text(self._waiting), classes="dialog-hint ask-waiting", id="ask-waiting"
        )

    def set_waiting(self, count: int) -> None:
        """Say how many requests now wait after this one."""
        self._waiting = count
        for shown in self.query("#ask-waiting").results(PlainText):  # none before compose
            shown.update(waiting_text(count))

    def on_mount(self) -> None:
        """Start at the top: who asks and the message are seen first, whatever field has the
        focus."""
        self.call_after_refresh(self._to_top)

    def _to_top(self) -> None:
        for dialog in self.query(".dialog"):
            dialog.scroll_home(animate=False)

    def on_screen_resume(self) -> None:
        """Back on top: close at once if the request went away meanwhile."""
        if self.withdrawn:
            self.dismiss(None)

    def answer(self, action: Refusal) -> None:
        """Dismiss with a decline or a cancel (an accept carries content: the subclass's)."""
        import mcp_types as types

        self.dismiss(types.ElicitResult(action=action))

    def action_cancel(self) -> None:
        """escape: cancel (the person dismissed it without choosing)."""
        self.answer("cancel")
