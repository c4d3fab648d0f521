"""PickerList: in-place updates keep the painted lines consistent with the rows, and it scales."""

from __future__ import annotations

from typing import Any, Self

import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.geometry import Region

from agentty_tui.catalog import project_catalog
from agentty_tui.model import PluginModel
from agentty_tui.ui.picker import PickerList
from agentty_tui.ui.rows import Row, build_rows
from tests.ui.fakes import model, server, tool

pytestmark = pytest.mark.anyio


class ListApp(App[None]):
    CSS_PATH = "../../agentty_tui/ui/picker.tcss"

    def compose(self) -> ComposeResult:
        yield PickerList(id="picker")


def rows_of(m: PluginModel) -> tuple[Row, ...]:
    return build_rows(m, project_catalog(m))


def assert_consistent(picker: PickerList) -> None:
    """The list holds the rows, in order, one line each, and every line in view paints its row."""
    assert picker.option_count == len(picker.rows)
    assert picker.virtual_size.height == len(picker.rows)
    top, height = picker.scroll_offset.y, picker.scrollable_content_region.height
    for y in range(height):
        index = top + y
        expected = picker.rows[index].text if index < len(picker.rows) else ""
        assert line_text(picker, y).rstrip() == expected.rstrip()


async def test_splices_and_replacements_keep_the_list_consistent() -> None:
    app = ListApp()
    async with app.run_test() as pilot:
        picker = app.query_one(PickerList)
        picker.show_rows(rows_of(model(server("a", tool("x"), tool("y")), server("b", tool("z")))))
        picker.select_key(("tool", "a", "y"))
        steps = [
            model(server("a", tool("w"), tool("x"), tool("y")), server("b", tool("z"))),
            model(server("a", tool("y", enabled=False)), server("c"), server("b", tool("z"))),
            model(server("b", tool("z"), tool("q")), server("a", tool("y"))),
            model(),
            model(server("a", tool("y"))),
        ]
        for number, step in enumerate(steps):
            picker.show_rows(rows_of(step))
            await pilot.pause()
            assert_consistent(picker)
            row = picker.current_row
            if number < 3:  # the cursor stays on a/y while it exists
                assert row is not None and row.key == ("tool", "a", "y")
        assert picker.highlighted == 0  # after the empty list: the first row


async def test_five_thousand_rows_populate_and_update_in_place() -> None:
    """50 servers of 100 tools: a toggle and an insert keep the cursor and the list consistent.

    How fast this is, is measured by bench/, not asserted here.
    """
    servers = [server(f"s{i:02d}", *(tool(f"t{j:03d}") for j in range(100))) for i in range(50)]
    toggled = list(servers)
    s25 = servers[25]
    tools = tuple(t.model_copy(update={"enabled": t.bare != "t050"}) for t in s25.tools)
    toggled[25] = s25.model_copy(update={"tools": tools})
    revealed = list(toggled)
    revealed[10] = servers[10].model_copy(
        update={"tools": (*servers[10].tools, tool("new_1"), tool("new_2"))}
    )
    first, second, third = (rows_of(model(*s, budget=10_000)) for s in (servers, toggled, revealed))
    app = ListApp()
    async with app.run_test() as pilot:
        picker = app.query_one(PickerList)

        async def show(rows: tuple[Row, ...]) -> None:
            picker.show_rows(rows)
            await pilot.pause()

        await show(first)
        assert picker.option_count == 5050
        picker.select_key(("tool", "s25", "t050"))
        await show(second)
        await show(third)
        assert picker.option_count == 5052
        assert picker.current_row is not None
        assert picker.current_row.key == ("tool", "s25", "t050")
        assert_consistent(picker)


def line_text(picker: PickerList, y: int) -> str:
    """The text painted on the list's line ``y`` (relative to the top of the view)."""
    return picker.render_line(y).text


