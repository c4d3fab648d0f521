"""The picker's actions that open a dialog: add, edit, import, log in, call, details, log, help.

``PickerDialogs`` sits between ``PickerOperations`` and ``PickerApp``: each of its actions
pushes a screen for what the cursor is on and, when the screen closes with an answer, hands the
change to ``PickerOperations.run_operation`` (the source decides, a worker waits).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import anyio
from textual import on

from agentty_tui.catalog import WireCatalog
from agentty_tui.config.discover import HostFile
from agentty_tui.config.workspace import Workspace, add_targets
from agentty_tui.model import HttpSpec, ServerSpec, SourceRef
from agentty_tui.ui.add import AddServerScreen, NewServer
from agentty_tui.ui.call import CallRecord, CallToolScreen
from agentty_tui.ui.dialogs import (
    ConfirmScreen,
    HelpScreen,
    ServerDetailsScreen,
    ToolDetailsScreen,
)
from agentty_tui.ui.edit import EditServerScreen
from agentty_tui.ui.import_dialog import (
    ImportScreen,
    PreparedImport,
    apply_prepared,
    prepare_import,
)
from agentty_tui.ui.log_view import LogViewScreen
from agentty_tui.ui.login import LoginScreen
from agentty_tui.ui.operations import PickerOperations
from agentty_tui.ui.picker import PickerList
from agentty_tui.ui.rows import server_key

__all__ = ["PickerDialogs"]


class PickerDialogs(PickerOperations):
    """The picker's actions that ask in a dialog before they change anything (see the module)."""

    catalog: WireCatalog
    """The wire catalog of the snapshot on screen (the tool details show its entry)."""
    last_call: CallRecord | None
    """The last call dialog's call, for ``C`` (its result outlives the dialog)."""
    find_host_files: Callable[[Path | None], tuple[HostFile, ...]]
    """Looks for other hosts' config files (all but the given config) to offer to import."""
    _host_files: tuple[HostFile, ...] | None = None

    def action_add(self) -> None:
        """a: the add form; the server is added once the form is valid."""

        def added(result: NewServer | None) -> None:
            if result is not None:
                name, spec, target = result
                self.run_operation("Add", lambda: self._add(name, spec, target))

        names = [server.name for server in self.model.servers]
        held: dict[SourceRef, set[str]] = {}
        for server in (*self.model.servers, *self.model.shadowed):
            for ref in (server.source, *server.also_in):
                if ref is not None:
                    held.setdefault(ref, set()).add(server.name)
        self.push_screen(AddServerScreen(names, self._add_targets(), held), added)

    def _add_targets(self) -> tuple[SourceRef, ...] | None:
        """In a workspace, the files a new server may go to (the workspace's choice, its
        default first); ``None`` for one config file."""
        store = getattr(self.source, "store", None)
        return add_targets(store) if isinstance(store, Workspace) else None

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
        current = self._current()
        if current is None:
            return
        server = current[1]
        if self.refuse_shadowed(server):
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

    def host_files(self) -> tuple[HostFile, ...]:
        """The other hosts' config files found, looked for once (the first run lists them); in
        a workspace, those it does not read already (a host left out by ``--hosts``)."""
        if self._host_files is None:
            target = self._import_target()
            found = self.find_host_files(Path(target) if target else None)
            store = getattr(self.source, "store", None)
            if isinstance(store, Workspace):
                read = {path.absolute() for path in store.watched_paths()}
                found = tuple(f for f in found if f.path.absolute() not in read)
            self._host_files = found
        return self._host_files

    def _import_target(self) -> str | None:
        """The file an import writes: the config file, or a workspace's own user file."""
        store = getattr(self.source, "store", None)
        if isinstance(store, Workspace):
            return store.add_to.path
        return self.model.config_path

    def action_import_host(self) -> None:
        """i: import the servers of another host's config file into this one, then reload:
        the file chosen, then its plan (as ``agentty-tui import`` shows it) and a question."""
        target = self._import_target()
        files = self.host_files()
        if target is None or not files:
            self.notify("No other host's config file was found to import.", timeout=4)
            return

        def chosen(source: HostFile | None) -> None:
            if source is not None:
                self.run_operation("Import", lambda: self._ask_import(source, Path(target)))

        self.push_screen(ImportScreen(files, target), chosen)

    async def _ask_import(self, source: HostFile, target: Path) -> None:
        """Show the plan of importing ``source`` into ``target``; write it only on a yes."""
        prepared = await anyio.to_thread.run_sync(prepare_import, source, target)
        if not prepared.plan.add:
            said = f"Nothing to import from {source.path}:\n{prepared.plan.describe()}"
            self.notify(said, timeout=8, markup=False)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.run_operation("Import", lambda: self._import(prepared))

        self.push_screen(ConfirmScreen(prepared.question(), yes="Import"), answered)

    async def _import(self, prepared: PreparedImport) -> None:
        """Write the plan's additions, then reload and say what happened."""
        said, ok = await anyio.to_thread.run_sync(apply_prepared, prepared)
        report = await self.source.reload()
        if not report.reloaded:
            said += f"\n{report.summary}"
            ok = False
        self.notify(said, severity="information" if ok else "error", timeout=8, markup=False)

    def action_login(self) -> None:
        """L: log in to the URL server under the cursor, in a dialog; escape cancels."""
        current = self._current()
        if current is None:
            return
        server = current[1]
        if self.refuse_shadowed(server):
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
        screen = CallToolScreen(self.source, server.name, tool)
        self.last_call = screen.record
        self.push_screen(screen)

    def action_last_call(self) -> None:
        """C: the last call dialog again, with its result (or its progress)."""
        record = self.last_call
        if record is None:
            self.notify("No call yet: c calls the tool under the cursor.", timeout=3)
            return
        self.push_screen(CallToolScreen(self.source, record.server, record.tool, record))

    @on(PickerList.RowChosen, "#picker")
    def _selected(self) -> None:
        """enter: the details of the tool (or server) under the cursor."""
        current = self._current()
        if current is None:
            return
        row, server = current
        tool = server.tool(row.tool) if row.tool is not None else None
        if tool is None:
            self.push_screen(ServerDetailsScreen(server), self._details_closed(server.name))
        else:
            self.push_screen(ToolDetailsScreen(server, tool, self.catalog))

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

    def action_help(self) -> None:
        """?: every key."""
        model = self.model
        workspace = bool(model.shadowed) or any(s.source is not None for s in model.servers)
        self.push_screen(HelpScreen(workspace=workspace))
