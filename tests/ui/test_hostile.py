"""Nothing a server, a file or a user supplies can crash the picker or write to the terminal.

A property test feeds random servers, tool lists and schemas (hostile text everywhere text can
go) through the rows, the details screens, the call form and a notification, with Textual's
pilot over a static source, and checks every frame for raw controls; markup in names and in
the add form is shown as text.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from textual.widgets import Input, Static, TextArea

from agentty_tui.errors import OperationError
from agentty_tui.model import DroppedTool, PluginModel, ServerInfo, ServerState, ToolState
from agentty_tui.ui.app import PickerApp
from agentty_tui.ui.call import CallToolScreen, prefill_arguments
from agentty_tui.ui.dialogs import ServerDetailsScreen, ToolDetailsScreen
from agentty_tui.ui.server_form import AddServerScreen
from agentty_tui.ui.text import BLOCK_LIMIT
from tests.hostile_text import hostile_text, unsafe_chars
from tests.ui.fakes import NATIVE, StaticSource, model, server, settle, tool
from tests.ui.screen_text import screen_text

KEYWORDS = ("type", "properties", "required", "default", "const", "enum", "items")
"""Schema keys, drawn often so that random schemas hit the code that reads them."""

json_values: st.SearchStrategy[Any] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | hostile_text(12)
    | st.sampled_from(("string", "object", "array", "null")),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(KEYWORDS) | hostile_text(8), inner, max_size=3)
    ),
    max_leaves=8,
)
"""Any JSON value, with hostile strings and schema words in it."""

TOOL_NAMES = st.from_regex(r"[A-Za-z0-9_.-]{1,20}", fullmatch=True)
"""What the listing lets through: names that break the MCP rules are dropped before the UI."""

schemas = st.fixed_dictionaries(
    {},
    optional={
        "type": json_values,
        "properties": json_values | st.dictionaries(hostile_text(8), json_values, max_size=3),
        "required": json_values | st.lists(hostile_text(8) | json_values, max_size=3),
    },
) | json_values.filter(lambda value: isinstance(value, dict))


@st.composite
def tools(draw: st.DrawFn) -> ToolState:
    return ToolState(
        bare=draw(TOOL_NAMES),
        enabled=draw(st.booleans()),
        title=draw(st.none() | hostile_text()),
        description=draw(st.none() | hostile_text()),
        input_schema=draw(schemas),
    )


DROPPED = st.lists(st.tuples(hostile_text(), hostile_text()), max_size=2)
"""Left-out tools: their names are whatever the server sent."""


@st.composite
def servers(draw: st.DrawFn) -> ServerState:
    listed = draw(st.lists(tools(), max_size=2, unique_by=lambda t: t.bare))
    status = draw(st.sampled_from(("connected", "failed", "connecting", "disabled")))
    return server(
        draw(hostile_text(12) | st.just("a[/]")),
        *(listed if status == "connected" else ()),
        status=status,
        error=draw(hostile_text()) if status == "failed" else None,
    ).model_copy(
        update={
            "info": ServerInfo(name=draw(hostile_text(12)), version=draw(hostile_text(8))),
            "dropped_tools": tuple(
                DroppedTool(name=name, reason=reason) for name, reason in draw(DROPPED)
            ),
        }
    )


models = st.lists(servers(), min_size=1, max_size=2, unique_by=lambda s: s.name).map(
    lambda states: PluginModel(
        servers=tuple(states), tool_budget=4, native_tools=NATIVE, config_path="m\x1b[2J.json"
    )
)


def assert_frame_is_safe(app: PickerApp) -> None:
    assert unsafe_chars(screen_text(app), allowed="\n") == []


async def visit_everything(start: PluginModel, failure: str) -> None:
    """Every row: details (enter), the call form (c) and a call; then a failed toggle."""
    source = StaticSource(start)
    app = PickerApp(source)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await pilot.pause()
        assert_frame_is_safe(app)
        for index, row in enumerate(app.picker.rows):
            app.picker.highlighted = index
            await pilot.press("enter")
            details = ServerDetailsScreen if row.tool is None else ToolDetailsScreen
            assert isinstance(app.screen, details)
            await pilot.pause()
            assert_frame_is_safe(app)
            await pilot.press("escape")
            if row.tool is None:
                continue
            await pilot.press("c")
            await pilot.pause()
            assert isinstance(app.screen, CallToolScreen)
            assert isinstance(json.loads(app.screen.query_one("#call-args", TextArea).text), dict)
            assert_frame_is_safe(app)
            await pilot.press("ctrl+s")
            await settle(app, "call")
            await pilot.pause()
            assert_frame_is_safe(app)
            await pilot.press("escape")
        source.fail = OperationError(failure)
        tool_rows = [i for i, row in enumerate(app.picker.rows) if row.tool is not None]
        if tool_rows:
            app.picker.highlighted = tool_rows[0]
            await pilot.press("space")
            await settle(app)
            await pilot.pause()
            assert app.screen.query("Toast")
            assert_frame_is_safe(app)
        assert app.is_running
        assert app.return_code is None


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(models, hostile_text())
def test_random_servers_and_schemas_never_crash_or_reach_the_terminal(
    start: PluginModel, failure: str
) -> None:
    anyio.run(visit_everything, start, failure, backend="asyncio")


@settings(max_examples=300, deadline=None)
@given(schemas | json_values)
def test_prefill_takes_any_json_schema(schema: Any) -> None:
    prefilled = prefill_arguments(schema)
    assert isinstance(json.loads(prefilled), dict)
    assert unsafe_chars(prefilled, allowed="\n") == []


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": "object", "required": 5, "properties": {"a": 5}}, {}),
        ({"required": ["a", 7, None], "properties": {"a": 5}}, {"a": None}),
        ({"required": ["a"], "properties": 5}, {"a": None}),
        ({"required": ["a"], "properties": {"a": {"enum": "xyz", "type": [None, 3]}}}, {"a": None}),
        ({"required": ["a"], "properties": {"a": {"enum": {"k": 1}, "type": "integer"}}}, {"a": 0}),
        ({"required": ["a"], "properties": {"a": {"default": {"x": [1]}}}}, {"a": {"x": [1]}}),
        (5, {}),
    ],
)
def test_prefill_ignores_what_does_not_fit(schema: Any, expected: dict[str, Any]) -> None:
    assert json.loads(prefill_arguments(schema)) == expected


pytestmark_anyio = pytest.mark.anyio


@pytestmark_anyio
async def test_a_server_named_like_markup_is_shown_as_text() -> None:
    source = StaticSource(
        model(
            server("a[/]", tool("t"), status="connecting"),
            server("[bold]x", tool("u", description="[/] [b]")),
        )
    )
    app = PickerApp(source)
    async with app.run_test(notifications=True) as pilot:
        await pilot.pause()
        assert app.picker.rows[0].text.startswith("▾ ◌ a[/]")
        assert app.picker.rows[-1].text.endswith("u  [/] [b]")
        await pilot.press("enter")
        assert str(app.screen.query_one(".dialog-title", Static).render()) == "a[/]"
        await pilot.press("escape")
        source.fail = OperationError("no server named 'a[/]' [bold]here[/]")
        app.picker.select_key(("tool", "[bold]x", "u"))
        await pilot.press("space")  # the failure becomes a notification quoting the name
        await settle(app)
        await pilot.pause()
        app.picker.select_key(("tool", "a[/]", "t"))
        await pilot.press("c")  # refused with a notification naming the server
        await pilot.pause()
        shown = screen_text(app)
        assert "no server named 'a[/]' [bold]here[/]" in shown
        assert "Server 'a[/]' is connecting." in shown
        assert app.is_running


@pytestmark_anyio
async def test_markup_typed_into_the_add_form_is_shown_as_text() -> None:
    app = PickerApp(StaticSource(model(server("s", tool("t")))))
    async with app.run_test() as pilot:
        await pilot.press("a")
        assert isinstance(app.screen, AddServerScreen)
        app.screen.query_one("#add-name", Input).value = "new"
        app.screen.query_one("#add-command", Input).value = "[/]"
        await pilot.press("enter")
        await pilot.pause()
        error = str(app.screen.query_one("#add-error", Static).render())
        assert error == "Command not found: '[/]' (is it installed and on PATH?)"
        app.screen.query_one("#add-name", Input).value = "s"
        await pilot.press("enter")
        await pilot.pause()
        assert str(app.screen.query_one("#add-error", Static).render()) == (
            "A server named 's' already exists."
        )
        assert app.is_running


@pytestmark_anyio
async def test_a_50_mb_description_is_cut_with_a_note_in_the_row_and_the_details() -> None:
    """A server may advertise a description of 50 MB: the row shows a short label and the
    details screen lays out only the first ``BLOCK_LIMIT`` characters, saying how much it left
    out (laid out whole, the screen froze for half a minute)."""
    huge = "x" * 50_000_000
    app = PickerApp(StaticSource(model(server("big", tool("giant", description=huge)))))
    async with app.run_test() as pilot:
        row = app.picker.rows[1]
        assert len(row.text) < 1_000 and row.text.endswith("…")
        await pilot.press("down", "enter")
        assert isinstance(app.screen, ToolDetailsScreen)
        shown = str(app.screen.query_one("#details-description", Static).render())
        assert len(shown) < 200_000
        assert shown.endswith(f"… ({50_000_000 - BLOCK_LIMIT:,} more characters not shown)")
