"""The login dialog: the authorization URL in full, progress, a paste field, escape cancels.

It is the picker's ``LoginUI``: the bridge's login calls ``show_url`` and ``tell`` and waits on
``pasted_redirect``, while the dialog stays on screen until the login ends or the user leaves.
"""

from __future__ import annotations

from typing import ClassVar

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Input, Static

from agentty_tui.ui.modal import Dialog
from agentty_tui.ui.text import PlainText

__all__ = ["LoginScreen"]


class LoginScreen(Dialog[None]):
    """Shows one login in progress; dismissing it (escape) cancels the login."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]
    AUTO_FOCUS = "#login-paste"

    def __init__(self, name: str) -> None:
        super().__init__()
        self.server_name = name
        self.url: str | None = None
        """The authorization URL, once the login has one."""
        self._url_text = "Finding the authorization server…"
        self._progress = ""
        send, receive = anyio.create_memory_object_stream[str](4)
        self._paste_in: MemoryObjectSendStream[str] = send
        self._paste_out: MemoryObjectReceiveStream[str] = receive

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog", id="login"):
            yield PlainText(f"Log in to {self.server_name}", one_line=True, classes="dialog-title")
            # The URL and the progress come from the server's metadata: shown as plain text.
            yield PlainText(self._url_text, id="login-url")
            yield PlainText(self._progress, id="login-progress")
            yield Input(
                placeholder="no browser? paste the address it was sent to here", id="login-paste"
            )
            yield Static("escape cancels the login", classes="dialog-hint")

    def on_mount(self) -> None:
        """Show what the login said while the dialog was being built."""
        self._show()

    # --- LoginUI ----------------------------------------------------------------------

    def show_url(self, url: str) -> None:
        """Show the whole URL (it is also opened in the browser), so it can be copied."""
        self.url = url
        self._url_text = f"Opening the browser. If it does not open, visit:\n\n{url}"
        self._progress = "Waiting for the browser…"
        self._show()

    def tell(self, message: str) -> None:
        """One line of progress or a problem."""
        self._progress = message
        self._show()

    def _show(self) -> None:
        # The login may call before the dialog is composed: compose then shows the texts.
        for selector, text in (("#login-url", self._url_text), ("#login-progress", self._progress)):
            for widget in self.query(selector).results(PlainText):
                widget.update(text)

    async def pasted_redirect(self) -> str | None:
        """The next address pasted into the field."""
        try:
            return await self._paste_out.receive()
        except anyio.EndOfStream:
            return None

    # --- keys -------------------------------------------------------------------------

    @on(Input.Submitted, "#login-paste")
    def _pasted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if text:
            self._paste_in.send_nowait(text)
            event.input.value = ""

    def action_cancel(self) -> None:
        """Leave the dialog; the picker cancels the login."""
        self.dismiss(None)
