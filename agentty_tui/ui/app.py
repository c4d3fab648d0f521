"""The picker app: a thin view of ``PluginModel`` snapshots, changed from the keyboard.

A worker follows ``source.updates()``; every snapshot is seen through the host's lens and
projected onto the wire (``LensView``, whose ``CatalogProjector`` redoes only the servers that
changed), turned into rows (``build_rows``, with a ``RowMemo`` so that only the servers that
changed get new rows) and handed to the list, which updates only the rows that changed. The app
keeps no plugin state: only the view's own state (folded servers, the filter text, whether the
terminal is wide). The bars' texts are ``ui/status_bar.py``'s.

The keys that change plugins dispatch to the source in workers, so the UI never waits on a
server: the app picks the server or tool under the cursor, asks (in a dialog first, for add,
edit, import, log in, call; the questions are ``ui/questions.py``'s), hands the change to
``run_operation`` and says how it went (``ui/outcomes.py``); it decides nothing the source
decides. An edit made elsewhere (an editor, another host, ``git pull``) reloads by itself
(``bridge.live_reload``): the rows show the result, and a notification says what changed, as
``r`` does; a reload that changed nothing says nothing
(Claude Code rewrites ``~/.claude.json`` after every prompt).

Text the app did not write itself (server names, errors, the config path) is never markup and
never reaches the terminal with its controls: the bars are ``PlainText`` and every
notification, whoever raises it, goes through ``PickerApp.notify``, as plain text.

Keys that arrive together are handled one after the other, each where focus is by then
(``ui/key_order.py``, the app's base); the key bar under the list (``ui/key_bar.py``) wraps
instead of being cut.
"""

from __future__ import annotations

import gc
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import ClassVar

from rich.cells import cell_len
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.notifications import SeverityLevel
from textual.widgets import Input, Static

from agentty_tui.bridge.reload_report import ReloadReport
from agentty_tui.catalog import WireCatalog
from agentty_tui.catalog.host_lens import host_lens
from agentty_tui.catalog.tokens import FamilyName
from agentty_tui.config.discover import HostFile
from agentty_tui.config.importing import PreparedImport
from agentty_tui.config.trust import entry_hash
from agentty_tui.errors import AgenttyError, EntryChangedError
from agentty_tui.gateway.picker.view import DaemonView
from agentty_tui.model import (
    HttpSpec,
    PluginModel,
    ServerSpec,
    ServerState,
    SourceRef,
    ToolState,
)
from agentty_tui.terminal_text import safe_block, safe_line
from agentty_tui.ui.call import CallRecord, CallToolScreen
from agentty_tui.ui.dialogs import (
    ConfirmScreen,
    HelpScreen,
    LoginScreen,
    LogViewScreen,
    ServerDetailsScreen,
    ToolDetailsScreen,
)
from agentty_tui.ui.host_files import FindHostFiles, HostFileSearch
from agentty_tui.ui.import_dialog import ImportScreen, import_question, import_said
from agentty_tui.ui.key_bar import KeyBar
from agentty_tui.ui.key_order import KeyOrderApp
from agentty_tui.ui.lens_view import LensView
from agentty_tui.ui.outcomes import (
    Notice,
    outside_reload_notice,
    reload_notice,
    start_notice,
    still_on_notice,
)
from agentty_tui.ui.picker import PickerList
from agentty_tui.ui.questions import (
    remove_question,
    trust_config_question,
    trust_server_question,
)
from agentty_tui.ui.row_source import (
    SOURCE_COLUMNS,
)
from agentty_tui.ui.rows import WIDE_COLUMNS, Row, RowMemo, build_rows, row_server, server_key
from agentty_tui.ui.server_asks import ServerAsks
from agentty_tui.ui.server_form import (
    AddServerScreen,
    EditServerScreen,
    NewServer,
    names_held,
)
from agentty_tui.ui.source import DaemonSource, PluginSource
from agentty_tui.ui.status_bar import config_notes, daemon_text, empty_text, title_text
from agentty_tui.ui.text import PlainText

