"""The picker's operations: what the keys that change something do, dispatched to the source.

``PickerOperations`` is the base of ``PickerApp``: it holds the actions that ask the
``PluginSource`` to change the plugins (turn tools on and off, add, remove, reload, restart,
enable, trust), each run in a worker so that the UI never waits on a server, and
each failure turned into a notification. It decides nothing the source decides: it picks the
server or tool under the cursor, asks, and says how it went. The view (rows, bars, the
filter, folding) is ``app.py``'s; the actions that open a dialog first (add, edit, import,
log in, call) are ``PickerDialogs``' (``dialog_actions.py``).

Every notification, whoever raises it, goes through ``notify`` here, as plain text: messages
quote server names, errors and paths, which are never markup and never reach the terminal with
their controls.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from textual.app import App
from textual.notifications import SeverityLevel

from agentty_tui.config.trust import entry_hash
from agentty_tui.errors import AgenttyError, EntryChangedError
from agentty_tui.model import HttpSpec, PluginModel, ServerState, ToolState
from agentty_tui.terminal_text import safe_block, safe_line
from agentty_tui.ui.dialogs import ConfirmScreen
from agentty_tui.ui.picker import PickerList
from agentty_tui.ui.row_source import is_project_untrusted, shadowed_key, trust_lines
from agentty_tui.ui.rows import Row
from agentty_tui.ui.source import PluginSource

__all__ = ["PickerOperations"]

log = logging.getLogger(__name__)


class PickerOperations(App[None]):
    """The actions of the picker that dispatch operations to ``source`` (see the module)."""

    source: PluginSource
    """Where snapshots come from and operations go."""
    model: PluginModel
    """The snapshot on screen."""

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
        if row.kind == "shadowed":  # the hidden entry itself, never the one that wins
            hidden = (s for s in self.model.shadowed if shadowed_key(s) == row.key)
            found = next(hidden, None)
            return None if found is None else (row, found)
        server = self.model.server(row.server)
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
                self.notify(f"{done} {name!r}: {tools_on(state)}.", timeout=3)
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
        if current[1].status == "shadowed" and not on:
            self.action_remove()  # x on a hidden entry: it has no tools, only its file entry
            return
        if self.refuse_shadowed(current[1]):
            return
        name = current[1].name
        self.run_operation(
            "All on" if on else "All off", lambda: self.source.tools_set_enabled(name, on)
        )

    def action_remove(self) -> None:
        """d: remove the server under the cursor, after a confirmation."""
        current = self._current()
        if current is None:
            return
        state = current[1]
        name, where = state.name, state.source
        if state.status == "shadowed" and where is not None:
            question = remove_shadowed_question(state)

            def remove() -> Awaitable[PluginModel]:
                return self.source.plugin_remove(name, source=where)
        else:
            file = "the config" if where is None else safe_line(where.path)
            question = f"Remove server {name!r} from {file}?\n{remove_effect(state)}"

            # The file the question names: a reload meanwhile may have put another file's
            # entry of that name in front, which the user did not agree to remove.
            def remove() -> Awaitable[PluginModel]:
                return self.source.plugin_remove(name, source=where)

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.run_operation("Remove", remove)

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

        question = f"{problem}\n\nTrust it for this run and start its servers as you?"
        self.push_screen(ConfirmScreen(question, yes="Trust"), confirmed)

    def _trust_server(self, state: ServerState, *, changed: bool = False) -> None:
        """Ask, then trust one waiting server of a workspace (the bridge decides how long):
        the entry as the dialog shows it, by its hash, never whatever the file holds when the
        user answers; ``changed``: asked again, after the entry changed under the question."""
        name = state.name
        where = f" of {safe_line(state.source.path)}" if state.source else ""
        shown = {name: entry_hash(state)}

        def trust_it(yes: bool | None) -> None:
            if yes:
                self.run_operation("Trust", lambda: self._trust_as_shown(name, shown))

        facts = "\n".join(trust_lines(state))
        lead = "Its entry changed while you were asked; this is it now.\n\n" if changed else ""
        if is_project_untrusted(state):
            question = (
                f"{lead}Trust the project server {name!r}{where}?\n{facts}\n\n"
                "It starts now, and in later runs while its entry stays the same."
            )
        else:  # a file others can write
            question = (
                f"{lead}{state.error or 'Its file is not trusted.'}\n\nTrust {name!r}{where} "
                f"for this run and start it as you?\n{facts}"
            )
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


_NOT_RUNNING = {
    "untrusted": "not trusted",
    "disabled": "disabled",
    "failed": "it failed",
    "needs_login": "it needs a login",
}


def remove_effect(state: ServerState) -> str:
    """What removing the server does besides the file: its process stopped, its connection
    ended (a URL server has no process of ours), or nothing, when neither runs."""
    remote = isinstance(state.spec, HttpSpec)
    if state.status in ("connecting", "connected"):
        return "It is disconnected." if remote else "Its process is stopped."
    why = _NOT_RUNNING.get(state.status)
    what = "It is not connected" if remote else "It is not running"
    return f"{what}{f' ({why})' if why else ''}, so nothing is stopped."


def tools_on(state: ServerState) -> str:
    """``2 tools``, or ``1 of 2 tools on`` when the filter keeps some off."""
    total = len(state.tools)
    on = sum(1 for tool in state.tools if tool.enabled)
    plural = "tool" if total == 1 else "tools"
    return f"{total} {plural}" if on == total else f"{on} of {total} {plural} on"


def remove_shadowed_question(state: ServerState) -> str:
    """The confirmation of removing a shadowed entry from its own file."""
    by = state.shadowed_by
    where = safe_line(state.source.path) if state.source is not None else "its file"
    winner = f"{by.label} ({safe_line(by.path)})" if by is not None else "another file"
    return (
        f"Remove the entry {state.name!r} from {where}?\n"
        f"It is shadowed by {winner}, which stays and keeps running."
    )
