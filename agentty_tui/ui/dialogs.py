"""The picker's small dialogs, each a modal ``Dialog``: confirm, help, details, login, log.

Every dialog (these, and the server form, the call dialog and the import dialog of their own
modules) is a ``Dialog``: a modal screen that knows how small the terminal is. Each
composes one ``VerticalScroll`` of class ``dialog``: as tall as its content, at most the
screen, and scrolled when the content is taller, so nothing is out of reach at 60×20. The
screen carries ``-narrow`` / ``-short`` classes below a width of 72 or a height of 30 columns
and rows, and ``picker.tcss`` trims borders, padding and input heights under them.

Text a server or the config supplied is shown only through ``PlainText`` (never markup, every
control visible); a schema is written by ``safe_json``. The login dialog is the picker's
``LoginUI``: the bridge's login calls ``show_url`` and ``tell`` and waits on
``pasted_redirect``, while the dialog stays on screen until the login ends or the user leaves.

The log viewer (``l`` on a server row) shows the end of one server's log, followed as it
grows. The log holds the server's stderr and our notes about it, each line with its time
(``bridge/logs.py``). The viewer reads the file's end when it opens, then polls it for what was
appended: a log is a plain file, and no event says it grew. A rotated log (renamed to
``.log.1`` at its cap) is noticed by its inode or its size, and read afresh from its start.
Everything in a log came from a server, so it is shown as ``PlainText``: no markup, every
control visible. Only so much is kept on screen: the last ``SHOWN_LINES`` lines, each cut at
``LINE_CHARS`` characters (a server may write a megabyte without a newline).
"""

from __future__ import annotations

import os
from collections import deque
from datetime import UTC, datetime
from pathlib import Path
from typing import ClassVar, TypeVar

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from agentty_tui.catalog import WireCatalog
from agentty_tui.errors import UnknownToolError
from agentty_tui.frozen import thaw
from agentty_tui.model import ServerState, ToolState
from agentty_tui.secrets import mask_url, mask_value, masked_command_line
from agentty_tui.terminal_text import safe_json, safe_line
from agentty_tui.ui.pin_text import pin_lines
from agentty_tui.ui.row_source import source_facts
from agentty_tui.ui.text import PlainText
from agentty_tui.ui.tool_marks import TASK_REASON, hint_lines

__all__ = [
    "DIALOG_KEYS",
    "KEYS",
    "LINE_CHARS",
    "POLL_SECONDS",
    "SHOWN_LINES",
    "TAIL_BYTES",
    "WORKSPACE_KEYS",
    "ConfirmScreen",
    "Dialog",
    "HelpScreen",
    "LogTail",
    "LogViewScreen",
    "LoginScreen",
    "ServerDetailsScreen",
    "ToolDetailsScreen",
    "wire_status",
]

ResultT = TypeVar("ResultT")


class Dialog(ModalScreen[ResultT]):
    """A modal screen with size classes for ``picker.tcss``: ``-narrow``/``-wide``,
    ``-short``/``-tall``."""

    AUTO_FOCUS = ".dialog"
    """The dialog itself, so the arrow keys scroll it; a form names its first field."""
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (72, "-wide")]  # noqa: RUF012 (Textual's own type)
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]  # noqa: RUF012


