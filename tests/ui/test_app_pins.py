"""Pilot tests of ``p``: a tool pinned and unpinned, a server's priority set and cleared, the
mark on the rows, and a refusal said as an error."""

from __future__ import annotations

import pytest

from agentty_tui.errors import OperationError
from agentty_tui.ui.app import PickerApp
from tests.ui.fakes import StaticSource, model, server, settle, tool

pytestmark = pytest.mark.anyio


def _last(source: StaticSource) -> object:
    """The source's last call (typed loosely: each assert compares it to another shape)."""
    return source.calls[-1]


async def test_p_pins_a_tool_then_a_server_and_again_unpins() -> None:
    source = StaticSource(model(server("notes", tool("add"), tool("find")), server("x", tool("y"))))
    app = PickerApp(source)
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.press("down", "p")
        await settle(app)
        await pilot.pause()
        assert _last(source) == ("tool_set_pinned", ("notes", "add", True))
        assert app.picker.rows[1].text.startswith("    [x] ⚑ add")
        assert app.picker.rows[2].text.startswith("    [x]   find")
        await pilot.press("p")
        await settle(app)
        await pilot.pause()
        assert _last(source) == ("tool_set_pinned", ("notes", "add", False))
        assert app.picker.rows[1].text.startswith("    [x] add")  # no pin left: no column
        await pilot.press("up", "p")
        await settle(app)
        await pilot.pause()
        assert _last(source) == ("server_set_priority", ("notes", 1))
        assert app.picker.rows[0].text.rstrip().endswith("· ⚑ pinned")
        await pilot.press("p")
        await settle(app)
        assert _last(source) == ("server_set_priority", ("notes", 0))


async def test_a_refused_pin_is_an_error_notification() -> None:
    source = StaticSource(model(server("notes", tool("add"))))
    source.fail = OperationError("only agentty's own files hold them")
    app = PickerApp(source)
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.press("down", "p")
        await settle(app)
        await pilot.pause()
        shown = [n.message for n in app._notifications]
        assert any("only agentty's own files hold them" in message for message in shown)
