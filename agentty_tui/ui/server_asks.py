"""What servers ask the person at the picker (forms, pages to open), shown one at a time.

Requests come two ways, and both end here, in ``ServerAsks.ask``:

- during a call made from the call dialog: its ``CallHooks`` (``hooks``) carry ``ask`` as the
  elicitation handler, so the dialog names the call's tool;
- outside any call of the picker's (a server asking on its own, on a 2025 handshake
  connection): the bridge's ``ServerElicitation`` (``background``, set on the source while the
  app runs; ``bridge/elicit.py``);
- from the gateway daemon the picker is attached to (``from_daemon``, its ``DaemonAsk``): a
  request no call owns, one during an attached host's call that the host cannot answer (the
  dialog names the host and its project), or one during the picker's own call.

Requests are shown in the order they came, one dialog at a time: one that arrives while
another is shown waits (the shown dialog says how many wait). One left unanswered for
``UNANSWERED_SECONDS`` (counted from its arrival) is declined, its dialog closed and a
notification says so, as is one that finds ``MAX_WAITING`` requests waiting already; one the
server withdraws (it cancelled the request, or its connection ended) goes away the same way.

A page is opened in the browser only after the person pressed Open in its dialog
(``url_dialog``), never before. A call refused with ``-32042`` (URL elicitation required)
shows each page it names the same way (``refused``); the server's
``notifications/elicitation/complete`` for a page opened from here is said in a notification:
for a page of a call, by the call's hooks; for one asked outside any call, by ``completed``
(the bridge's ``ServerElicitationComplete``), which names the page's domain, remembered by the
request's id when it was accepted (at most ``MAX_PAGES_REMEMBERED``).
"""

from __future__ import annotations

import webbrowser
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
from textual.app import App

from agentty_tui.terminal_text import clip, safe_line
from agentty_tui.ui.ask_dialog import AskDialog, Asker
from agentty_tui.ui.form_dialog import FormDialog
from agentty_tui.ui.url_dialog import UrlDialog
from agentty_tui.url_domain import url_parts

if TYPE_CHECKING:  # the SDK: imported at the first call or request, not at the picker's start
    import mcp_types as types
    from mcp.client.session import ClientRequestContext

    from agentty_tui.bridge.call_hooks import CallHooks
    from agentty_tui.gateway.picker.view import AskedBy

__all__ = [
    "MAX_PAGES_REMEMBERED",
    "MAX_WAITING",
    "NAMED_DURING",
    "UNANSWERED_SECONDS",
    "ServerAsk",
    "ServerAsks",
    "during_text",
    "host_text",
]

UNANSWERED_SECONDS = 600.0
"""How long a request may wait for an answer (from its arrival) before it is declined: ten
minutes, time enough to fill a form, short of a server left waiting for good."""

MAX_WAITING = 32
"""Requests that may wait behind the shown one; more are declined at once (a server that asks
in a loop must not pile up dialogs, nor tasks)."""

MAX_PAGES_REMEMBERED = 64
"""Pages accepted outside any call whose domain is kept until the server says each is done (a
server that never says so keeps no memory)."""

NAMED_DURING = 3
"""Hosts a dialog names as those whose calls were in flight (the rest are counted)."""

PROJECT_SHOWN = 200
"""Characters of a host's project a dialog shows (a longer one is cut, saying so)."""


def host_text(host: str | None, project: str) -> str:
    """``host claude (project /home/u/app)``: an attached host as a dialog names it, its name
    and project made safe for one line and bounded."""
    who = f"host {safe_line(clip(host, 40))}" if host else "a host served every host's servers"
    return f"{who} (project {safe_line(clip(project, PROJECT_SHOWN))})"


def during_text(by: AskedBy) -> str:
    """The hosts whose calls were in flight when a request no call owns came, as a dialog says
    them: at most ``NAMED_DURING`` named, then how many more, then the picker's own call."""
    named = [host_text(host, project) for host, project in by.during[:NAMED_DURING]]
    more = by.during_more + max(0, len(by.during) - NAMED_DURING)
    if more:
        named.append(f"{more} more host{'s' if more > 1 else ''}")
    if by.during_others:
        named.append("your own call" if by.during_others == 1 else "your own calls")
    return ", ".join(named)


