"""The browser's part of a login: showing and opening the URL, awaiting the redirect.

``BrowserTrip`` is one trip (the SDK provider's redirect and callback handlers) for a login;
``BrowserStepUp`` makes one for a step-up during an ordinary connection, on the redirect
port the client registered.
"""

from __future__ import annotations

import webbrowser
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Protocol
from urllib.parse import parse_qs, urlsplit

import anyio
import anyio.abc
import anyio.to_thread
from mcp.shared.auth import AuthorizationCodeResult
from pydantic import AnyUrl

from agentty_tui.bridge.auth.callback import LoginError, LoopbackCallback
from agentty_tui.bridge.auth.provider import AgenttyOAuthProvider, AuthorizationGrant
from agentty_tui.model import HttpSpec

__all__ = ["BrowserStepUp", "BrowserTrip", "LoginUI"]


class LoginUI(Protocol):
    """How a host shows a login to its user: the URL, progress, and maybe a pasted redirect."""

    def show_url(self, url: str) -> None:
        """Show the authorization URL in full, so it can be copied (it is also opened)."""

    def tell(self, message: str) -> None:
        """Show a line of progress or a problem (e.g. a pasted URL that was refused)."""

    async def pasted_redirect(self) -> str | None:
        """The URL the browser was redirected to, pasted by the user; ``None`` if the host
        offers no way to paste (the loopback listener is then the only way back)."""


def _open_browser(url: str) -> bool:
    try:
        return webbrowser.open(url)
    except Exception:  # no browser is not an error: the URL is shown for copying
        return False


class BrowserTrip:
    """One trip through the browser: the URL shown and opened, the redirect awaited.

    Its ``redirect`` and ``receive`` are the SDK provider's redirect and callback handlers;
    enter ``BrowserTrip.open`` around the flow that uses them (the browser runs in its task
    group, so it never blocks the event loop and is stopped with the flow).
    """

    def __init__(self, ui: LoginUI, callback: LoopbackCallback, wait: float) -> None:
        self.ui = ui
        self.callback = callback
        self.wait = wait
        self.failure: list[LoginError] = []
        """The listener's own error (denied, timed out): the flow may only see a cancellation."""
        self._group: anyio.abc.TaskGroup | None = None

    @classmethod
    @asynccontextmanager
    async def open(
        cls, ui: LoginUI, callback: LoopbackCallback, wait: float
    ) -> AsyncIterator[BrowserTrip]:
        """A trip whose browser is stopped when the block ends."""
        trip = cls(ui, callback, wait)
        async with anyio.create_task_group() as group:
            trip._group = group
            try:
                yield trip
            finally:
                group.cancel_scope.cancel()

    async def redirect(self, url: str) -> None:
        """Show the authorization URL and open it in the browser."""
        assert self._group is not None, "the trip is not open"
        state = parse_qs(urlsplit(url).query).get("state", [None])[0]
        self.callback.expected_state = state
        self.ui.show_url(url)
        self._group.start_soon(self._launch, url)

    async def _launch(self, url: str) -> None:
        # webbrowser waits for a $BROWSER command to exit, and that command may wait for
        # our listener: it must not block the event loop.
        opened = await anyio.to_thread.run_sync(_open_browser, url, abandon_on_cancel=True)
        if not opened:
            self.ui.tell("could not open a browser: open the URL above yourself")

    async def _pasted(self) -> None:
        while (text := await self.ui.pasted_redirect()) is not None:
            why = self.callback.offer(text.strip())
            if why is None:
                return
            self.ui.tell(why)

    async def receive(self) -> AuthorizationCodeResult:
        """The browser's redirect (or a pasted one); ``LoginError`` when none comes."""
        async with anyio.create_task_group() as group:
            group.start_soon(self._pasted)
            try:
                result = await self.callback.wait(self.wait)
            except LoginError as exc:
                self.failure.append(exc)
                raise
            finally:
                group.cancel_scope.cancel()
        return result


class BrowserStepUp:
    """The ``StepUp`` of a command-line connection: a browser trip on the registered port."""

    def __init__(self, spec: HttpSpec, ui: LoginUI, timeout: float) -> None:
        self.spec = spec
        self.ui = ui
        self.wait = timeout

    async def authorize(
        self, provider: AgenttyOAuthProvider, grant: AuthorizationGrant
    ) -> tuple[str, str]:
        """Listen where the registered redirect URI points, then run ``grant`` via a browser."""
        callback = await _step_up_callback(self.spec, provider)
        outcome: tuple[str, str] | None = None
        error: Exception | None = None
        try:
            provider.context.client_metadata.redirect_uris = [AnyUrl(callback.redirect_uri)]
            self.ui.tell("the server asks for more scope: log in again in the browser")
            # The error is raised after the trip's task group is left, so it arrives as itself.
            async with BrowserTrip.open(self.ui, callback, self.wait) as trip:
                provider.context.redirect_handler = trip.redirect
                provider.context.callback_handler = trip.receive
                try:
                    outcome = await grant()
                except Exception as exc:
                    error = trip.failure[0] if trip.failure else exc
        finally:
            await callback.__aexit__(None, None, None)
        if error is not None:
            raise error
        assert outcome is not None
        return outcome


async def _step_up_callback(spec: HttpSpec, provider: AgenttyOAuthProvider) -> LoopbackCallback:
    """The listener for a step-up: the redirect URI must be the one the client registered."""
    port = spec.oauth.callback_port if spec.oauth is not None else None
    client = provider.context.client_info
    for uri in (client.redirect_uris or []) if client is not None and port is None else []:
        if uri.host == "127.0.0.1" and uri.port:
            port = uri.port
            break
    try:
        return await LoopbackCallback(port).__aenter__()
    except OSError as exc:
        raise LoginError(f"cannot listen on 127.0.0.1:{port} for the step-up: {exc}") from None
