"""Keys that arrive together (``key_order.py``: a paste, fast typing) land where the keys
before them put focus.

The burst is posted to the app at once, as the terminal driver does: no pause between keys,
so each key is read before the previous one's binding (open a form, move focus) has run.
"""

from __future__ import annotations

import anyio
import pytest
from textual import events
from textual.widgets import Input

from agentty_tui.model import StdioSpec
from agentty_tui.ui.app import PickerApp
from agentty_tui.ui.server_form import AddServerScreen
from tests.ui.fakes import StaticSource, connected_model, settle

pytestmark = pytest.mark.anyio


def burst(app: PickerApp, *keys: str) -> None:
    """Post every key to the app before any is handled."""
    for key in keys:
        app.post_message(events.Key(key, key if len(key) == 1 else None))


async def test_a_burst_opens_the_form_fills_its_fields_and_submits() -> None:
    source = StaticSource(connected_model())
    app = PickerApp(source, follow=False)
    async with app.run_test() as pilot:
        await pilot.pause()
        burst(app, "a", *"meme", "tab", *"echo", "enter")
        with anyio.fail_after(10):
            while not source.calls:
                await pilot.pause(0.01)
        await settle(app)
        # No key of the name reached the list ("e" there turns every tool on).
        assert source.calls == [("plugin_add", ("meme", StdioSpec(command="echo")))]


async def test_keys_after_a_tab_go_to_the_next_field() -> None:
    app = PickerApp(StaticSource(connected_model()), follow=False)
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, AddServerScreen)
        burst(app, *"name", "tab", *"cmd", "tab", *"dir", "tab", *"env", "tab", *"url")
        with anyio.fail_after(10):
            while app.screen.query_one("#add-url", Input).value != "url":
                await pilot.pause(0.01)
        values = {field.id: field.value for field in app.screen.query(Input)}
        assert values == {
            "add-name": "name",
            "add-command": "cmd",
            "add-cwd": "dir",
            "add-env": "env",
            "add-url": "url",
            "add-headers": "",
        }
