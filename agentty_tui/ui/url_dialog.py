"""The picker's dialog for a page a server asks the user to open (elicitation, URL mode).

It shows the whole URL with its domain set apart (reversed), the domain again on a line of its
own, and every warning of ``url_domain.url_warnings`` (punycode, mixed scripts, a user part
before the domain, no ``https``). Nothing is fetched: only Open hands the URL to the browser,
and only an ``http`` or ``https`` page can be opened (the button is off for anything else).

The same dialog shows a page named by a server's ``-32042`` error (URL elicitation required:
the call failed until the page is visited); then nobody waits for an answer, and the buttons
are Open and Not now.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button

from agentty_tui.terminal_text import clip, safe_line
from agentty_tui.ui.ask_dialog import AskDialog, Asker
from agentty_tui.ui.text import BLOCK_LIMIT, PlainText
from agentty_tui.url_domain import openable, url_parts, url_warnings

if TYPE_CHECKING:  # the SDK's types: imported when a server asks, not at the picker's start
    pass

__all__ = ["UrlDialog", "shown_url"]

_KEYS = "o or Open hands it to your browser · escape cancels · nothing is fetched before"


def shown_url(url: str) -> Text:
    """``url`` as one plain line, its domain reversed (every control made visible)."""
    parts = url_parts(clip(url, BLOCK_LIMIT))
    shown = Text(safe_line(parts.before))
    shown.append(safe_line(parts.host), style="bold reverse")
    shown.append(safe_line(parts.after))
    return shown


class UrlDialog(AskDialog):
    """A page to open: Open (after a look at its domain), Decline, or cancel."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "open", "Open"),
        Binding("escape", "cancel", "Cancel"),
    ]
    AUTO_FOCUS = "#ask-url"

    def __init__(
        self, asker: Asker, message: str, url: str, *, after_error: bool = False, waiting: int = 0
    ) -> None:
        """``after_error``: the page of a ``-32042`` error (no request waits for an answer)."""
        super().__init__(asker, message, waiting=waiting)
        self.url = url
        """The page (the server's: shown, never fetched)."""
        self.after_error = after_error
        """Whether a failed call named the page (rather than a request that waits)."""

    def compose(self) -> ComposeResult:
        host = url_parts(self.url).host
        title = (
            f"{self.asker.server} needs you to open a page first"
            if self.after_error
            else f"{self.asker.server} asks you to open a page"
        )
        with VerticalScroll(classes="dialog", id="ask-url"):
            yield from self.compose_header(title)
            yield PlainText("The page:", classes="dialog-heading")
            url = PlainText("", id="ask-url-text")
            url.update(shown_url(self.url))
            yield url
            yield PlainText(f"Its domain: {host or '(none)'}", one_line=True, id="ask-url-domain")
            for warning in url_warnings(self.url):
                yield PlainText(f"⚠ {warning}", classes="form-error ask-warning")
            if self.after_error:
                yield PlainText("Call the tool again once the page is done.", classes="ask-about")
            with Horizontal(classes="dialog-buttons"):
                can_open = openable(self.url)
                yield Button(
                    "Open", variant="primary", id="ask-open", compact=True, disabled=not can_open
                )
                if self.after_error:
                    yield Button("Not now", id="ask-cancel", compact=True)
                else:
                    yield Button("Decline", id="ask-decline", compact=True)
                    yield Button("Cancel", id="ask-cancel", compact=True)
            yield from self.compose_footer(_KEYS)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Open, Decline, Cancel (or Not now)."""
        event.stop()
        if event.button.id == "ask-open":
            self.action_open()
        else:
            self.answer("decline" if event.button.id == "ask-decline" else "cancel")

    def action_open(self) -> None:
        """o: consent: the page may be opened (the caller opens it once this is closed)."""
        if openable(self.url):
            import mcp_types as types

            self.dismiss(types.ElicitResult(action="accept"))
