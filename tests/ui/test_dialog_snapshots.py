"""SVG snapshots of every dialog at 80×24 and 60×20 (stored in ``snapshots/test_dialog_snapshots``).

Each dialog must fit or scroll on a small terminal: nothing cut at the right, the buttons and
the last line in reach. Fixed models through ``StaticSource``; no server runs. Update with
``pytest tests/ui/test_dialog_snapshots.py --snapshot-update`` and look at each SVG.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import anyio
import pytest
from textual.pilot import Pilot
from textual.widgets import TextArea

from agentty_tui.config.discover import HostFile
from agentty_tui.model import HttpSpec, PluginModel, ServerState, SourceRef, StdioSpec
from agentty_tui.ui.app import PickerApp
from tests.ui.fakes import (
    StaticSource,
    connected_model,
    hinted_model,
    model,
    over_budget_model,
    server,
    settle,
    tool,
)
from tests.ui.test_snapshots import no_blink

SnapCompare = Callable[..., bool]
SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((60, 20), id="60x20")]

LONG_RESULT = "\n".join(f"result line {i:02d}" for i in range(1, 41))
"""A call result taller than any of the two terminals."""


def remote_model() -> PluginModel:
    """One URL server waiting for a login."""
    remote = ServerState(
        name="remote",
        spec=HttpSpec(url="http://127.0.0.1:1/mcp"),
        status="needs_login",
        error="needs login: run agentty-tui login remote",
    )
    return model(remote)


@pytest.mark.parametrize("size", SIZES)
def test_help(snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    """The help: keys in one column, descriptions wrapped under their own column; at 60×20 the
    dialog fills the screen with a scroll bar."""

    async def open_help(pilot: Pilot[None]) -> None:
        await pilot.press("question_mark")

    app = PickerApp(StaticSource(connected_model()), follow=False)
    assert snap_compare(app, terminal_size=size, run_before=open_help)


@pytest.mark.parametrize("size", SIZES)
def test_help_scrolled_to_the_end(snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    """The help after `end`: its last keys (`?`, `q`) and the "escape closes" line in view."""

    async def open_help(pilot: Pilot[None]) -> None:
        await pilot.press("question_mark")
        await pilot.pause()
        await pilot.press("end")

    app = PickerApp(StaticSource(connected_model()), follow=False)
    assert snap_compare(app, terminal_size=size, run_before=open_help)


@pytest.mark.parametrize("size", SIZES)
def test_add_form(snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    """The add form, empty, with its Add and Cancel buttons on screen (one-line fields at
    60×20)."""

    async def open_form(pilot: Pilot[None]) -> None:
        await pilot.press("a")
        await no_blink(pilot)

    app = PickerApp(StaticSource(connected_model()), follow=False)
    assert snap_compare(app, terminal_size=size, run_before=open_form)


@pytest.mark.parametrize("size", SIZES)
def test_call_dialog_with_a_long_result(snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    """The call dialog after a call answered 40 lines: scrolled so the result starts at the top
    of the dialog ("result line 01")."""

    async def call(pilot: Pilot[None]) -> None:
        await pilot.press("down", "c")
        await pilot.pause()
        await pilot.press("ctrl+s")
        await settle(pilot.app, "call")
        await no_blink(pilot)
        await pilot.pause()

    source = StaticSource(connected_model())
    source.call_text = LONG_RESULT
    app = PickerApp(source, follow=False)
    assert snap_compare(app, terminal_size=size, run_before=call)


@pytest.mark.parametrize("size", SIZES)
def test_remove_confirmation(snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    """The remove confirmation of server notes: the question, Remove and Cancel, the hint."""

    async def ask(pilot: Pilot[None]) -> None:
        await pilot.press("d")

    app = PickerApp(StaticSource(connected_model()), follow=False)
    assert snap_compare(app, terminal_size=size, run_before=ask)


@pytest.mark.parametrize("size", SIZES)
def test_login_dialog(snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    """The login dialog of a URL server: the authorization URL in full (wrapped), the progress
    line and the paste field."""

    async def log_in(pilot: Pilot[None]) -> None:
        await pilot.press("L")
        await pilot.pause()
        await no_blink(pilot)
        await pilot.pause()

    app = PickerApp(StaticSource(remote_model()), follow=False)
    assert snap_compare(app, terminal_size=size, run_before=log_in)


def test_picker_at_60x20_over_budget(snap_compare: SnapCompare) -> None:
    """The picker at 60×20 over budget: the status line and the budget warning wrap, and the
    key bar wraps onto a second line, nothing cut at the right."""
    app = PickerApp(StaticSource(over_budget_model()), follow=False)
    assert snap_compare(app, terminal_size=(60, 20))


@pytest.mark.parametrize("size", SIZES)
def test_edit_form(snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    """The edit form of a command server: its command line and folder, its env names with the
    values masked (••••), empty URL and headers, the Save and Cancel buttons."""
    spec = StdioSpec(command="npx", args=("-y", "server-memory"), env={"TOKEN": "x"}, cwd="/srv")
    served = ServerState(name="memory", spec=spec, status="connected")

    async def open_form(pilot: Pilot[None]) -> None:
        await pilot.press("E")
        await no_blink(pilot)

    app = PickerApp(StaticSource(model(served)), follow=False)
    assert snap_compare(app, terminal_size=size, run_before=open_form)


SAMPLE_LOG = Path(__file__).parent / "data" / "memory.log"
"""A fixed log of 31 lines, each with its time: longer than either terminal."""


@pytest.mark.parametrize("size", SIZES)
def test_log_viewer(
    snap_compare: SnapCompare, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The log viewer (`l`) of a server: its title, the log's path, the log's last lines
    followed to the end (line 30 and the "escape closes" hint in view), scrolled in the dialog
    with a scroll bar, nothing cut at the right."""
    # A relative path, so that the snapshot does not depend on where the clone is.
    monkeypatch.chdir(SAMPLE_LOG.parents[3])
    served = ServerState(
        name="memory",
        spec=StdioSpec(command="npx", args=("-y", "server-memory")),
        status="connected",
        log_path=str(SAMPLE_LOG.relative_to(SAMPLE_LOG.parents[3])),
    )

    async def open_log(pilot: Pilot[None]) -> None:
        await pilot.press("l")
        await pilot.pause()
        await pilot.pause()

    app = PickerApp(StaticSource(model(served)), follow=False)
    assert snap_compare(app, terminal_size=size, run_before=open_log)


