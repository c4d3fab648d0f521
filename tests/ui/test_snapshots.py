"""SVG snapshots of the picker (stored in ``<repo>/snapshots/test_snapshots/``).

Every test feeds the app a fixed ``PluginModel`` through ``StaticSource``: no server runs, and
nothing in the picture depends on PIDs, paths, timings or a blinking cursor.
Update them with ``pytest tests/ui/test_snapshots.py --snapshot-update`` and look at each SVG.
"""

from __future__ import annotations

from collections.abc import Callable

import anyio
import anyio.lowlevel
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from agentty_tui.model import PluginModel
from agentty_tui.ui.app import PickerApp
from tests.ui.fakes import (
    StaticSource,
    connected_model,
    connecting_model,
    crashed_model,
    failed_model,
    hinted_model,
    model,
    over_budget_model,
    server,
    settle,
    titled_model,
    tool,
)

SnapCompare = Callable[..., bool]
SIZE = (100, 24)


def app_for(m: PluginModel) -> PickerApp:
    return PickerApp(StaticSource(m), follow=False)


async def no_blink(pilot: Pilot[None]) -> None:
    """Stop every cursor in the active screen from blinking."""
    await pilot.pause()
    for widget in pilot.app.screen.query("Input, TextArea"):
        assert isinstance(widget, Input | TextArea)
        widget.cursor_blink = False


def test_servers_connecting(snap_compare: SnapCompare) -> None:
    """Three servers, each marked ◌ and "connecting…"; the status bar says 3 connecting."""
    assert snap_compare(app_for(connecting_model()), terminal_size=SIZE)


def test_connected_tools_on_and_off(snap_compare: SnapCompare) -> None:
    """Two connected servers (●, "2/3 tools on"); [x] tools on, [ ] tools off and dimmed; the
    label column starts at the same place under both servers."""
    assert snap_compare(app_for(connected_model()), terminal_size=SIZE)


def test_failed_server_with_its_error(snap_compare: SnapCompare) -> None:
    """A connected server, a failed one (✗ in red, its error, the "R restarts" hint) and a
    disabled one (○, with the "space enables" hint)."""
    assert snap_compare(app_for(failed_model()), terminal_size=SIZE)


def test_failed_server_keeps_its_tools_dimmed(snap_compare: SnapCompare) -> None:
    """A server that failed after listing two tools: its row says "0 on the wire" before the
    error; its tools keep their [x] / [ ] setting, dimmed, as none of them ships; the status
    bar counts them as "2 not available", not as on."""
    assert snap_compare(app_for(crashed_model()), terminal_size=SIZE)


def test_over_budget_warning_and_trimmed_marks(snap_compare: SnapCompare) -> None:
    """Budget 6: three enabled tools marked "✂ trimmed", in a column of its own so that every
    label stays in line; the warning line below the status."""
    assert snap_compare(app_for(over_budget_model()), terminal_size=SIZE)


def test_hint_marks_and_task_only_mark(snap_compare: SnapCompare) -> None:
    """The server's hints as letters in a column after the names (R and W, D and I, none),
    and a task-only tool marked "⧗ needs task support" in the mark column; labels in line."""
    assert snap_compare(app_for(hinted_model()), terminal_size=SIZE)


def test_wide_terminal_shows_title_and_description_columns(snap_compare: SnapCompare) -> None:
    """At 130 columns: tool names, then a title column (blank for tools without a title),
    then each description's first line, all lined up across both servers."""
    assert snap_compare(app_for(titled_model()), terminal_size=(130, 24))


def test_add_form_with_validation_error(snap_compare: SnapCompare) -> None:
    """The add form after submitting a name but neither command nor URL: the error in red."""

    async def fill(pilot: Pilot[None]) -> None:
        await pilot.press("a")
        await pilot.pause()
        await pilot.press(*"weather", "enter")
        await no_blink(pilot)

    assert snap_compare(app_for(connected_model()), terminal_size=SIZE, run_before=fill)


def test_filtered_list(snap_compare: SnapCompare) -> None:
    """Filter "note": only the notes server and its tools; the filter field shows the text."""

    async def filter_rows(pilot: Pilot[None]) -> None:
        await pilot.press("slash", *"note")
        await no_blink(pilot)

    assert snap_compare(app_for(connected_model()), terminal_size=SIZE, run_before=filter_rows)


def test_tool_details(snap_compare: SnapCompare) -> None:
    """Details of notes/add_note: on, its wire name, "on the wire", not pinned and where a pin
    is kept (its config file), description and schema."""

    async def open_details(pilot: Pilot[None]) -> None:
        await pilot.press("down", "enter")

    assert snap_compare(app_for(connected_model()), terminal_size=SIZE, run_before=open_details)


def _priced_model() -> PluginModel:
    return model(
        server("cheap", tool("a", description="short"), tool("b", description="tiny")),
        server(
            "dear",
            tool("small", description="one").model_copy(update={"pinned": True}),
            tool("big", description="word " * 200),
            tool("off", enabled=False, description="word " * 100),
        ),
    )


async def _tokens_counted(pilot: Pilot[None]) -> None:
    app = pilot.app
    assert isinstance(app, PickerApp)
    with anyio.fail_after(30):
        while app._counting:
            await settle(app, "costs")
            await anyio.lowlevel.checkpoint()
    await pilot.pause()


def test_token_column_and_server_totals(snap_compare: SnapCompare) -> None:
    """Each tool's tokens right-aligned after its name (an off tool's too), each connected
    server's tokens of its tools on, the total in the status bar; dear's small is pinned (⚑)."""
    app = PickerApp(StaticSource(_priced_model()), follow=False, count_tokens=True)
    assert snap_compare(app, terminal_size=SIZE, run_before=_tokens_counted)


def test_sorted_by_cost(snap_compare: SnapCompare) -> None:
    """``s``: the dearest server first, its dearest tool first; the status bar says "by cost"."""

    async def sort(pilot: Pilot[None]) -> None:
        await _tokens_counted(pilot)
        await pilot.press("s")
        await pilot.pause()

    app = PickerApp(StaticSource(_priced_model()), follow=False, count_tokens=True)
    assert snap_compare(app, terminal_size=SIZE, run_before=sort)


READING = ("reading ~/.claude.json (16.6 MiB): its servers are shown once it is read",)
"""The line of a first frame shown before a large ``~/.claude.json`` is read."""


def test_first_frame_while_a_large_file_is_read(snap_compare: SnapCompare) -> None:
    """Three servers of the fast files, connecting; above them, in the config bar, "reading
    ~/.claude.json (16.6 MiB): its servers are shown once it is read"."""
    reading = connecting_model().model_copy(update={"reading": READING})
    assert snap_compare(app_for(reading), terminal_size=SIZE)


def test_first_frame_with_every_server_in_a_file_being_read(snap_compare: SnapCompare) -> None:
    """No server in the fast files: the bar says the file is being read, and the list says
    "Reading the workspace's files (see above): their servers come next.", not "No servers"."""
    reading = PluginModel(config_path="/home/ada/src/app", reading=READING)
    assert snap_compare(app_for(reading), terminal_size=SIZE)