KEYS: tuple[tuple[str, str], ...] = (
    ("↑ ↓  j k", "move"),
    ("home end  pgup pgdn", "jump"),
    ("space", "tool on / off; on a server row, fold / unfold (a disabled server: enable it)"),
    ("e / x", "turn all tools of the server on / off"),
    ("z", "fold every server; when all are folded, unfold them all"),
    ("a", "add a server"),
    ("i", "import another host's config file (Claude, Cursor, Gemini, VS Code, Codex)"),
    ("E", "edit the server: command, args, env, folder, or URL and headers"),
    ("d", "remove the server (asks first)"),
    ("r", "reload the config (restarts what changed, retries what failed)"),
    ("R", "restart the server under the cursor"),
    ("T", "trust a config file others can change, for this run (asks first)"),
    ("L", "log in to the URL server under the cursor (OAuth; escape cancels)"),
    ("l", "the server's log (stderr and our notes, timed), followed live"),
    ("/", "filter rows by name or title; escape clears"),
    ("/ is:…", "by state: is:on is:off is:trimmed is:failed is:disabled is:needs-login"),
    ("enter", "details of the tool or the server under the cursor"),
    ("s", "sort: config order, or by tokens (most expensive first)"),
    ("p", "pin the tool (trimmed last) or, on a server row, all its tools; again unpins"),
    ("c", "call the tool (its input schema beside the arguments)"),
    ("C", "the last call again: its result, or how long it has run"),
    ("click", "a row: its details; a tool's [x]: on / off; a server's ▾ ▸: fold"),
    ("?", "this help"),
    ("q", "quit (stops every server)"),
)
"""Every key of the picker, for the help screen."""

DIALOG_KEYS: tuple[tuple[str, str], ...] = (
    ("tab  shift+tab", "next / previous field or button"),
    (
        "ctrl+s",
        "a server's form: accept (send what you filled in; a field in error says why);"
        " the call dialog: call",
    ),
    ("Decline", "a server's form or page: refuse (the server hears a decline)"),
    (
        "escape",
        "a server's form or page: cancel (the server hears a cancel); a running call: cancel"
        " it (the server hears notifications/cancelled); else close",
    ),
    ("o", "a server's page: open it in the browser, after a look at its domain"),
    ("ctrl+b", "a running call: leave it running (C shows it again)"),
    (
        "(waiting)",
        "a server that asks while none of your calls waits is shown after what is open; one"
        " nobody answers in 10 minutes is declined",
    ),
)
"""The keys of the dialogs: a server's form or page, the call dialog (after ``KEYS``)."""

WORKSPACE_KEYS: tuple[tuple[str, str], ...] = (
    (
        "T",
        "on a 'not trusted' project server: trust it, remembered while its entry stays the"
        " same (asks first, showing what it runs)",
    ),
    (
        "d / x",
        "on a shadowed entry (dim, 'shadowed by …'): remove that entry from its own"
        " file (asks first); the entry that wins stays",
    ),
    ("a", "add a server: choose the file it goes to (default: your agentty user file)"),
    (
        "h",
        "look through each host's lens in turn (every host, then claude, codex, …): the rows,"
        " counts and budget are what that host's model gets, and a switch is its alone",
    ),
    (
        "/ src:…",
        "by file: src:claude src:local src:codex.user keep those rows, -src:… hides"
        " them (a host, a scope, or host.scope)",
    ),
    ("/ is:…", "is:shadowed is:untrusted"),
    ("enter", "a server's details name its file, the other files that hold it, and who wins"),
)
"""What the keys do in a workspace (every host's files of a project), shown after ``KEYS``."""


class ConfirmScreen(Dialog[bool]):
    """Ask a yes/no question; dismisses with True for yes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]
    AUTO_FOCUS = "#confirm-no"
    """Start on Cancel: enter alone never removes anything."""

    def __init__(self, question: str, yes: str = "Yes") -> None:
        super().__init__()
        self._question = question
        self._yes = yes

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog", id="confirm"):
            yield PlainText(self._question, classes="dialog-text")
            with Horizontal(classes="dialog-buttons"):
                yield Button(self._yes, variant="error", id="confirm-yes", compact=True)
                yield Button("Cancel", id="confirm-no", compact=True)
            yield Static("y confirms · n or escape cancels", classes="dialog-hint")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Yes or Cancel."""
        event.stop()
        self.dismiss(event.button.id == "confirm-yes")

    def action_answer(self, yes: bool) -> None:
        """Answer by key."""
        self.dismiss(yes)