async def test_a_changed_row_is_repainted_in_place_on_and_off_screen() -> None:
    """Only the changed rows are painted again; what is painted is still the new text.

    The rows are built without a memo, so every row is a new object: equal rows must still
    come from the cache.
    """
    servers = [server(f"s{i}", *(tool(f"t{j:02d}") for j in range(30))) for i in range(3)]

    def with_off(index: int, bare: str) -> tuple[Row, ...]:
        changed = list(servers)
        state = servers[index]
        tools = tuple(t.model_copy(update={"enabled": t.bare != bare}) for t in state.tools)
        changed[index] = state.model_copy(update={"tools": tools})
        return rows_of(model(*changed, budget=1000))

    app = ListApp()
    async with app.run_test(size=(60, 20)) as pilot:
        picker = app.query_one(PickerList)
        picker.show_rows(rows_of(model(*servers, budget=1000)))
        await pilot.pause()
        height = picker.scrollable_content_region.height
        before = [picker.render_line(y) for y in range(height)]
        rendered = picker.rows_rendered
        assert line_text(picker, 3).startswith("    [x] t02")
        picker.show_rows(with_off(0, "t02"))  # row 3: on screen
        await pilot.pause()
        assert line_text(picker, 3).startswith("    [ ] t02")
        after = [picker.render_line(y) for y in range(height)]
        changed = [y for y, (a, b) in enumerate(zip(before, after, strict=True)) if a is not b]
        assert changed == [0, 3]  # the server's count and the tool
        assert picker.rows_rendered - rendered == 2
        assert_consistent(picker)
        picker.show_rows(with_off(2, "t20"))  # far below the view; row 3 is back on
        await pilot.pause()
        assert line_text(picker, 3).startswith("    [x] t02")
        assert picker.select_key(("tool", "s2", "t20"))
        await pilot.pause()
        y = picker.highlighted - picker.scroll_offset.y  # type: ignore[operator]
        assert "[ ] t20" in line_text(picker, y)
        assert_consistent(picker)


class RecordingPicker(PickerList):
    """Records the lines each ``refresh`` asks to repaint (``None``: the whole list)."""

    def __init__(self) -> None:
        super().__init__(id="picker")
        self.refreshed: list[int | None] = []

    def refresh(self, *regions: Region, **kwargs: Any) -> Self:
        if regions:
            top = self.scroll_offset.y
            self.refreshed += [top + y for r in regions for y in range(r.y, r.bottom)]
        else:
            self.refreshed.append(None)
        return super().refresh(*regions, **kwargs)


class RecordingApp(App[None]):
    CSS_PATH = "../../agentty_tui/ui/picker.tcss"

    def compose(self) -> ComposeResult:
        yield RecordingPicker()


async def test_an_update_asks_to_repaint_only_the_changed_lines_in_view() -> None:
    """A toggle refreshes the toggled row's line and its server's; a splice in view, the view."""
    servers = [server(f"s{i}", *(tool(f"t{j:02d}") for j in range(30))) for i in range(3)]
    toggled = list(servers)
    toggled[0] = servers[0].model_copy(
        update={
            "tools": tuple(
                t.model_copy(update={"enabled": t.bare != "t02"}) for t in servers[0].tools
            )
        }
    )
    far = list(servers)
    far[2] = servers[2].model_copy(update={"tools": servers[2].tools[:-1]})
    app = RecordingApp()
    async with app.run_test(size=(60, 20)) as pilot:
        picker = app.query_one(RecordingPicker)
        picker.show_rows(rows_of(model(*servers, budget=1000)))
        picker.select_key(("tool", "s0", "t05"))
        await pilot.pause()
        picker.refreshed.clear()
        picker.show_rows(rows_of(model(*toggled, budget=1000)))
        assert None not in picker.refreshed  # not the whole list
        assert sorted(line for line in picker.refreshed if line is not None) == [0, 3]
        picker.refreshed.clear()
        picker.show_rows(rows_of(model(*toggled[:2], far[2], budget=1000)))
        assert picker.virtual_size.height == len(picker.rows)  # a row went away below the view
        picker.refreshed.clear()
        picker.show_rows(rows_of(model(server("new"), *toggled[:2], far[2], budget=1000)))
        assert None in picker.refreshed  # a row came in above: every line in view moved
        assert picker.highlighted == 7 and picker.current_row is not None
        assert picker.current_row.key == ("tool", "s0", "t05")


class ChoosingApp(ListApp):
    """Records every row chosen in its list."""

    def __init__(self) -> None:
        super().__init__()
        self.chosen: list[tuple[str, ...]] = []

    def on_picker_list_row_chosen(self, event: PickerList.RowChosen) -> None:
        assert event.control is self.query_one(PickerList)
        assert event.row is event.picker.rows[event.index]
        self.chosen.append(event.row.key)


