"""outcomes.py: what an operation's result means, as the notification the picker shows."""

from __future__ import annotations

from agentty_tui.bridge.reload_report import ReloadReport
from agentty_tui.model import HostView, ToolFilter
from agentty_tui.ui.outcomes import (
    Notice,
    outside_reload_notice,
    reload_notice,
    start_notice,
    still_on_notice,
    tools_on,
)
from tests.ui.fakes import model, server, tool
from tests.ui.workspace_fakes import CODEX_USER, workspace_model


def test_a_start_is_reported_once_it_left_connecting() -> None:
    """Nothing while connecting; connected counts the tools that are on; a login is asked
    for; a failure says why, and whether it failed before."""
    some_off = server("notes", tool("a"), tool("b", enabled=False))
    assert (
        start_notice(some_off.model_copy(update={"status": "connecting"}), "Enabled", again=False)
        is None
    )
    assert start_notice(some_off, "Enabled", again=False) == Notice(
        "Enabled 'notes': 1 of 2 tools on.", timeout=3
    )
    login = start_notice(server("remote", status="needs_login"), "Restarted", again=False)
    assert login == Notice("Server 'remote' needs a login: L logs in.", severity="warning")
    broken = server("broken", status="failed", error="command not found")
    assert start_notice(broken, "Restarted", again=True) == Notice(
        "Server 'broken' failed again: command not found", title="Start", severity="error"
    )
    assert start_notice(server("odd", status="failed"), "Restarted", again=False) == Notice(
        "Server 'odd' failed (failed)", title="Start", severity="error"
    )


def test_tools_on_counts_only_the_tools_that_are_on() -> None:
    assert tools_on(server("one", tool("a"))) == "1 tool"
    assert tools_on(server("two", tool("a"), tool("b"))) == "2 tools"
    assert tools_on(server("half", tool("a"), tool("b", enabled=False))) == "1 of 2 tools on"


def test_a_tool_switched_off_that_a_host_still_sends_says_which_host() -> None:
    time = workspace_model().server("time")
    assert time is not None and time.source is not None
    cursor = HostView(source=CODEX_USER.model_copy(update={"host": "cursor"}))
    claude = HostView(source=time.source, tools=ToolFilter(exclude=("now",)))
    both = time.model_copy(update={"hosts": (claude, cursor)})
    notice = still_on_notice(both, "now")
    assert notice is not None and (notice.title, notice.severity) == ("Toggle", "warning")
    assert notice.message == (
        "now stays on: Cursor still sends it (no per-tool switch in its files); the others "
        "leave it out."
    )
    off = both.model_copy(
        update={"tools": tuple(t.model_copy(update={"enabled": False}) for t in both.tools)}
    )
    assert still_on_notice(off, "now") is None
    assert still_on_notice(None, "now") is None


def test_a_reload_says_what_it_changed_and_an_outside_no_op_says_nothing() -> None:
    snapshot = model()
    nothing = ReloadReport(snapshot)
    added = ReloadReport(snapshot, added=("notes",))
    failed = ReloadReport(snapshot, error="mcp.json: not JSON")
    assert reload_notice(nothing) == Notice("Config reloaded: nothing changed.", timeout=3)
    assert reload_notice(failed) == Notice(
        "Config not reloaded: mcp.json: not JSON", severity="error", timeout=8
    )
    assert outside_reload_notice(nothing) is None
    assert outside_reload_notice(added) == Notice(
        "Outside edit: Config reloaded: 1 added.", timeout=4
    )
    assert outside_reload_notice(failed) == Notice(
        "Outside edit: Config not reloaded: mcp.json: not JSON", severity="error", timeout=8
    )
