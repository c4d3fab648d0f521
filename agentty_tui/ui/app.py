"""The picker app: a thin view of ``PluginModel`` snapshots that dispatches the operations.

A worker follows ``source.updates()``; every snapshot is projected onto the wire (by a
``CatalogProjector``, which redoes only the servers that changed), turned into rows
(``build_rows``, with a ``RowMemo`` so that only the servers that changed get new rows) and
handed to the list, which updates only the rows that changed. Keys dispatch operations to the
source in workers, so the UI never waits on a server;
an operation's error becomes a notification. The app keeps no plugin state: only the view's own
state (folded servers, the filter text).

Text the app did not write itself (server names, errors, the config path) is never markup and
never reaches the terminal with its controls: the bars are ``PlainText`` and every
notification, whoever raises it, goes through ``notify`` here.
"""

from __future__ import annotations

import gc
import logging
from collections.abc import Awaitable, Callable
from typing import ClassVar

from rich.cells import cell_len
from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.notifications import SeverityLevel
from textual.widgets import Footer, Input, Static

from agentty_tui.catalog import CatalogProjector, WireCatalog
from agentty_tui.errors import AgenttyError
from agentty_tui.model import HttpSpec, PluginModel, ServerSpec, ServerState, ToolState
from agentty_tui.terminal_text import safe_block, safe_line
from agentty_tui.ui.add import AddServerScreen
from agentty_tui.ui.call import CallToolScreen
from agentty_tui.ui.dialogs import ConfirmScreen, HelpScreen, ServerDetailsScreen, ToolDetailsScreen
from agentty_tui.ui.login import LoginScreen
from agentty_tui.ui.picker import PickerList
from agentty_tui.ui.row_filter import STATE_WORDS, parse_filter
from agentty_tui.ui.row_layout import WIDE_COLUMNS
from agentty_tui.ui.rows import Row, RowMemo, build_rows, server_key
from agentty_tui.ui.source import PluginSource
from agentty_tui.ui.status import summarize
from agentty_tui.ui.text import PlainText

__all__ = ["PickerApp"]

log = logging.getLogger(__name__)

_ONE_LINE_BARS = frozenset({"#title", "#status"})
"""Text bars of a fixed height of one line (``picker.tcss``): a new text never changes layout."""


def config_notes(model: PluginModel) -> str:
    """The config-error bar: why the file did not (re)load, why its servers wait for trust,
    and its warnings, one line each (empty when all is well)."""
    lines = list(model.config_warnings)
    if model.config_untrusted:
        lines.insert(0, model.config_untrusted)
    if model.config_error:
        lines.insert(0, f"config not (re)loaded, showing the last good one: {model.config_error}")
    return "\n".join(lines)


