"""SVG snapshots of the picker in a workspace (stored in ``snapshots/test_workspace_snapshots``).

A fixed workspace model (``workspace_fakes``) through ``StaticSource``: no server runs, every
path is a fixed string, nothing races. Update with
``pytest tests/ui/test_workspace_snapshots.py --snapshot-update`` and look at each SVG.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.containers import VerticalScroll
from textual.pilot import Pilot

from agentty_tui.ui.app import PickerApp
from tests.ui.fakes import StaticSource
from tests.ui.test_snapshots import no_blink
from tests.ui.workspace_fakes import OUR_USER, WorkspaceSource, workspace_model

SnapCompare = Callable[..., bool]


def app_for_workspace() -> PickerApp:
    return PickerApp(StaticSource(workspace_model()), follow=False)


def test_workspace_rows_with_sources_a_shadowed_entry_and_untrusted_servers(
    snap_compare: SnapCompare,
) -> None:
    """Every server row shows its source, dim, in one column (``claude · local``, ``project
    .mcp.json``, ``agentty · user``, ``claude · user +1`` for the server two files hold); our
    user file's ``notes`` is a dim ◇ row under Claude Code's ``notes`` and its tools, reading
    ``shadowed by claude · local``; the two project servers read ``not trusted — T to trust``
    with what they run (``runs: python -m demo.repo_tool 'https://…?token=••••'``, ``url:
    https://…?api_key=••••``); the status bar says ``2 untrusted · 1 shadowed``."""
    assert snap_compare(app_for_workspace(), terminal_size=(110, 24))


def test_workspace_at_70_columns_drops_the_source_column_first(snap_compare: SnapCompare) -> None:
    """At 70 columns the source column is gone; names and statuses keep their places, the
    shadowed row still says which file wins."""
    assert snap_compare(app_for_workspace(), terminal_size=(70, 24))


def test_details_of_a_shadowed_entry(snap_compare: SnapCompare) -> None:
    """enter on the shadowed ``notes``: status shadowed, its own file (our user file), the
    file whose entry wins (``~/.claude.json``, claude · local), its own command."""

    async def open_details(pilot: Pilot[None]) -> None:
        assert pilot.app.picker.select_key(("shadowed", "notes", OUR_USER.path, "user"))  # type: ignore[attr-defined]
        await pilot.press("enter")

    assert snap_compare(app_for_workspace(), terminal_size=(80, 24), run_before=open_details)


@pytest.mark.parametrize("size", [(80, 24), (60, 20)], ids=["80x24", "60x20"])
def test_add_form_in_a_workspace_asks_for_the_file(
    snap_compare: SnapCompare, size: tuple[int, int]
) -> None:
    """The add form of a workspace, scrolled to its end: under the connection fields a "File"
    choice showing ``agentty · user  /home/ada/.config/agentty/mcp.json`` (the default), then
    the Add and Cancel buttons (one-line fields and choice at 60×20)."""

    async def open_form(pilot: Pilot[None]) -> None:
        await pilot.press("a")
        await no_blink(pilot)
        pilot.app.screen.query_one("#add-form", VerticalScroll).scroll_end(animate=False)
        await pilot.pause()

    app = PickerApp(WorkspaceSource(workspace_model()), follow=False)
    assert snap_compare(app, terminal_size=size, run_before=open_form)
