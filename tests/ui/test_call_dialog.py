"""The call dialog: elapsed time of a long call, escape keeps the result, ``C`` reopens it, and
the input schema beside the editor (cut, and shown as text whatever the server put in it)."""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
import pytest
from textual.widgets import Static

from agentty_tui.bridge.call_hooks import CallHooks
from agentty_tui.model import PluginModel, ToolState
from agentty_tui.ui.app import PickerApp
from agentty_tui.ui.call import CANCELLED, SCHEMA_LIMIT, CallToolScreen
from tests.ui.fakes import StaticSource, connected_model, model, server, settle

pytestmark = pytest.mark.anyio


class GatedSource(StaticSource):
    """A source whose calls wait until ``gate`` is set."""

    def __init__(self, first: PluginModel) -> None:
        super().__init__(first)
        self.gate = anyio.Event()

    async def call_tool(
        self,
        server: str,
        tool: str,
        arguments: dict[str, Any] | None = None,
        hooks: CallHooks | None = None,
    ) -> types.CallToolResult:
        await self.gate.wait()
        return await super().call_tool(server, tool, arguments, hooks)


def shown(app: PickerApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def test_a_long_call_shows_elapsed_time_and_its_result_outlives_the_dialog() -> None:
    source = GatedSource(connected_model())
    app = PickerApp(source, follow=False)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await pilot.press("down", "c")
        await pilot.pause()
        await pilot.press("ctrl+s")
        with anyio.fail_after(10):
            while "calling… · 1 s" not in shown(app, "#call-progress"):
                await pilot.pause(0.05)
        assert "ctrl+b leaves it running" in shown(app, "#call-hint")
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert not isinstance(app.screen, CallToolScreen)
        source.gate.set()
        await settle(app, "call")
        await pilot.pause()
        assert any("C shows its result" in n.message for n in app._notifications)
        await pilot.press("C")
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, CallToolScreen)
        assert shown(app, "#call-result") == "add_note called with {'text': ''}"


async def test_capital_c_without_a_call_says_so() -> None:
    app = PickerApp(StaticSource(connected_model()), follow=False)
    async with app.run_test(notifications=True) as pilot:
        await pilot.press("C")
        await pilot.pause()
        assert not isinstance(app.screen, CallToolScreen)
        assert [n.message for n in app._notifications] == [
            "No call yet: c calls the tool under the cursor."
        ]


async def test_the_input_schema_is_beside_the_editor_and_shown_as_text() -> None:
    hostile = "[/]\x1b[31mred"
    schema = {
        "type": "object",
        "properties": {hostile: {"type": "string"}, "pad": {"description": "x" * 10_000}},
        "required": [hostile],
    }
    tool = ToolState(bare="odd", enabled=True, description="An odd tool.", input_schema=schema)
    app = PickerApp(StaticSource(model(server("notes", tool))), follow=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("down", "c")
        await pilot.pause()
        text = shown(app, "#call-schema")
        assert "[/]\\u001b[31mred" in text  # markup and ESC as text, never applied
        assert "\x1b" not in text
        assert "more characters not shown" in text
        assert len(text) < SCHEMA_LIMIT + 100
        editor = app.screen.query_one("#call-args").region
        beside = app.screen.query_one("#call-schema").region
        assert beside.x > editor.right - 1
        assert beside.y < editor.bottom


class ReportingSource(StaticSource):
    """A source whose calls report progress through the call's hooks, then wait until
    ``gate`` is set (or the call is cancelled, which ``cancelled`` records)."""

    def __init__(self, first: PluginModel) -> None:
        super().__init__(first)
        self.gate = anyio.Event()
        self.cancelled = False

    async def call_tool(
        self,
        server: str,
        tool: str,
        arguments: dict[str, Any] | None = None,
        hooks: CallHooks | None = None,
    ) -> types.CallToolResult:
        assert hooks is not None and hooks.progress is not None
        await hooks.progress(1, 4, "fetching page 1")
        await hooks.progress(3, 4, "\x1b[31mfetching [b]page[/b] 3")
        try:
            await self.gate.wait()
        except anyio.get_cancelled_exc_class():
            self.cancelled = True
            raise
        return await super().call_tool(server, tool, arguments, hooks)


async def _calling(pilot: Any, app: PickerApp) -> None:
    await pilot.press("down", "c")
    await pilot.pause()
    await pilot.press("ctrl+s")
    with anyio.fail_after(10):
        while "3/4" not in shown(app, "#call-progress"):
            await pilot.pause(0.05)


async def test_progress_is_a_bar_with_the_servers_message_shown_safely() -> None:
    source = ReportingSource(connected_model())
    app = PickerApp(source, follow=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await _calling(pilot, app)
        line = shown(app, "#call-progress")
        assert line.startswith("[████████░░] 3/4 · ")
        assert "\x1b" not in line and "fetching [b]page[/b] 3" in line  # no markup, no controls
        source.gate.set()
        await settle(app, "call")
        await pilot.pause(0.3)
        assert shown(app, "#call-progress") == ""
        assert shown(app, "#call-result") == "add_note called with {'text': ''}"


async def test_escape_cancels_a_running_call_and_a_second_escape_closes() -> None:
    source = ReportingSource(connected_model())
    app = PickerApp(source, follow=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await _calling(pilot, app)
        await pilot.press("escape")
        await settle(app, "call")
        await pilot.pause(0.3)
        assert source.cancelled
        assert isinstance(app.screen, CallToolScreen)
        assert shown(app, "#call-result") == CANCELLED
        assert app.last_call is not None and not app.last_call.running
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, CallToolScreen)


class PictureSource(StaticSource):
    """A source whose every call answers an image, a caption and structured content."""

    async def call_tool(
        self,
        server: str,
        tool: str,
        arguments: dict[str, Any] | None = None,
        hooks: CallHooks | None = None,
    ) -> types.CallToolResult:
        image = types.ImageContent(type="image", data="A" * 7068, mime_type="image/png")
        caption = types.TextContent(type="text", text="a test pattern")
        return types.CallToolResult(content=[image, caption], structured_content={"w": 64})


async def test_an_image_result_is_its_type_and_size_in_the_dialog() -> None:
    """The dialog says what the CLI says (``call_result``): the image by type and size, never
    its base64, then the caption and the structured content the text did not say."""
    app = PickerApp(PictureSource(connected_model()), follow=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("down", "c")
        await pilot.pause()
        await pilot.press("ctrl+s")
        await settle(app, "call")
        await pilot.pause()
        assert shown(app, "#call-result").split("\n") == [
            "[image: image/png, 5.3 KB]",
            "a test pattern",
            "structured content:",
            "{",
            '  "w": 64',
            "}",
        ]