FOUND_HOST_FILES = (
    HostFile("Claude Code", Path("/home/ada/.claude.json"), "claude", 3),
    HostFile("Cursor", Path("/home/ada/.cursor/mcp.json"), "claude", 0, "not JSON: line 2"),
    HostFile("Codex", Path("/home/ada/.codex/config.toml"), "codex", 1),
)
"""What a first run could find: two files to import and one that cannot be read."""


@pytest.mark.parametrize("size", SIZES)
def test_first_run_and_the_import_dialog(snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    """An empty config after `i`: the import dialog lists the three host files with their
    server counts (Cursor's greyed, with its problem), the target config and the hint."""

    async def open_import(pilot: Pilot[None]) -> None:
        await pilot.pause()
        await pilot.press("i")
        await pilot.pause()

    app = PickerApp(StaticSource(model()), follow=False, host_files=lambda _: FOUND_HOST_FILES)
    assert snap_compare(app, terminal_size=size, run_before=open_import)


def test_first_run_lists_other_hosts_files(snap_compare: SnapCompare) -> None:
    """An empty config at 60×20: "press a to add one, or i to import" and the files found,
    one a line, wrapped inside the screen."""
    app = PickerApp(StaticSource(model()), follow=False, host_files=lambda _: FOUND_HOST_FILES)
    assert snap_compare(app, terminal_size=(60, 20))


@pytest.mark.parametrize("size", SIZES)
def test_tool_details(snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    """A tool's details: its facts (server, wire name, on the wire, not pinned, pins kept in
    its config file), its description and its input schema; at 60×20 the dialog fills the
    screen with a scroll bar."""

    async def open_details(pilot: Pilot[None]) -> None:
        await pilot.press("down")  # the first tool of the first server
        await pilot.press("enter")
        await no_blink(pilot)

    app = PickerApp(StaticSource(connected_model()), follow=False)
    assert snap_compare(app, terminal_size=size, run_before=open_details)


@pytest.mark.parametrize("size", SIZES)
def test_server_details_of_a_failed_server(
    snap_compare: SnapCompare, size: tuple[int, int]
) -> None:
    """A failed server's details: its status, its command, and its whole error wrapped inside
    the dialog under "Error", with "escape closes" in reach."""
    error = "exited with status 1: " + " ".join(f"stderr line {i:02d}." for i in range(1, 31))
    broken = ServerState(
        name="broken", spec=StdioSpec(command="broken-server"), status="failed", error=error
    )

    async def open_details(pilot: Pilot[None]) -> None:
        await pilot.press("enter")
        await no_blink(pilot)

    app = PickerApp(StaticSource(model(broken)), follow=False)
    assert snap_compare(app, terminal_size=size, run_before=open_details)


@pytest.mark.parametrize("size", SIZES)
def test_call_dialog_with_progress(
    snap_compare: SnapCompare, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A running call that reported 3 of 4 with a message: the bar, the count, the message
    (its markup and controls shown as text), the time run, and the hint saying escape cancels
    and ctrl+b leaves it running."""
    from types import SimpleNamespace

    from agentty_tui.ui import call as call_module
    from tests.ui.test_call_dialog import ReportingSource

    # A clock that stands still: the time run is 0 s whenever the picture is taken.
    monkeypatch.setattr(call_module, "time", SimpleNamespace(monotonic=lambda: 100.0))

    async def calling(pilot: Pilot[None]) -> None:
        await pilot.press("down", "c")
        await pilot.pause()
        await pilot.press("ctrl+s")
        # Until the dialog's timer drew the second report (a loaded machine may take seconds).
        with anyio.fail_after(30):
            while "page[/b] 3" not in str(pilot.app.screen.query_one("#call-progress").render()):
                await pilot.pause(0.05)
            # And until the arguments hold the focus (their cursor is drawn only then): on a
            # loaded machine the dialog's focus may land after its first reports.
            while not isinstance(pilot.app.screen.focused, TextArea):
                await pilot.pause(0.05)
        await no_blink(pilot)

    app = PickerApp(ReportingSource(connected_model()), follow=False)
    assert snap_compare(app, terminal_size=size, run_before=calling)


@pytest.mark.parametrize("size", SIZES)
def test_tool_details_with_hints(snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    """A tool's details with the server's hints spelled out, said to be the server's and not
    verified, with the row marks' legend; its hostile title shown as text."""

    async def open_details(pilot: Pilot[None]) -> None:
        await pilot.press("down")
        await pilot.press("enter")
        await no_blink(pilot)

    app = PickerApp(StaticSource(hinted_model()), follow=False)
    assert snap_compare(app, terminal_size=size, run_before=open_details)


def test_task_only_tool_details(snap_compare: SnapCompare) -> None:
    """A task-only tool's details: off the wire, for want of task support, and why."""

    async def open_details(pilot: Pilot[None]) -> None:
        await pilot.press("down", "down", "down", "down")
        await pilot.press("enter")
        await no_blink(pilot)

    app = PickerApp(StaticSource(hinted_model()), follow=False)
    assert snap_compare(app, terminal_size=(80, 24), run_before=open_details)


def pinned_codex_model() -> PluginModel:
    """A Codex server whose pins agentty's pin store keeps (Codex's file cannot hold them),
    with one tool pinned, and one server of our own file with a priority."""
    codex = server(
        "github",
        tool("search_issues", description="Search issues.", query="string"),
        tool("create_issue", description="Create an issue.", title="string"),
    )
    tools = (codex.tools[0].model_copy(update={"pinned": True}), *codex.tools[1:])
    codex = codex.model_copy(
        update={
            "tools": tools,
            "source": SourceRef(path="/home/u/.codex/config.toml", scope="user", host="codex"),
            "pins_kept_in": "/home/u/.config/agentty/pins.json",
        }
    )
    ours = server("notes", tool("add_note", description="Add a note.", text="string"))
    return model(codex, ours.model_copy(update={"priority": 1}))


@pytest.mark.parametrize(
    ("keys", "shows"),
    [
        pytest.param(("down",), "tool", id="tool"),
        pytest.param((), "server", id="server"),
        pytest.param(("down", "down", "down"), "own", id="own-file"),
    ],
)
def test_details_say_what_is_pinned_and_where_the_pins_are_kept(
    snap_compare: SnapCompare, keys: tuple[str, ...], shows: str
) -> None:
    """The details' pin lines: `tool`, a pinned tool of a Codex server ("pin  pinned (p unpins
    it)", "pins kept  in agentty's pin store:", its path, "(Codex's file cannot hold pins)");
    `server`, that server's details (its pinned tool named, the same store); `own-file`, a
    server of our own file with a priority ("pinned  every tool (priority 1)", "pins kept  in
    its config file: tools.pin and "priority"")."""

    async def open_details(pilot: Pilot[None]) -> None:
        await pilot.press(*keys, "enter")
        await no_blink(pilot)

    app = PickerApp(StaticSource(pinned_codex_model()), follow=False)
    assert snap_compare(app, terminal_size=(80, 24), run_before=open_details)
