"""The picker and its dialogs at 80×24 and 60×20: everything in reach, nothing cut.

Each test reads the frame as text (``screen_text``), so a line cut at the right or a button
below the screen's last row is missing from it.
"""

from __future__ import annotations

import pytest
from textual.widgets import Static

from agentty_tui.ui.app import PickerApp
from tests.ui.fakes import StaticSource, connected_model, over_budget_model, settle
from tests.ui.screen_text import screen_text
from tests.ui.test_dialog_snapshots import LONG_RESULT

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_help_scrolls_to_its_last_line(size: tuple[int, int]) -> None:
    app = PickerApp(StaticSource(connected_model()), follow=False)
    async with app.run_test(size=size) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        await pilot.press("end")
        await pilot.pause()
        text = screen_text(app)
        assert "nobody answers" in text  # the end of the last section: the dialogs' keys
        assert "escape closes" in text


async def test_wrapped_help_text_stays_in_its_column() -> None:
    app = PickerApp(StaticSource(connected_model()), follow=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        lines = screen_text(app).splitlines()
        first = next(i for i, line in enumerate(lines) if "tool on / off;" in line)
        column = lines[first].index("tool on / off;")
        rest = lines[first + 1]
        # The second line of the text starts where the first one did, under no key.
        assert rest[column] != " "
        assert rest[column - 1] == " "
        border = rest.rindex("│", 0, column)
        assert rest[border + 1 : column].strip() == ""


async def test_call_result_is_reachable_at_80x24() -> None:
    source = StaticSource(connected_model())
    source.call_text = LONG_RESULT
    app = PickerApp(source, follow=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("down", "c")
        await pilot.pause()
        await pilot.press("ctrl+s")
        await settle(app, "call")
        await pilot.pause()
        await pilot.pause()
        assert "result line 01" in screen_text(app)
        await pilot.press("end")
        await pilot.pause()
        assert "result line 40" in screen_text(app)


async def test_add_form_buttons_are_on_screen_at_60x20() -> None:
    app = PickerApp(StaticSource(connected_model()), follow=False)
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.press("a")
        await pilot.pause()
        text = screen_text(app)
        assert "Add " in text
        assert "Cancel" in text


async def test_status_warning_and_keys_wrap_at_60x20() -> None:
    app = PickerApp(StaticSource(over_budget_model()), follow=False)
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        flat = " ".join(" ".join(screen_text(app).split()).split(" "))
        assert "6/6 on the wire" in flat
        assert "disable some to make room" in flat
        assert "? help" in flat
        assert "q quit" in flat


async def test_toasts_leave_the_budget_warning_visible() -> None:
    app = PickerApp(StaticSource(over_budget_model()), follow=False)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        app.notify("Config reloaded: 1 added, 1 restarted.", timeout=30)
        app.notify("a second notification", timeout=30)
        await pilot.pause(0.1)
        warning = app.query_one("#warning", Static).region
        status = app.query_one("#status", Static).region
        toasts = [toast.region for toast in app.screen.query("Toast")]
        assert toasts
        for toast in toasts:
            assert not toast.overlaps(warning)
            assert not toast.overlaps(status)


async def test_key_bar_shows_every_everyday_key() -> None:
    app = PickerApp(StaticSource(connected_model()), follow=False)
    async with app.run_test(size=(100, 50)) as pilot:
        await pilot.pause()
        bar = " ".join(str(app.query_one("#keys", Static).render()).split())
        for hint in ("enter details", "space on/off", "e all on", "x all off", "R restart"):
            assert hint in bar
        await pilot.press("question_mark")
        await pilot.pause()
        text = " ".join(screen_text(app).split())
        assert "enter details of the tool or the server" in text
