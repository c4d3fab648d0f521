"""The picker's operations: what the keys that change something do, dispatched to the source.

``PickerOperations`` is the base of ``PickerApp``: it holds the actions that ask the
``PluginSource`` to change the plugins (turn tools on and off, add, remove, reload, restart,
enable, trust, log in, call), each run in a worker so that the UI never waits on a server, and
each failure turned into a notification. It decides nothing the source decides: it picks the
server or tool under the cursor, asks, and says how it went. The view (rows, bars, the
filter, folding) is ``app.py``'s.

Every notification, whoever raises it, goes through ``notify`` here, as plain text: messages
quote server names, errors and paths, which are never markup and never reach the terminal with
their controls.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
from textual.app import App
from textual.notifications import SeverityLevel

from agentty_tui.config.discover import HostFile
from agentty_tui.errors import AgenttyError
from agentty_tui.model import HttpSpec, PluginModel, ServerSpec, ServerState, ToolState
from agentty_tui.terminal_text import safe_block, safe_line
from agentty_tui.ui.add import AddServerScreen
from agentty_tui.ui.call import CallRecord, CallToolScreen
from agentty_tui.ui.dialogs import ConfirmScreen
from agentty_tui.ui.edit import EditServerScreen
from agentty_tui.ui.import_dialog import ImportScreen, import_host_file
from agentty_tui.ui.login import LoginScreen
from agentty_tui.ui.picker import PickerList
from agentty_tui.ui.rows import Row, server_key
from agentty_tui.ui.source import PluginSource

__all__ = ["PickerOperations"]

log = logging.getLogger(__name__)


class PickerOperations(App[None]):
    """The actions of the picker that dispatch operations to ``source`` (see the module)."""

    source: PluginSource
    """Where snapshots come from and operations go."""
    model: PluginModel
    """The snapshot on screen."""
    last_call: CallRecord | None
    """The last call dialog's call, for ``C`` (its result outlives the dialog)."""
    find_host_files: Callable[[Path | None], tuple[HostFile, ...]]
    """Looks for other hosts' config files (all but the given config) to offer to import."""
    _host_files: tuple[HostFile, ...] | None = None

    @property
    def picker(self) -> PickerList:
        """The list of rows."""
        return self.query_one("#picker", PickerList)

    def show_snapshot(self, model: PluginModel) -> None:
        """Make ``model`` the snapshot on screen (the app renders it)."""
        raise NotImplementedError

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

    def action_edit_server(self) -> None:
        """E: the edit form of the server under the cursor; saving restarts that server."""
        current = self._current()
        if current is None:
            return
        server = current[1]
        if server.spec is None:
            self.notify("The entry is invalid: fix it in the config file.", severity="error")
            return
        name = server.name

        def edited(spec: ServerSpec | None) -> None:
            if spec is not None:
                self.run_operation("Edit", lambda: self.source.plugin_update(name, spec))

        others = [s.name for s in self.model.servers if s.name != name]
        self.push_screen(EditServerScreen(name, server.spec, others), edited)

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

    def host_files(self) -> tuple[HostFile, ...]:
        """The other hosts' config files found, looked for once (the first run lists them)."""
        if self._host_files is None:
            config = self.model.config_path
            self._host_files = self.find_host_files(Path(config) if config else None)
        return self._host_files

    def action_import_host(self) -> None:
        """i: import the servers of another host's config file into this one, then reload."""
        target = self.model.config_path
        files = self.host_files()
        if target is None or not files:
            self.notify("No other host's config file was found to import.", timeout=4)
            return

        async def imported(source: HostFile) -> None:
            said, ok = await anyio.to_thread.run_sync(import_host_file, source, Path(target))
            report = await self.source.reload()
            if not report.reloaded:
                said += f"\n{report.summary}"
                ok = False
            self.notify(said, severity="information" if ok else "error", timeout=8, markup=False)

        def chosen(source: HostFile | None) -> None:
            if source is not None:
                self.run_operation("Import", lambda: imported(source))

        self.push_screen(ImportScreen(files, target), chosen)

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
