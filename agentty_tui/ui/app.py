"""The picker app: a thin view of ``PluginModel`` snapshots.

A worker follows ``source.updates()``; every snapshot is projected onto the wire (by a
``CatalogProjector``, which redoes only the servers that changed), turned into rows
(``build_rows``, with a ``RowMemo`` so that only the servers that changed get new rows) and
handed to the list, which updates only the rows that changed. The keys that change plugins
are ``PickerOperations``' (``operations.py``) and ``PickerDialogs``' (``dialog_actions.py``,
those that open a dialog first): they dispatch to the source in workers, so the
UI never waits on a server. The app keeps no plugin state: only the view's own state (folded
servers, the filter text, whether the terminal is wide).

Text the app did not write itself (server names, errors, the config path) is never markup and
never reaches the terminal with its controls: the bars are ``PlainText`` and every
notification goes through ``PickerOperations.notify``.
"""

from __future__ import annotations

import gc
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from rich.cells import cell_len
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Input, Static

from agentty_tui.catalog import CatalogProjector, WireCatalog
from agentty_tui.config.discover import HostFile, host_config_files
from agentty_tui.model import PluginModel
from agentty_tui.terminal_text import safe_line
from agentty_tui.ui.call import CallRecord
from agentty_tui.ui.dialog_actions import PickerDialogs
from agentty_tui.ui.keybar import KeyBar
from agentty_tui.ui.keys import KeyOrderApp
from agentty_tui.ui.outside_edits import OutsideEdits
from agentty_tui.ui.picker import PickerList
from agentty_tui.ui.row_filter import no_such_words, parse_filter
from agentty_tui.ui.row_layout import WIDE_COLUMNS
from agentty_tui.ui.row_source import SOURCE_COLUMNS
from agentty_tui.ui.rows import RowMemo, build_rows
from agentty_tui.ui.source import PluginSource
from agentty_tui.ui.status import config_notes, summarize
from agentty_tui.ui.text import PlainText

__all__ = ["PickerApp"]

log = logging.getLogger(__name__)

_ONE_LINE_BARS = frozenset({"#title"})
"""Text bars of a fixed height of one line (``picker.tcss``): a new text never changes layout."""


def _host_files_here(config: Path | None) -> tuple[HostFile, ...]:
    """The other hosts' config files of this user and folder, but ``config`` itself."""
    return host_config_files(Path.home(), os.environ, Path.cwd(), exclude=config)


class PickerApp(OutsideEdits, PickerDialogs, KeyOrderApp):
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
        host_files: Callable[[Path | None], tuple[HostFile, ...]] | None = None,
    ) -> None:
        """``follow=False`` shows ``source.snapshot`` only (snapshot tests).

        ``host_files(config)``: the other hosts' config files an empty config offers to import
        (``config.discover`` on the real home when not given; a test passes a fake home's).

        ``freeze_heap``: at the first settled snapshot, ``gc.freeze()`` the whole process
        (``run_picker`` does, owning the process; an app embedded in a host's process should
        leave the host's heap alone).
        """
        super().__init__()
        self.source = source
        self.model: PluginModel = source.snapshot
        self.find_host_files = host_files or _host_files_here
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
        self._sources = False  # whether they have a source column (a workspace's rows)
        self.last_call: CallRecord | None = None
        """The last call dialog's call, for ``C`` (its result outlives the dialog)."""

    def compose(self) -> ComposeResult:
        yield PlainText("", one_line=True, id="title")
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
        self.picker.focus()
        if self._follow_updates:
            self._follow()
            self.hear_outside_edits(self.source)

    def on_unmount(self) -> None:
        """Stop hearing about outside edits."""
        self.stop_hearing_outside_edits()

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
        self._sources = width >= SOURCE_COLUMNS
        rows = build_rows(
            self.model,
            self.catalog,
            frozenset(self.folded),
            self.filter_text,
            self._row_memo,
            wide=self._wide,
            sources=self._sources,
        )
        self.picker.show_rows(rows)
        empty = self.query_one("#empty", Static)
        empty.display = not rows
        if not rows:
            empty.update(self._nothing_shown())

    def _nothing_shown(self) -> str:
        """Why the list is empty."""
        if not self.model.servers:
            return self._first_run_text()
        unknown = parse_filter(self.filter_text).unknown
        if unknown:
            return f"{no_such_words(unknown)}; escape clears."
        return "Nothing matches the filter (escape clears it)."

    def _first_run_text(self) -> str:
        """An empty config: how to add a server, and the host files it could import."""
        files = self.host_files()
        if not files:
            return "No servers in this config yet: press a to add one."
        found = "\n".join(f"  {safe_line(found.describe())}" for found in files)
        return (
            "No servers in this config yet: press a to add one, or i to import another "
            f"host's servers from:\n{found}"
        )

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