__all__ = ["PickerApp"]

log = logging.getLogger(__name__)

_ONE_LINE_BARS = frozenset({"#title"})
"""Text bars of a fixed height of one line (``picker.tcss``): a new text never changes layout."""


class PickerApp(KeyOrderApp):
    """Shows every configured server and its tools, live, and changes them from the keyboard."""

    CSS_PATH = "picker.tcss"
    TITLE = "agentty-tui"
    ENABLE_COMMAND_PALETTE = False

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "space", "on/off"),
        Binding("z", "fold_all", "fold all", show=False),
        Binding("e", "all_tools(True)", "all on"),
        Binding("x", "all_tools(False)", "all off"),
        Binding("a", "add", "add"),
        Binding("i", "import_host", "import", show=False),
        Binding("d", "remove", "remove"),
        Binding("E", "edit_server", "edit", show=False),
        Binding("r", "reload", "reload"),
        Binding("R", "restart", "restart"),
        Binding("T", "trust", "trust", show=False),
        Binding("L", "login", "log in", show=False),
        Binding("l", "log", "log", show=False),
        Binding("slash", "filter", "filter"),
        Binding("h", "next_lens", "host lens", show=False),
        Binding("s", "sort", "sort", show=False),
        Binding("p", "pin", "pin", show=False),
        Binding("c", "call", "call"),
        Binding("C", "last_call", "last call", show=False),
        Binding("question_mark", "help", "help"),
        Binding("q", "quit", "quit"),
        Binding("escape", "clear_filter", "clear filter"),
    ]

    def __init__(
        self,
        source: PluginSource,
        *,
        follow: bool = True,
        freeze_heap: bool = False,
        host_files: FindHostFiles | None = None,
        count_tokens: bool = False,
    ) -> None:
        """``follow=False`` shows ``source.snapshot`` only (snapshot tests).

        ``count_tokens``: count every tool's tokens in a worker thread and show them (a column
        on tool rows, a total on server rows, in the status bar and the details); ``run_picker``
        does. Off, rows never change by themselves once counted (most tests' rows).

        ``host_files(config)``: the other hosts' config files an empty config offers to import
        (``config.discover`` on the real home when not given; a test passes a fake home's).

        ``freeze_heap``: at the first settled snapshot, ``gc.freeze()`` the whole process
        (``run_picker`` does, owning the process; an app embedded in a host's process should
        leave the host's heap alone).
        """
        super().__init__()
        self.source = source
        """Where snapshots come from and operations go."""
        self.whole: PluginModel = source.snapshot
        """The last snapshot as the source gave it: every host's."""
        self.lens_view = LensView(count_tokens=count_tokens)
        """The host's lens the rows are seen through (``h`` cycles), with the catalog and the
        token counts that follow it."""
        self.model: PluginModel = source.snapshot
        """The snapshot on screen (through the lens)."""
        self.host_files = HostFileSearch(source, host_files)
        """The other hosts' config files to offer to import, looked for once."""
        self._stop_hearing: Callable[[], None] | None = None  # ends the outside-edit listener
        self._counting = False  # whether a counting worker runs
        self.by_cost = False
        """Whether the rows are sorted by cost, most expensive first (``s``)."""
        self.catalog: WireCatalog = self._project(self.model)
        """The wire catalog of the snapshot on screen (the tool details show its entry)."""
        self.folded: set[str] = set()
        self.filter_text = ""
        self._follow_updates = follow
        self._freeze_heap = freeze_heap
        self._row_memo = RowMemo()  # each server's rows, rebuilt only when that server changed
        self._shown_text: dict[str, str] = {}  # what each text bar shows (see _set_text)
        self._wide = False  # whether the rows on screen have a description column
        self._sources = False  # whether they have a source column (a workspace's rows)
        self.last_call: CallRecord | None = None
        """The last call dialog's call, for ``C`` (its result outlives the dialog)."""
        self.daemon: DaemonView | None = source.daemon if isinstance(source, DaemonSource) else None
        """The gateway daemon the picker is attached to (its hosts, who sees which tool);
        ``None`` for a picker that runs its own servers."""
        self.server_asks = ServerAsks(self)
        """The forms and pages servers ask for, shown one at a time (``ui/server_asks.py``)."""

    def compose(self) -> ComposeResult:
        yield PlainText("", one_line=True, id="title")
        yield PlainText("", id="daemon")
        yield PlainText("", id="config-error")
        yield PickerList(id="picker")
        yield PlainText("", id="empty")
        yield Input(placeholder="filter: name or title, is:off is:trimmed is:failed …", id="filter")
        yield PlainText("", one_line=True, id="status")
        yield PlainText("", id="warning")
        yield KeyBar(id="keys")

    def on_mount(self) -> None:
        """Render what the source has now, then follow its updates."""
        self.show_snapshot(self.source.snapshot)
        if self.daemon is not None:
            self.show_daemon(self.daemon)
        self.picker.focus()
        # What a server asks outside the picker's calls is shown here too, while the app runs.
        self.source.set_elicitation(self.server_asks.background, self.server_asks.completed)
        if isinstance(self.source, DaemonSource):  # the daemon's servers ask here too
            self.source.set_daemon_asks(self.server_asks.from_daemon, self.server_asks.completed)
        if self._follow_updates:
            self._follow()
            self.hear_outside_edits()
            if isinstance(self.source, DaemonSource):
                self._follow_daemon(self.source)

    def on_unmount(self) -> None:
        """Stop hearing about outside edits and answering servers' requests."""
        self.stop_hearing_outside_edits()
        self.source.set_elicitation(None)
        if isinstance(self.source, DaemonSource):
            self.source.set_daemon_asks(None)

    # --- rendering ------------------------------------------------------------------

    @work(exclusive=True, group="updates", exit_on_error=False)
    async def _follow(self) -> None:
        async for model in self.source.updates():
            if model is not self.model:  # the first one is usually the one already shown
                self.show_snapshot(model)

    @work(exclusive=True, group="daemon", exit_on_error=False)
    async def _follow_daemon(self, source: DaemonSource) -> None:
        async for view in source.daemon_views():
            if view is not self.daemon:
                was = self.daemon
                self.show_daemon(view)
                if was is not None and was.attached != view.attached:
                    said = view.note or "Attached to the gateway daemon again."
                    self.notify(said, severity="information" if view.attached else "warning")

    def show_daemon(self, view: DaemonView) -> None:
        """Show the daemon the picker is attached to: the title says so, the panel under it
        lists the hosts attached for the workspace (or says the daemon went away)."""
        self.daemon = view
        self.query_one("#daemon").set_class(not view.attached, "gone")
        self._set_text("#daemon", daemon_text(view), shown=True)
        self._set_text("#title", title_text(self.model, self.daemon))

    def show_snapshot(self, model: PluginModel) -> None:
        """Make ``model`` the snapshot on screen, through the lens."""
        self.whole = model
        model = self.model = self.lens_view.look(model)
        # Revision 0: a model of the config alone (``bridge/starting.py``), shown before the SDK is
        # imported; the heap worth freezing is the one of the first settled bridge snapshot.
        if self._freeze_heap and model.settled and model.revision:
            self._freeze_heap = False
            # Everything alive now (Textual, mcp, pydantic, the rows) lives as long as the app:
            # moved out of the collector's reach, later full collections scan only what came
            # after, which cut the slowest live updates from about 80 ms to about 20 ms. Cyclic
            # garbage among these objects is not collected; it is bounded by this heap and was
            # about 1,800 objects after 600 toggles, filters and help screens.
            gc.freeze()
        self.catalog = self._project(model)
        self.refresh_rows()
        self._show_status()
        # After the frame is painted: loading the encoding holds the interpreter's lock for
        # about 2 s, even in a worker thread, and the first frame must not wait for it.
        self.call_after_refresh(self._count_if_needed)
        self._set_text("#title", title_text(model, self.daemon))
        notes = config_notes(model)
        self._set_text("#config-error", notes, shown=bool(notes))

    @property
    def lens(self) -> str | None:
        """The host whose model the rows show (``h`` cycles); ``None``: every host."""
        return self.lens_view.host

    @property
    def family(self) -> FamilyName:
        """The model family tokens are counted in: the lens's host's, else the default."""
        return self.lens_view.family

    def _show_status(self) -> None:
        """The status bar and the warning for the snapshot on screen."""
        warning = self.catalog.warning
        self._set_text(
            "#status", self.lens_view.status(self.model, self.catalog, by_cost=self.by_cost)
        )
        self._set_text("#warning", warning or "", shown=warning is not None)

    def _count_if_needed(self) -> None:
        """Start counting the tokens of the servers on screen not counted yet, off the UI
        thread (the rows show no figure until then)."""
        if self._counting or not self.is_running:
            return
        if self.lens_view.to_count(self.model):
            self._counting = True
            self._count_tokens(self.model, self.family)

    @work(thread=True, group="costs", exit_on_error=False)
    def _count_tokens(self, model: PluginModel, family: FamilyName) -> None:
        try:
            # The first count not kept from an earlier run (``catalog/token_cache.py``) loads
            # the encoding (about 1.5 s): in this thread, and only once some server has tools
            # to count.
            self.lens_view.count(model, family)
        finally:
            self.call_from_thread(self._tokens_counted)

    def _tokens_counted(self) -> None:
        self._counting = False
        self.refresh_rows()
        self._show_status()
        self._count_if_needed()  # snapshots that came meanwhile

    def _project(self, model: PluginModel) -> WireCatalog:
        """The wire catalog of ``model`` through the lens (``LensView.project``): the
        encoding a token budget needs is loaded in a worker thread, once the app runs."""
        return self.lens_view.project(model, self._load_token_encoding if self.is_running else None)

    @work(thread=True, exclusive=True, group="tokens", exit_on_error=False)
    def _load_token_encoding(self) -> None:
        self.lens_view.load_encoding()
        self.call_from_thread(self._token_encoding_loaded)

    def _token_encoding_loaded(self) -> None:
        self.show_snapshot(self.whole)

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
        self._sources = width >= SOURCE_COLUMNS
        costs = self.lens_view.row_costs(self.model)  # a toggle's figures, at once
        rows = build_rows(
            self.model,
            self.catalog,
            frozenset(self.folded),
            self.filter_text,
            self._row_memo,
            wide=self._wide,
            sources=self._sources,
            costs=costs,
            by_cost=self.by_cost,
        )
        self.picker.show_rows(rows)
        empty = self.query_one("#empty", Static)
        empty.display = not rows
        if not rows:
            empty.update(empty_text(self.model, self.filter_text, self.host_files.found))

    @on(PickerList.Resized, "#picker")
    def _resized(self, event: PickerList.Resized) -> None:
        """Crossing ``WIDE_COLUMNS`` shows or hides the description column, crossing
        ``SOURCE_COLUMNS`` the source column."""
        wide, sources = event.width >= WIDE_COLUMNS, event.width >= SOURCE_COLUMNS
        if wide != self._wide or sources != self._sources:
            self.refresh_rows()

    def action_space(self) -> None:
        """Space: a tool on or off; on a server row, fold or unfold."""
        current = self._current()
        if current is None:
            return
        row, server = current
        if self.refuse_shadowed(server):
            pass
        elif row.kind == "server" and server.status == "disabled":
            self._enable(server.name)
        elif row.kind == "server":
            self.folded ^= {server.name}
            self.refresh_rows()
        elif row.tool is not None:
            # A tool some hosts send and others not ([~]): on for every one of them.
            tool, on, lens = row.tool, not row.enabled or row.mixed, self.lens
            self.run_operation("Toggle", lambda: self._toggle(server.name, tool, on, lens))

    async def _toggle(self, name: str, tool: str, on: bool, lens: str | None) -> None:
        """Switch ``tool`` for every host holding ``name`` (``lens``: one); when a host that has
        no switch still sends it, say so: the row stays on, and why is news."""
        model = host_lens(await self.source.tool_set_enabled(name, tool, on, host=lens), lens)
        notice = None if on else still_on_notice(model.server(name), tool)
        if notice is not None:
            self.say(notice)

    @on(PickerList.MarkClicked, "#picker")
    def _mark_clicked(self) -> None:
        """A click on a tool's [x] or a server's fold mark: as space on that row."""
        self.action_space()

    def action_fold_all(self) -> None:
        """z: fold every server with tools; when all are folded, unfold them all."""
        with_tools = {server.name for server in self.model.servers if server.tools}
        self.folded = set() if with_tools <= self.folded else self.folded | with_tools
        self.refresh_rows()

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

    # --- outside edits --------------------------------------------------------------------

    def hear_outside_edits(self) -> None:
        """Listen to the source's reloads of outside edits (a bridge's live reload)."""
        self._stop_hearing = self.source.add_reload_listener(self.outside_reload)

    def stop_hearing_outside_edits(self) -> None:
        """Stop listening (the app is closing)."""
        if self._stop_hearing is not None:
            self._stop_hearing()
            self._stop_hearing = None

    def outside_reload(self, report: ReloadReport) -> None:
        """Say what an outside edit's reload did: its summary, or why the file was not read."""
        notice = outside_reload_notice(report)
        if notice is not None:
            self.say(notice)

    # --- notifications -------------------------------------------------------------------------

    @property
    def picker(self) -> PickerList:
        """The list of rows."""
        return self.query_one("#picker", PickerList)

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

    def say(self, notice: Notice) -> None:
        """Show ``notice`` (what an operation's result means, ``ui/outcomes.py``)."""
        self.notify(
            notice.message, title=notice.title, severity=notice.severity, timeout=notice.timeout
        )

    # --- what the cursor is on -------------------------------------------------------

    def _current(self) -> tuple[Row, ServerState] | None:
        row = self.picker.current_row
        if row is None:
            return None
        server = row_server(self.model, row)  # a shadowed row: the hidden entry itself
        return None if server is None else (row, server)

    def refuse_shadowed(self, server: ServerState) -> bool:
        """Say why nothing but removal and details applies to a shadowed entry; True if it is
        one (the caller then does nothing)."""
        if server.status != "shadowed":
            return False
        by = server.shadowed_by
        winner = f"the entry in {by.label} ({by.path})" if by is not None else "another entry"
        self.notify(
            f"{server.name!r} here is shadowed by {winner}: it is not started. "
            "d or x removes this entry from its file; enter shows it.",
            severity="warning",
            timeout=5,
        )
        return True

    def _current_server_to_act_on(self) -> ServerState | None:
        """The server under the cursor, unless there is none or it is a shadowed entry (which
        ``refuse_shadowed`` then explains)."""
        current = self._current()
        if current is None or self.refuse_shadowed(current[1]):
            return None
        return current[1]

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
        self.run_worker(self.operate(what, operation), group="operations", exit_on_error=False)

    async def operate(self, what: str, operation: Callable[[], Awaitable[object]]) -> None:
        """Await ``operation``; its failure becomes an error notification titled ``what``."""
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

    def _enable(self, name: str) -> None:
        """Clear a server's disabled flag in the config; the bridge starts it."""

        lens = self.lens

        async def enable() -> None:
            await self.source.server_set_disabled(name, False, host=lens)
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
            notice = start_notice(state, done, again=again)
            if notice is not None:  # None: still connecting
                self.say(notice)
                return

    def action_all_tools(self, on: bool) -> None:
        """e / x: every tool of the server under the cursor on / off."""
        current = self._current()
        if current is None:
            return
        if current[1].status == "shadowed" and not on:
            self.action_remove()  # x on a hidden entry: it has no tools, only its file entry
            return
        if self.refuse_shadowed(current[1]):
            return
        name, lens = current[1].name, self.lens
        self.run_operation(
            "All on" if on else "All off",
            lambda: self.source.tools_set_enabled(name, on, host=lens),
        )

    def action_remove(self) -> None:
        """d: remove the server under the cursor, after a confirmation."""
        current = self._current()
        if current is None:
            return
        state = current[1]
        name, where = state.name, state.source
        question = remove_question(state)

        # The file the question names: a reload meanwhile may have put another file's entry of
        # that name in front, which the user did not agree to remove.
        def remove() -> Awaitable[PluginModel]:
            return self.source.plugin_remove(name, source=where)

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.run_operation("Remove", remove)

        self.push_screen(ConfirmScreen(question, yes="Remove"), confirmed)

    def action_reload(self) -> None:
        """r: re-read the config (only what changed is restarted)."""

        async def reload() -> None:
            self.say(reload_notice(await self.source.reload()))

        self.run_operation("Reload", reload)

    def action_restart(self) -> None:
        """R: start the server under the cursor again (after a failure, or a new binary)."""
        current = self._current()
        if current is None:
            return
        name, again = current[1].name, current[1].status == "failed"
        if self.refuse_shadowed(current[1]):
            return
        if current[1].status == "disabled":
            self.notify(f"Server {name!r} is disabled in the config: space enables it.")
            return

        async def restart() -> None:
            await self.source.restart(name)
            self._follow_start(name, "Restarted", again=again)

        self.run_operation("Restart", restart)

    def action_trust(self) -> None:
        """T: on a workspace server waiting for trust, trust that server (a project file's on
        disk, a file others can write for this run); elsewhere, trust the config file for this
        run; either after a confirmation."""
        current = self._current()
        state = None if current is None else current[1]
        if state is not None and state.status == "untrusted" and state.source is not None:
            self._trust_server(state)
            return
        problem = self.model.config_untrusted
        if problem is None:
            waiting = [s.name for s in self.model.servers if s.status == "untrusted"]
            if waiting:
                self.notify(
                    f"{len(waiting)} server(s) wait for trust: move the cursor to one "
                    "('not trusted — T to trust') and press T.",
                    timeout=4,
                )
            else:
                self.notify("The config file is trusted: nothing to do.", timeout=2)
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.run_operation("Trust", self.source.trust_config)

        question = trust_config_question(problem)
        self.push_screen(ConfirmScreen(question, yes="Trust"), confirmed)

    def _trust_server(self, state: ServerState, *, changed: bool = False) -> None:
        """Ask, then trust one waiting server of a workspace (the bridge decides how long):
        the entry as the dialog shows it, by its hash, never whatever the file holds when the
        user answers; ``changed``: asked again, after the entry changed under the question."""
        name = state.name
        shown = {name: entry_hash(state)}

        def trust_it(yes: bool | None) -> None:
            if yes:
                self.run_operation("Trust", lambda: self._trust_as_shown(name, shown))

        question = trust_server_question(state, changed=changed)
        self.push_screen(ConfirmScreen(question, yes="Trust"), trust_it)

    async def _trust_as_shown(self, name: str, shown: dict[str, str]) -> None:
        """Trust ``name`` as it was shown; if its entry changed meanwhile, say so and ask
        again with the entry as it is now (the bridge has loaded it)."""
        try:
            await self.source.trust_servers([name], shown=shown)
        except EntryChangedError as changed:
            self.notify(str(changed), title="Not trusted", severity="warning", timeout=8)
            state = self.source.snapshot.server(name)
            if state is not None and state.status == "untrusted" and state.source is not None:
                self._trust_server(state, changed=True)

    # --- dialogs --------------------------------------------------------------------------

    def action_add(self) -> None:
        """a: the add form; the server is added once the form is valid."""

        def added(result: NewServer | None) -> None:
            if result is not None:
                name, spec, target = result
                self.run_operation("Add", lambda: self._add(name, spec, target))

        names = [server.name for server in self.model.servers]
        held = names_held(self.model)
        self.push_screen(AddServerScreen(names, self.source.add_targets(), held), added)

    async def _add(self, name: str, spec: ServerSpec, target: SourceRef | None = None) -> None:
        """Add the server (into ``target``, in a workspace), then put the cursor on its row and
        say so."""
        if target is None:
            added = await self.source.plugin_add(name, spec)
        else:
            added = await self.source.plugin_add(name, spec, source=target)
        if self.model.server(name) is None and added.server(name) is not None:
            self.show_snapshot(added)  # the follow worker may not have shown it yet
        where = "" if target is None else f" to {target.label} ({target.path})"
        if self.picker.select_key(server_key(name)):
            self.notify(f"Added server {name!r}{where}.", timeout=3)
        else:
            self.notify(f"Added server {name!r}{where} (the filter hides it).", timeout=4)

    def action_edit_server(self) -> None:
        """E: the edit form of the server under the cursor; saving restarts that server."""
        server = self._current_server_to_act_on()
        if server is None:
            return
        if server.spec is None:
            self.notify("The entry is invalid: fix it in the config file.", severity="error")
            return
        name = server.name

        def edited(spec: ServerSpec | None) -> None:
            if spec is not None:
                self.run_operation("Edit", lambda: self.source.plugin_update(name, spec))

        others = [s.name for s in self.model.servers if s.name != name]
        self.push_screen(EditServerScreen(name, server.spec, others), edited)

    def action_import_host(self) -> None:
        """i: import the servers of another host's config file into this one, then reload:
        the file chosen, then its plan (as ``agentty-tui import`` shows it) and a question."""
        target = self.source.import_target()
        files = self.host_files.found()
        if not files:
            self.notify("No other host's config file was found to import.", timeout=4)
            return

        def chosen(source: HostFile | None) -> None:
            if source is not None:
                self.run_operation("Import", lambda: self._ask_import(source))

        self.push_screen(ImportScreen(files, str(target)), chosen)

    async def _ask_import(self, source: HostFile) -> None:
        """Show the plan of importing ``source`` (the source plans it); write it only on a
        yes."""
        prepared = await self.source.import_plan(source)
        if not prepared.plan.add:
            said = f"Nothing to import from {source.path}:\n{prepared.plan.describe()}"
            self.notify(said, timeout=8, markup=False)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.run_operation("Import", lambda: self._import(prepared))

        self.push_screen(ConfirmScreen(import_question(prepared), yes="Import"), answered)

    async def _import(self, prepared: PreparedImport) -> None:
        """Have the source write the plan's additions and reload, then say what happened."""
        result, report = await self.source.import_servers(prepared)
        said, ok = import_said(prepared, result)
        if not report.reloaded:
            said += f"\n{report.summary}"
            ok = False
        self.notify(said, severity="information" if ok else "error", timeout=8, markup=False)

    def action_login(self) -> None:
        """L: log in to the URL server under the cursor, in a dialog; escape cancels."""
        server = self._current_server_to_act_on()
        if server is None:
            return
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
            self.operate("Login", log_in), group="login", exclusive=True, exit_on_error=False
        )

    def _details_closed(self, name: str) -> Callable[[str | None], None]:
        """What a server's details ask for when they close: ``"logout"`` logs it out."""

        def closed(choice: str | None) -> None:
            if choice != "logout":
                return

            async def log_out() -> None:
                await self.source.logout(name)
                self.notify(f"Logged out of {name}: its tokens are forgotten.", markup=False)

            self.run_operation("Logout", log_out)

        return closed

    def action_call(self) -> None:
        """c: call the tool under the cursor."""
        found = self._current_tool()
        if found is None:
            return
        server, tool = found
        if server.status != "connected":
            self.notify(f"Server {server.name!r} is {server.status}.", severity="error")
            return
        screen = CallToolScreen(self.source, server.name, tool, asks=self.server_asks)
        self.last_call = screen.record
        self.push_screen(screen)

    def action_last_call(self) -> None:
        """C: the last call dialog again, with its result (or its progress)."""
        record = self.last_call
        if record is None:
            self.notify("No call yet: c calls the tool under the cursor.", timeout=3)
            return
        self.push_screen(
            CallToolScreen(self.source, record.server, record.tool, record, asks=self.server_asks)
        )

    @on(PickerList.RowChosen, "#picker")
    def _selected(self) -> None:
        """enter: the details of the tool (or server) under the cursor."""
        current = self._current()
        if current is None:
            return
        row, server = current
        tool = server.tool(row.tool) if row.tool is not None else None
        if tool is None:
            self.push_screen(
                ServerDetailsScreen(server, tokens=self.lens_view.tokens_text(server, None)),
                self._details_closed(server.name),
            )
        else:
            seen = None if self.daemon is None else self.daemon.seen_by(server.name, tool.bare)
            hosts = None if seen is None else tuple(host.label for host in seen)
            tokens = self.lens_view.tokens_text(server, tool)
            self.push_screen(ToolDetailsScreen(server, tool, self.catalog, hosts, tokens=tokens))

    def action_log(self) -> None:
        """l: the log of the server under the cursor, followed live."""
        current = self._current()
        if current is None:
            return
        server = current[1]
        if server.log_path is None:
            self.notify(f"{server.name} has not been started: it has no log yet.", timeout=3)
            return
        self.push_screen(LogViewScreen(server.name, Path(server.log_path)))

    def action_next_lens(self) -> None:
        """h: look through the next host's lens (every host, then each host found): the rows,
        counts and budget become what that host's model gets, and a switch is that host's."""
        if not self.lens_view.next_host(self.whole):
            self.notify("One config file: there are no hosts to look through.", timeout=3)
            return
        self.show_snapshot(self.whole)
        name = self.lens_view.host_name
        if name is None:
            self.notify("Every host: a switch goes to each host holding the server.", timeout=3)
        else:
            self.notify(f"{name}'s view: what its model gets; a switch is its alone.", timeout=3)

    def action_pin(self) -> None:
        """p: pin the tool under the cursor (trimmed only after every unpinned tool), or on a
        server row its every tool (its ``priority`` 1); again: unpin (agentty's own files)."""
        current = self._current()
        if current is None:
            return
        row, server = current
        if self.refuse_shadowed(server):
            return
        name = server.name
        if row.kind == "server":
            priority = 0 if server.priority > 0 else 1
            self.run_operation("Pin", lambda: self.source.server_set_priority(name, priority))
        elif row.tool is not None:
            state = server.tool(row.tool)
            tool, pinned = row.tool, not (state is not None and state.pinned)
            self.run_operation("Pin", lambda: self.source.tool_set_pinned(name, tool, pinned))

    def action_sort(self) -> None:
        """s: the rows in config order, or by cost (most expensive first): what to switch off
        first."""
        self.by_cost = not self.by_cost
        self.refresh_rows()
        self._show_status()
        if self.by_cost and self.lens_view.costs is None:
            self.notify("Tokens are not counted here: the order stays the config's.", timeout=3)

    def action_help(self) -> None:
        """?: every key."""
        model = self.model
        workspace = bool(model.shadowed) or any(s.source is not None for s in model.servers)
        self.push_screen(HelpScreen(workspace=workspace))