class PickerApp(App[None]):
    """Shows every configured server and its tools, live, and changes them from the keyboard."""

    CSS_PATH = "picker.tcss"
    TITLE = "agentty-tui"
    ENABLE_COMMAND_PALETTE = False

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "space", "on/off"),
        Binding("z", "fold_all", "fold all", show=False),
        Binding("e", "all_tools(True)", "all on", show=False),
        Binding("x", "all_tools(False)", "all off", show=False),
        Binding("a", "add", "add"),
        Binding("d", "remove", "remove"),
        Binding("r", "reload", "reload"),
        Binding("R", "restart", "restart", show=False),
        Binding("T", "trust", "trust", show=False),
        Binding("L", "login", "log in", show=False),
        Binding("slash", "filter", "filter"),
        Binding("c", "call", "call"),
        Binding("question_mark", "help", "help"),
        Binding("q", "quit", "quit"),
        Binding("escape", "clear_filter", "clear filter"),
    ]

    def __init__(
        self, source: PluginSource, *, follow: bool = True, freeze_heap: bool = False
    ) -> None:
        """``follow=False`` shows ``source.snapshot`` only (snapshot tests).

        ``freeze_heap``: at the first settled snapshot, ``gc.freeze()`` the whole process
        (``run_picker`` does, owning the process; an app embedded in a host's process should
        leave the host's heap alone).
        """
        super().__init__()
        self.source = source
        self.model: PluginModel = source.snapshot
        # Re-projects only the servers whose tools changed since the previous snapshot.
        self._projector = CatalogProjector()
        self.catalog: WireCatalog = self._projector.project(self.model)
        self.folded: set[str] = set()
        self.filter_text = ""
        self._follow_updates = follow
        self._freeze_heap = freeze_heap
        self._row_memo = RowMemo()  # each server's rows, rebuilt only when that server changed
        self._shown_text: dict[str, str] = {}  # what each text bar shows (see _set_text)
        self._wide = False  # whether the rows on screen have a description column

    def compose(self) -> ComposeResult:
        yield PlainText("", one_line=True, id="title")
        yield PlainText("", id="config-error")
        yield PickerList(id="picker")
        yield PlainText("", id="empty")
        yield Input(placeholder="filter: name or title, is:off is:trimmed is:failed …", id="filter")
        yield PlainText("", one_line=True, id="status")
        yield PlainText("", id="warning")
        yield Footer()

    def on_mount(self) -> None:
        """Render what the source has now, then follow its updates."""
        self.show_snapshot(self.source.snapshot)
        self.picker.focus()
        if self._follow_updates:
            self._follow()

    @property
    def picker(self) -> PickerList:
        """The list of rows."""
        return self.query_one("#picker", PickerList)

    # --- rendering ------------------------------------------------------------------

    @work(exclusive=True, group="updates", exit_on_error=False)
    async def _follow(self) -> None:
        async for model in self.source.updates():
            if model is not self.model:  # the first one is usually the one already shown
                self.show_snapshot(model)

    def show_snapshot(self, model: PluginModel) -> None:
        """Make ``model`` the snapshot on screen."""
        self.model = model
        if self._freeze_heap and model.settled:
            self._freeze_heap = False
            # Everything alive now (Textual, mcp, pydantic, the rows) lives as long as the app:
            # moved out of the collector's reach, later full collections scan only what came
            # after, which cut the slowest live updates from about 80 ms to about 20 ms. Cyclic
            # garbage among these objects is not collected; it is bounded by this heap and was
            # about 1,800 objects after 600 toggles, filters and help screens.
            gc.freeze()
        self.catalog = self._projector.project(model)
        self.refresh_rows()
        summary = summarize(model, self.catalog)
        self._set_text("#status", summary.text)
        self._set_text("#warning", summary.warning or "", shown=summary.warning is not None)
        title = "agentty-tui" + (f" · {model.config_path}" if model.config_path else "")
        self._set_text("#title", title)
        notes = config_notes(model)
        self._set_text("#config-error", notes, shown=bool(notes))

    def _set_text(self, selector: str, text: str, *, shown: bool | None = None) -> None:
        """Update a one-text ``Static`` only if its text or visibility changed.

        An update of an unchanged bar would still cost a repaint on every snapshot, and an
        update with a layout pass costs about 2 ms at 5,000 rows; the layout pass is skipped
        when the bar's height cannot change: a fixed one-line bar, or old and new text both
        fitting on one line.
        """
        widget = self.query_one(selector, Static)
        if shown is not None and widget.display != shown:
            widget.display = shown
        old = self._shown_text.get(selector)
        if old == text:
            return
        self._shown_text[selector] = text
        width = widget.content_region.width
        same_height = selector in _ONE_LINE_BARS or (
            old is not None and 0 < cell_len(old) <= width and 0 < cell_len(text) <= width
        )
        widget.update(text, layout=not same_height)

    def refresh_rows(self) -> None:
        """Rebuild the rows from the current snapshot and view state."""
        width = self.picker.size.width or self.size.width  # before the first layout: the app's
        self._wide = width >= WIDE_COLUMNS
        rows = build_rows(
            self.model,
            self.catalog,
            frozenset(self.folded),
            self.filter_text,
            self._row_memo,
            wide=self._wide,
        )
        self.picker.show_rows(rows)
        empty = self.query_one("#empty", Static)
        empty.display = not rows
        if not rows:
            empty.update(self._nothing_shown())

    def _nothing_shown(self) -> str:
        """Why the list is empty."""
        if not self.model.servers:
            return "No servers in this config yet: press a to add one."
        unknown = parse_filter(self.filter_text).unknown
        if unknown:
            states = " ".join(STATE_WORDS)
            return f"No such state: {' '.join(unknown)} (there are {states}); escape clears."
        return "Nothing matches the filter (escape clears it)."

    @on(PickerList.Resized, "#picker")
    def _resized(self, event: PickerList.Resized) -> None:
        """Crossing ``WIDE_COLUMNS`` shows or hides the description column."""
        if (event.width >= WIDE_COLUMNS) != self._wide:
            self.refresh_rows()

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Show a notification as plain text, whatever ``markup`` says.

        Messages quote server names, errors and paths: parsed as markup, a server named
        ``a[/]`` would crash the app, and a control in them would reach the terminal.
        """
        super().notify(
            safe_block(message),
            title=safe_line(title),
            severity=severity,
            timeout=timeout,
            markup=False,
        )

    # --- what the cursor is on -------------------------------------------------------

    def _current(self) -> tuple[Row, ServerState] | None:
        row = self.picker.current_row
        if row is None:
            return None
        server = self.model.server(row.server)
        return None if server is None else (row, server)

    def _current_tool(self) -> tuple[ServerState, ToolState] | None:
        current = self._current()
        if current is None or current[0].tool is None:
            self.notify("Move the cursor to a tool first.", severity="warning")
            return None
        row, server = current
        tool = server.tool(row.tool) if row.tool is not None else None
        return None if tool is None else (server, tool)

    # --- operations -----------------------------------------------------------------

    def run_operation(self, what: str, operation: Callable[[], Awaitable[object]]) -> None:
        """Run ``operation`` in a worker; its failure becomes an error notification."""
        self.run_worker(self._operate(what, operation), group="operations", exit_on_error=False)

    async def _operate(self, what: str, operation: Callable[[], Awaitable[object]]) -> None:
        try:
            await operation()
        except AgenttyError as exc:
            self.notify(str(exc), title=f"{what} failed", severity="error", markup=False)
        except Exception as exc:  # a server or a file must never take the picker down
            log.exception("%s failed", what)
            self.notify(
                f"{type(exc).__name__}: {exc}",
                title=f"{what} failed",
                severity="error",
                markup=False,
            )

    def action_space(self) -> None:
        """Space: a tool on or off; on a server row, fold or unfold."""
        current = self._current()
        if current is None:
            return
        row, server = current
        if row.kind == "server" and server.status == "disabled":
            self._enable(server.name)
        elif row.kind == "server":
            self.folded ^= {server.name}
            self.refresh_rows()
        elif row.tool is not None:
            tool, on = row.tool, not row.enabled
            self.run_operation(
                "Toggle", lambda: self.source.tool_set_enabled(server.name, tool, on)
            )

    @on(PickerList.MarkClicked, "#picker")
    def _mark_clicked(self) -> None:
        """A click on a tool's [x] or a server's fold mark: as space on that row."""
        self.action_space()

    def action_fold_all(self) -> None:
        """z: fold every server with tools; when all are folded, unfold them all."""
        with_tools = {server.name for server in self.model.servers if server.tools}
        self.folded = set() if with_tools <= self.folded else self.folded | with_tools
        self.refresh_rows()

    def _enable(self, name: str) -> None:
        """Clear a server's disabled flag in the config; the bridge starts it."""

        async def enable() -> None:
            await self.source.server_set_disabled(name, False)
            self._follow_start(name, "Enabled", again=False)

        self.run_operation("Enable", enable)

    def _follow_start(self, name: str, done: str, *, again: bool) -> None:
        # A worker of its own: a server may take long to answer, and operations wait on no
        # one; a second start of the same server replaces the first one's report.
        report = self._report_start(name, done, again)
        self.run_worker(report, group=f"start {name}", exclusive=True, exit_on_error=False)

    async def _report_start(self, name: str, done: str, again: bool) -> None:
        """Say how a (re)start ended, once the server has left ``connecting``."""
        async for model in self.source.updates():
            state = model.server(name)
            if state is None:
                return  # removed meanwhile
            if state.status == "connecting":
                continue
            if state.status == "connected":
                self.notify(f"{done} {name!r}: {len(state.tools)} tools.", timeout=3)
            elif state.status == "needs_login":
                self.notify(f"Server {name!r} needs a login: L logs in.", severity="warning")
            else:
                why = f": {state.error}" if state.error else f" ({state.status})"
                failed = "failed again" if again else "failed"
                self.notify(f"Server {name!r} {failed}{why}", title="Start", severity="error")
            return

    def action_all_tools(self, on: bool) -> None:
        """e / x: every tool of the server under the cursor on / off."""
        current = self._current()
        if current is None:
            return
        name = current[1].name
        self.run_operation(
            "All on" if on else "All off", lambda: self.source.tools_set_enabled(name, on)
        )

    def action_add(self) -> None:
        """a: the add form; the server is added once the form is valid."""

        def added(result: tuple[str, ServerSpec] | None) -> None:
            if result is not None:
                name, spec = result
                self.run_operation("Add", lambda: self._add(name, spec))

        names = [server.name for server in self.model.servers]
        self.push_screen(AddServerScreen(names), added)

    async def _add(self, name: str, spec: ServerSpec) -> None:
        """Add the server, then put the cursor on its row and say so."""
        added = await self.source.plugin_add(name, spec)
        if self.model.server(name) is None and added.server(name) is not None:
            self.show_snapshot(added)  # the follow worker may not have shown it yet
        if self.picker.select_key(server_key(name)):
            self.notify(f"Added server {name!r}.", timeout=3)
        else:
            self.notify(f"Added server {name!r} (the filter hides it).", timeout=4)

    def action_remove(self) -> None:
        """d: remove the server under the cursor, after a confirmation."""
        current = self._current()
        if current is None:
            return
        name = current[1].name
        remote = isinstance(current[1].spec, HttpSpec)

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.run_operation("Remove", lambda: self.source.plugin_remove(name))

        # A URL server has no process of ours: it is only disconnected.
        effect = "It is disconnected." if remote else "Its process is stopped."
        question = f"Remove server {name!r} from the config?\n{effect}"
        self.push_screen(ConfirmScreen(question, yes="Remove"), confirmed)

    def action_reload(self) -> None:
        """r: re-read the config (only what changed is restarted)."""

        async def reload() -> None:
            report = await self.source.reload()
            if report.reloaded:
                self.notify(report.summary, timeout=3, markup=False)
            else:
                self.notify(report.summary, severity="error", timeout=8, markup=False)

        self.run_operation("Reload", reload)

    def action_restart(self) -> None:
        """R: start the server under the cursor again (after a failure, or a new binary)."""
        current = self._current()
        if current is None:
            return
        name, again = current[1].name, current[1].status == "failed"
        if current[1].status == "disabled":
            self.notify(f"Server {name!r} is disabled in the config: space enables it.")
            return

        async def restart() -> None:
            await self.source.restart(name)
            self._follow_start(name, "Restarted", again=again)

        self.run_operation("Restart", restart)

    def action_trust(self) -> None:
        """T: trust the config file for this run (its stdio servers start), after a confirmation."""
        problem = self.model.config_untrusted
        if problem is None:
            self.notify("The config file is trusted: nothing to do.", timeout=2)
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.run_operation("Trust", self.source.trust_config)

        question = f"{problem}\n\nTrust it for this run and start its servers as you?"
        self.push_screen(ConfirmScreen(question, yes="Trust"), confirmed)

    def action_login(self) -> None:
        """L: log in to the URL server under the cursor, in a dialog; escape cancels."""
        current = self._current()
        if current is None:
            return
        server = current[1]
        if not isinstance(server.spec, HttpSpec):
            self.notify("Only a URL server has a login.", severity="warning")
            return
        name = server.name
        screen = LoginScreen(name)

        async def log_in() -> None:
            try:
                await self.source.login(name, screen)
            finally:
                if screen.is_attached:
                    screen.dismiss(None)
            self.notify(f"Logged in to {name}.", timeout=3, markup=False)

        def closed(_: None) -> None:
            worker.cancel()  # escape: the login stops, its listener closes

        self.push_screen(screen, closed)
        worker = self.run_worker(
            self._operate("Login", log_in), group="login", exclusive=True, exit_on_error=False
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Offer escape (clear filter) only while there is a filter."""
        if action == "clear_filter":
            fields = self.query("#filter").results(Input)
            return self.filter_text != "" or any(field.display for field in fields)
        return True

    def action_filter(self) -> None:
        """/: show the filter and type into it."""
        field = self.query_one("#filter", Input)
        field.display = True
        field.focus()
        self.refresh_bindings()

    def action_clear_filter(self) -> None:
        """escape: clear and hide the filter."""
        field = self.query_one("#filter", Input)
        if not field.display and not self.filter_text:
            return
        field.value = ""
        field.display = False
        self.filter_text = ""
        self.refresh_rows()
        self.picker.focus()
        self.refresh_bindings()

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.filter_text = event.value
        self.refresh_rows()

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self) -> None:
        self.picker.focus()

    @on(PickerList.RowChosen, "#picker")
    def _selected(self) -> None:
        """enter: the details of the tool (or server) under the cursor."""
        current = self._current()
        if current is None:
            return
        row, server = current
        tool = server.tool(row.tool) if row.tool is not None else None
        if tool is None:
            self.push_screen(ServerDetailsScreen(server))
        else:
            self.push_screen(ToolDetailsScreen(server, tool, self.catalog))

    def action_call(self) -> None:
        """c: call the tool under the cursor."""
        found = self._current_tool()
        if found is None:
            return
        server, tool = found
        if server.status != "connected":
            self.notify(f"Server {server.name!r} is {server.status}.", severity="error")
            return
        self.push_screen(CallToolScreen(self.source, server.name, tool))

    def action_help(self) -> None:
        """?: every key."""
        self.push_screen(HelpScreen())