@dataclass(eq=False)
class ServerAsk:
    """One request waiting for the person, or shown to them."""

    asker: Asker
    """Who asks, during which call."""
    params: types.ElicitRequestParams
    """What the server asks."""
    after_error: bool = False
    """A page named by a ``-32042`` error: nobody waits for the answer."""
    answered: anyio.Event = field(default_factory=anyio.Event)
    """Set once the dialog closed (with an answer, or withdrawn)."""
    answer: types.ElicitResult | None = None
    """The dialog's answer; ``None`` until answered, or when withdrawn."""
    dialog: AskDialog | None = None
    """The dialog while it is shown."""


class ServerAsks:
    """The picker's queue of server requests, each shown in its dialog in turn."""

    def __init__(
        self,
        app: App[Any],
        *,
        timeout: float = UNANSWERED_SECONDS,
        open_url: Callable[[str], bool] = webbrowser.open,
    ) -> None:
        """``app``: where the dialogs are shown; ``timeout``: seconds a request may wait
        unanswered; ``open_url``: how a page the person agreed to is opened."""
        self._app = app
        self.timeout = timeout
        """Seconds a request may wait unanswered before it is declined."""
        self._open_url = open_url
        self._waiting: deque[ServerAsk] = deque()
        # Pages accepted outside any call: (server, id) -> their domain, oldest first.
        self._pages: OrderedDict[tuple[str, str], str] = OrderedDict()
        self.shown: ServerAsk | None = None
        """The request on screen."""

    @property
    def waiting(self) -> int:
        """Requests waiting behind the one shown."""
        return len(self._waiting)

    # --- the ways in -----------------------------------------------------------------

    def hooks(self, server: str, tool: str) -> CallHooks:
        """The hooks of a call of ``tool`` on ``server`` from the picker: what it asks is shown
        here, naming the call."""
        from agentty_tui.bridge.call_hooks import CallHooks

        async def elicitation(
            context: ClientRequestContext, params: types.ElicitRequestParams
        ) -> types.ElicitResult:
            return await self.ask(Asker(server, tool, self.timeout), params)

        async def completed(elicitation_id: str) -> None:
            self._completed(server, tool)

        return CallHooks(elicitation=elicitation, elicitation_complete=completed)

    async def background(
        self, server: str, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        """The bridge's ``ServerElicitation``: a request outside any call of the picker's."""
        return await self.outside_call(Asker(server, None, self.timeout), params)

    async def from_daemon(
        self, by: AskedBy, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        """The source's ``DaemonAsk``: a request the gateway daemon asks of this picker."""
        host_call = None
        if by.by_host:
            host_call = host_text(by.host, by.project or "?")
        during = during_text(by) if by.during_calls else None
        asker = Asker(by.server, by.tool, self.timeout, host_call, during)
        return await self.outside_call(asker, params)

    async def outside_call(
        self, asker: Asker, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        """A request no call of the picker's owns (a server's own, or a host's call through
        the gateway daemon): asked in turn; a page accepted is remembered for ``completed``."""
        import mcp_types as types

        answer = await self.ask(asker, params)
        page = isinstance(params, types.ElicitRequestURLParams) and answer.action == "accept"
        if page and isinstance(params, types.ElicitRequestURLParams) and params.elicitation_id:
            key = (asker.server, params.elicitation_id)
            self._pages[key] = url_parts(params.url).host
            self._pages.move_to_end(key)
            while len(self._pages) > MAX_PAGES_REMEMBERED:
                self._pages.popitem(last=False)
        return answer

    async def completed(self, server: str, elicitation_id: str) -> None:
        """The bridge's ``ServerElicitationComplete``: ``server`` says the page of
        ``elicitation_id``, accepted outside any call, is done; said in a notification."""
        domain = self._pages.pop((server, elicitation_id), None)
        where = f" at {safe_line(domain)}" if domain else ""
        self._notify(f"Server {safe_line(server)!r} says the page you opened{where} is done.")

    def refused(self, server: str, tool: str, error: BaseException) -> None:
        """A call of ``tool`` failed with ``error``: when it is a ``-32042`` naming pages,
        show each (the session sends their completion to the call's hooks)."""
        from agentty_tui.bridge.call_hooks import url_elicitations

        cause = error.__cause__ if error.__cause__ is not None else error
        for page in url_elicitations(cause) or ():
            asker = Asker(server, tool, self.timeout)
            self._app.run_worker(
                self.ask(asker, page, after_error=True), group="server-asks", exit_on_error=False
            )

    # --- the queue -------------------------------------------------------------------

    async def ask(
        self, asker: Asker, params: types.ElicitRequestParams, *, after_error: bool = False
    ) -> types.ElicitResult:
        """Show the request in its turn and return the person's answer; a decline when it was
        not answered in ``timeout`` seconds, or when the app is not running."""
        import mcp_types as types

        if not self._app.is_running:
            return types.ElicitResult(action="decline")
        if len(self._waiting) >= MAX_WAITING:
            self._notify(
                f"Server {safe_line(asker.server)!r} asked while {MAX_WAITING} requests wait: "
                "declined.",
                warning=True,
            )
            return types.ElicitResult(action="decline")
        request = ServerAsk(asker, params, after_error=after_error)
        self._waiting.append(request)
        self._show_next()
        try:
            with anyio.move_on_after(self.timeout):
                await request.answered.wait()
        finally:
            self._withdraw(request)
        answer = request.answer
        if answer is None:
            self._notify(
                f"A request of server {safe_line(asker.server)!r} went unanswered: declined.",
                warning=True,
            )
            return types.ElicitResult(action="decline")
        if answer.action == "accept" and isinstance(params, types.ElicitRequestURLParams):
            await self._open(params.url)
        return answer

    # The requests come from the servers' tasks (the SDK's, which know no app: Textual's
    # widgets need the app's context), so what changes the screen runs in the app's own task
    # (``call_later``); the queue's bookkeeping is done at once.

    def _show_next(self) -> None:
        """Show the next request when none is shown; else update the shown one's count."""
        if self.shown is None and self._waiting:
            self.shown = self._waiting.popleft()
            self._app.call_later(self._push, self.shown)
        elif self.shown is not None:
            self._app.call_later(self._count_waiting, self.shown)

    def _push(self, request: ServerAsk) -> None:
        import mcp_types as types

        if request.answered.is_set():  # withdrawn before its dialog came up
            self._closed(request)
            return
        params, waiting = request.params, len(self._waiting)
        if isinstance(params, types.ElicitRequestURLParams):
            request.dialog = UrlDialog(
                request.asker,
                params.message,
                params.url,
                after_error=request.after_error,
                waiting=waiting,
            )
        else:
            request.dialog = FormDialog(request.asker, params, waiting=waiting)
        self._app.push_screen(request.dialog, self._answered(request))

    def _count_waiting(self, request: ServerAsk) -> None:
        if request.dialog is not None:
            request.dialog.set_waiting(len(self._waiting))

    def _answered(self, request: ServerAsk) -> Callable[[types.ElicitResult | None], None]:
        def answered(answer: types.ElicitResult | None) -> None:
            if not request.answered.is_set():
                request.answer = answer
                request.answered.set()
            self._closed(request)

        return answered

    def _closed(self, request: ServerAsk) -> None:
        """``request``'s dialog is gone (or going): the next one's turn."""
        request.dialog = None
        if self.shown is request:
            self.shown = None
            self._show_next()

    def _withdraw(self, request: ServerAsk) -> None:
        """The request is over (answered, timed out or cancelled): off the queue and off the
        screen."""
        request.answered.set()
        if request in self._waiting:
            self._waiting.remove(request)
            self._show_next()
            return
        if request.dialog is not None:
            self._app.call_later(self._take_down, request.dialog)
        self._closed(request)

    def _take_down(self, dialog: AskDialog) -> None:
        if self._app.screen is dialog:
            dialog.dismiss(None)
        else:  # covered by another screen (or already gone): it closes once on top again
            dialog.withdrawn = True

    def _notify(self, message: str, *, warning: bool = False) -> None:
        self._app.call_later(
            self._app.notify,
            message,
            severity="warning" if warning else "information",
            markup=False,
        )

    # --- pages ----------------------------------------------------------------------

    async def _open(self, url: str) -> None:
        """Hand ``url`` to the browser (the person agreed); say so when none opened."""
        try:
            opened = await anyio.to_thread.run_sync(self._open_url, url)
        except Exception:  # no browser is no error here: the person is told to open it
            opened = False
        if not opened:
            self._notify(
                f"No browser could be opened: open the page yourself: {safe_line(url)}",
                warning=True,
            )

    def _completed(self, server: str, tool: str) -> None:
        self._notify(
            f"Server {safe_line(server)!r} says the page you opened is done: call "
            f"{safe_line(tool)!r} again if it failed."
        )