class HelpScreen(Dialog[None]):
    """Every key and what it does; in a workspace, what they do there too."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark,enter", "close", "Close"),
    ]

    def __init__(self, *, workspace: bool = False) -> None:
        super().__init__()
        self._workspace = workspace

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog", id="help"):
            yield Static("Keys", classes="dialog-title")
            # Two columns: a long text wraps under its own column, not under the keys.
            with Grid(id="help-keys"):
                for key, what in KEYS:
                    yield Static(key, markup=False, classes="help-key")
                    yield Static(what, markup=False, classes="help-what")
            yield Static("In a dialog", classes="dialog-heading")
            with Grid(id="help-dialog-keys", classes="help-keys"):
                for key, what in DIALOG_KEYS:
                    yield Static(key, markup=False, classes="help-key")
                    yield Static(what, markup=False, classes="help-what")
            if self._workspace:
                yield Static("In a workspace", classes="dialog-heading")
                with Grid(id="help-workspace-keys", classes="help-keys"):
                    for key, what in WORKSPACE_KEYS:
                        yield Static(key, markup=False, classes="help-key")
                        yield Static(what, markup=False, classes="help-what")
            yield Static("escape closes · ↑ ↓ scroll", classes="dialog-hint")

    def action_close(self) -> None:
        """Close the help."""
        self.dismiss(None)


def _auth_text(server: ServerState) -> str:
    """Whether the server's OAuth login is in place, its scopes and expiry (never a token)."""
    auth = server.auth
    if auth is None or not auth.logged_in:
        return "not logged in (L logs in)"
    scopes = safe_line(" ".join(auth.scopes)) or "no scopes named"
    if auth.expires_at is None:
        return f"logged in · {scopes}"
    when = datetime.fromtimestamp(auth.expires_at, UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"logged in · {scopes} · access token until {when} (then refreshed)"


def wire_status(server: ServerState, tool: ToolState, catalog: WireCatalog) -> str:
    """Whether the tool goes on the wire, and if not, why not."""
    if not tool.enabled:
        return "not on the wire: the tool is off"
    if tool.needs_tasks:
        return f"not on the wire: needs task support ({TASK_REASON})"
    if server.status != "connected":
        return f"not on the wire: the server is {server.status}"
    if catalog.is_trimmed(server.name, tool.bare):
        return f"not on the wire: trimmed by {catalog.trimmed_by()}"
    return "on the wire"


def _wire_name(server: ServerState, tool: ToolState, catalog: WireCatalog) -> str:
    try:
        return catalog.wire_name(server.name, tool.bare)
    except UnknownToolError:
        return "— (only enabled tools of connected servers get one)"


class ToolDetailsScreen(Dialog[None]):
    """A tool's description, input schema, wire name and wire status."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,enter,q", "close", "Close")]

    def __init__(
        self,
        server: ServerState,
        tool: ToolState,
        catalog: WireCatalog,
        seen_by: tuple[str, ...] | None = None,
        *,
        tokens: str | None = None,
    ) -> None:
        """``seen_by``: the hosts attached to the gateway daemon that list the tool now
        (``None``: the picker is not attached, and the line is left out); ``tokens``: what the
        tool's definition costs, in words (``None``: not counted)."""
        super().__init__()
        self._server = server
        self._tool = tool
        self._catalog = catalog
        self._tokens = tokens
        self._seen_by = seen_by

    def compose(self) -> ComposeResult:
        server, tool, catalog = self._server, self._tool, self._catalog
        facts = "\n".join(
            (
                f"server     {safe_line(server.name)}",
                f"state      {'on' if tool.enabled else 'off'}",
                f"wire name  {_wire_name(server, tool, catalog)}",
                f"wire       {wire_status(server, tool, catalog)}",
                *hint_lines(tool),
                *self._hosts_line(),
                *([f"tokens     {self._tokens}"] if self._tokens else []),
                *pin_lines(server, tool),
            )
        )
        schema = safe_json(thaw(tool.input_schema))
        with VerticalScroll(classes="dialog", id="details"):
            yield PlainText(tool.title or tool.bare, one_line=True, classes="dialog-title")
            with Vertical(id="details-body"):
                yield PlainText(facts, id="details-facts")
                yield Static("Description", classes="dialog-heading")
                yield PlainText(tool.description or "(none)", id="details-description")
                yield Static("Input schema", classes="dialog-heading")
                yield PlainText(schema, id="details-schema")
            yield Static("escape closes", classes="dialog-hint")

    def _hosts_line(self) -> tuple[str, ...]:
        """Which attached hosts list the tool now (an attached picker's details alone)."""
        if self._seen_by is None:
            return ()
        seen = ", ".join(safe_line(host) for host in self._seen_by)
        return (f"hosts      {seen or 'no attached host lists it now'}",)

    def action_close(self) -> None:
        """Close the details."""
        self.dismiss(None)


def _spec_text(server: ServerState) -> str:
    spec = server.spec
    if spec is None:
        return "spec       (the config entry is invalid; see the error)"
    # Each value on its own line: a newline in an argument must not forge another fact.
    if spec.kind == "stdio":
        lines = [f"command    {safe_line(masked_command_line(spec.command, spec.args))}"]
        if spec.cwd:
            lines.append(f"cwd        {safe_line(spec.cwd)}")
        # Names only: values of env and headers are secrets as often as not.
        lines += [
            f"env        {safe_line(key)}={mask_value(value)}" for key, value in spec.env.items()
        ]
        return "\n".join(lines)
    lines = [f"url        {safe_line(mask_url(spec.url))}"]
    lines += [
        f"header     {safe_line(key)}: {mask_value(value)}" for key, value in spec.headers.items()
    ]
    return "\n".join(lines)


class ServerDetailsScreen(Dialog[str | None]):
    """A server's status, full error text, how it is reached and who answered; for a URL
    server that is logged in, ``o`` logs out (the dialog closes with ``"logout"``)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter,q", "close", "Close"),
        Binding("o", "logout", "Log out", show=False),
    ]

    def __init__(self, server: ServerState, *, tokens: str | None = None) -> None:
        """``tokens``: what its tools that are on cost, in words (``None``: not counted)."""
        super().__init__()
        self._server = server
        self._tokens = tokens

    def compose(self) -> ComposeResult:
        server = self._server
        lines = [f"status     {server.status}", *source_facts(server), _spec_text(server)]
        if server.status == "connected":
            lines.append(f"tools      {server.enabled_count}/{len(server.tools)} on")
            if self._tokens:
                lines.append(f"tokens     {self._tokens}")
            lines += pin_lines(server)
        info = server.info
        if info is not None and info.name:
            lines.append(safe_line(f"server     {info.name} {info.version or ''}".rstrip()))
        if info is not None and info.protocol_version:
            lines.append(f"protocol   {safe_line(info.protocol_version)}")
        if server.auth is not None:
            lines.append(f"login      {_auth_text(server)}")
        if server.log_path is not None:
            lines.append(f"log        {safe_line(server.log_path)} (l shows it)")
        # Every warning (the row shows the first): e.g. that it asked for sampling.
        lines += [f"warning    {safe_line(warning)}" for warning in server.warnings]
        with VerticalScroll(classes="dialog", id="server-details"):
            yield PlainText(server.name, one_line=True, classes="dialog-title")
            with Vertical(id="details-body"):
                yield PlainText("\n".join(lines), id="server-facts")
                if server.error and server.status != "shadowed":  # the facts say who wins
                    yield Static("Error", classes="dialog-heading")
                    yield PlainText(server.error, classes="form-error", id="server-error")
                if server.dropped_tools:
                    dropped = "\n".join(
                        safe_line(f"{t.name}: {t.reason}") for t in server.dropped_tools
                    )
                    yield Static(
                        "Tools left out (they break the MCP rules)", classes="dialog-heading"
                    )
                    yield PlainText(dropped, classes="form-error", id="server-dropped")
            hint = "o logs out · escape closes" if self._logged_in() else "escape closes"
            yield Static(hint, classes="dialog-hint")

    def _logged_in(self) -> bool:
        return self._server.auth is not None and self._server.auth.logged_in

    def action_close(self) -> None:
        """Close the details."""
        self.dismiss(None)

    def action_logout(self) -> None:
        """o: close, asking the app to log this server out (only when it is logged in)."""
        if self._logged_in():
            self.dismiss("logout")


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


# --- the log viewer ------------------------------------------------------------------

TAIL_BYTES = 256 * 1024
"""How much of the log's end is read at most at once (when it opens, or after a flood)."""

SHOWN_LINES = 400
"""Lines the viewer keeps on screen; older ones scroll away for good."""

LINE_CHARS = 240
"""Characters of one line shown; the rest of a longer line is left out with a mark."""

POLL_SECONDS = 0.25
"""How often the file is looked at for new lines."""


class LogTail:
    """The lines appended to one log file since the last read (no Textual: tested alone)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._inode: int | None = None
        self._offset = 0
        self._partial = b""

    def read_new(self) -> list[str]:
        """The complete lines written since the last call (the first call: the log's end).

        A line the server has not ended yet waits for its newline. A gap (more than
        ``TAIL_BYTES`` at once) and a rotation are said in a line of their own.
        """
        try:
            stat = os.stat(self.path)
        except OSError:
            return []
        lines: list[str] = []
        if self._inode is not None and (stat.st_ino != self._inode or stat.st_size < self._offset):
            lines.append("── the log was rotated (its earlier part: .log.1) ──")
            self._offset, self._partial = 0, b""
        self._inode = stat.st_ino
        if stat.st_size <= self._offset:
            return lines
        start = max(self._offset, stat.st_size - TAIL_BYTES)
        skipped = start > self._offset
        try:
            with open(self.path, "rb") as handle:
                handle.seek(start)
                data = handle.read(stat.st_size - start)
        except OSError:
            return lines
        self._offset = start + len(data)
        if skipped:
            self._partial = b""
            data = data.partition(b"\n")[2]  # the first line lost its beginning
            lines.append("── … earlier lines left out ──")
        data = self._partial + data
        *complete, self._partial = data.split(b"\n")
        lines += [_shown(line) for line in complete]
        return lines


def _shown(line: bytes) -> str:
    text = line.decode(errors="replace").rstrip("\r")
    if len(text) <= LINE_CHARS:
        return text
    return f"{text[:LINE_CHARS]}… ({len(text) - LINE_CHARS:,} more characters)"


class LogViewScreen(Dialog[None]):
    """One server's log: its path, then its last lines, following new ones live.

    Like every dialog it is one scrolled ``.dialog``: at 60×20 it fills the screen, and the
    arrow keys, page keys and ``home``/``end`` move through the lines.
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,l", "close", "Close")]

    def __init__(self, server: str, path: Path) -> None:
        super().__init__()
        self._server = server
        self._tail = LogTail(path)
        self._lines: deque[str] = deque(maxlen=SHOWN_LINES)
        self._painted = False

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog", id="log-view"):
            yield PlainText(f"Log of {self._server}", one_line=True, classes="dialog-title")
            yield PlainText(str(self._tail.path), one_line=True, id="log-path")
            yield PlainText("", id="log-lines")
            yield Static("escape closes; new lines show as they are written", classes="dialog-hint")

    def on_mount(self) -> None:
        """Show the log's end, then look for new lines every ``POLL_SECONDS``."""
        self.refresh_lines()
        self.set_interval(POLL_SECONDS, self.refresh_lines)

    @property
    def shown_lines(self) -> tuple[str, ...]:
        """The lines on screen, oldest first (before they are made safe)."""
        return tuple(self._lines)

    def refresh_lines(self) -> None:
        """Add what was written since the last look, and stay at the end if the view was."""
        new = self._tail.read_new()
        if not new and self._painted:
            return
        self._painted = True
        self._lines.extend(new)
        body = self.query_one("#log-view", VerticalScroll)
        at_end = body.scroll_y >= body.max_scroll_y
        text = "\n".join(self._lines) if self._lines else "(nothing written yet)"
        self.query_one("#log-lines", PlainText).update(text)
        if at_end:
            body.scroll_end(animate=False)

    def action_close(self) -> None:
        """Close the viewer."""
        self.dismiss(None)