def in_view(picker: PickerList) -> bool:
    """The cursor's row is one of the lines in view."""
    assert picker.highlighted is not None
    top = picker.scroll_offset.y
    return top <= picker.highlighted < top + picker.scrollable_content_region.height


async def test_the_cursor_moves_through_thousands_of_rows_and_stays_in_view() -> None:
    servers = [server(f"s{i:02d}", *(tool(f"t{j:03d}") for j in range(100))) for i in range(30)]
    app = ChoosingApp()
    async with app.run_test(size=(60, 20)) as pilot:
        picker = app.query_one(PickerList)
        picker.show_rows(rows_of(model(*servers, budget=10_000)))
        picker.focus()
        await pilot.pause()
        height = picker.scrollable_content_region.height
        assert picker.highlighted == 0 and picker.scroll_offset.y == 0
        await pilot.press("end")
        assert picker.highlighted == 3029 and in_view(picker)
        assert line_text(picker, height - 1).startswith("    [x] t099")
        await pilot.press("down")  # wraps to the first row
        assert picker.highlighted == 0 and picker.scroll_offset.y == 0
        await pilot.press("up")  # and back to the last
        assert picker.highlighted == 3029 and in_view(picker)
        await pilot.press("home", "pagedown")
        assert picker.highlighted == height and in_view(picker)
        await pilot.press("pagedown", "pageup", "pageup", "pageup")
        assert picker.highlighted == 0 and picker.scroll_offset.y == 0
        assert picker.select_key(("tool", "s15", "t050"))
        await pilot.pause()
        assert in_view(picker)
        y = 15 * 101 + 51 - picker.scroll_offset.y
        assert line_text(picker, y).startswith("    [x] t050")
        await pilot.press("j", "k", "k", "enter")
        assert app.chosen == [("tool", "s15", "t049")]
        assert_consistent(picker)


async def test_a_click_moves_the_cursor_and_chooses_the_row() -> None:
    app = ChoosingApp()
    async with app.run_test(size=(60, 20)) as pilot:
        picker = app.query_one(PickerList)
        picker.show_rows(rows_of(model(server("a", tool("x"), tool("y")), server("b"))))
        await pilot.pause()
        assert picker.highlighted == 0
        assert await pilot.click(PickerList, offset=(9, 2))
        assert picker.highlighted == 2
        assert app.chosen == [("tool", "a", "y")]
        assert await pilot.click(PickerList, offset=(9, 10))  # below the last row: nothing
        assert picker.highlighted == 2 and len(app.chosen) == 1


async def test_the_cursor_line_is_painted_in_the_cursor_style() -> None:
    app = ListApp()
    async with app.run_test(size=(60, 20)) as pilot:
        picker = app.query_one(PickerList)
        picker.show_rows(rows_of(model(server("a", tool("x"), tool("y")))))
        picker.focus()
        await pilot.pause()
        cursor = picker.get_visual_style("picker--cursor").rich_style.bgcolor
        plain = picker.get_visual_style().rich_style.bgcolor
        assert cursor != plain

        def backgrounds(y: int) -> set[object]:
            return {segment.style.bgcolor for segment in picker.render_line(y) if segment.style}

        assert backgrounds(0) == {cursor}
        assert backgrounds(1) == {plain}
        await pilot.press("down")
        assert backgrounds(0) == {plain} and backgrounds(1) == {cursor}


async def test_the_line_under_the_pointer_is_highlighted_until_it_leaves() -> None:
    app = ListApp()
    async with app.run_test(size=(60, 20)) as pilot:
        picker = app.query_one(PickerList)
        picker.show_rows(rows_of(model(server("a", tool("x"), tool("y")))))
        await pilot.pause()
        hover = picker.get_visual_style("picker--hover").rich_style.bgcolor
        plain = picker.get_visual_style().rich_style.bgcolor
        assert hover != plain

        def background(y: int) -> object:
            styles = {segment.style.bgcolor for segment in picker.render_line(y) if segment.style}
            assert len(styles) == 1
            return styles.pop()

        assert await pilot.hover(PickerList, offset=(5, 2))
        assert picker.hovered == 2 and background(2) == hover and background(1) == plain
        assert await pilot.hover(PickerList, offset=(5, 0))  # the cursor's line keeps its look
        assert picker.hovered == 0 and background(0) not in (hover, plain)
        assert background(2) == plain
        picker.post_message(events.Leave(picker))
        await pilot.pause()
        assert picker.hovered is None
