"""The picker's form and URL dialogs against a real bridge and real servers that ask.

``elicit_server.py`` (2025 handshake, no SDK) asks mid-call for a form of every kind of field
and for a page, fails with ``-32042``, and asks forms outside any call; ``form_server.py`` (the
SDK) asks its form in a 2026-07-28 ``input_required`` round. Each test checks what the server
itself reports it received, not only the screen.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import anyio
import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Select, SelectionList, Static

from agentty_tui.bridge import Bridge
from agentty_tui.config import ConfigStore
from agentty_tui.ui.app import PickerApp
from agentty_tui.ui.call import CallToolScreen
from agentty_tui.ui.form_dialog import FormDialog
from agentty_tui.ui.server_asks import ServerAsks
from agentty_tui.ui.url_dialog import UrlDialog
from tests.helpers import stdio_entry
from tests.servers import python_server_argv

pytestmark = pytest.mark.anyio

TIMEOUT = 30.0


@pytest.fixture
async def bridge(tmp_path: Path) -> AsyncIterator[Bridge]:
    path = tmp_path / "mcp.json"
    servers = {
        "asker": stdio_entry(python_server_argv("elicit_server.py")),
        "form": stdio_entry(python_server_argv("form_server.py")),
    }
    path.write_text(json.dumps({"mcpServers": servers}, indent=2))
    async with Bridge(ConfigStore(path), log_dir=tmp_path / "logs") as running:
        with anyio.fail_after(TIMEOUT):
            await running.settled()
        yield running


class Opened(list[str]):
    """A stand-in browser: the URLs it was asked to open."""

    def __call__(self, url: str) -> bool:
        self.append(url)
        return True


def picker(bridge: Bridge, opened: Opened | None = None) -> PickerApp:
    app = PickerApp(bridge)
    app.server_asks = ServerAsks(app, open_url=opened if opened is not None else Opened())
    return app


async def until(pilot: Pilot[None], predicate: Callable[[], bool]) -> None:
    with anyio.fail_after(TIMEOUT):
        while not predicate():
            await pilot.pause(0.05)


def text_of(app: PickerApp) -> str:
    return "\n".join(str(widget.render()) for widget in app.screen.query(Static))


async def call(pilot: Pilot[None], app: PickerApp, server: str, tool: str) -> None:
    """c on the tool's row, then ctrl+s: the call starts with its prefilled arguments."""
    await until(pilot, lambda: app.picker.select_key(("tool", server, tool)))
    await pilot.press("c")
    await until(pilot, lambda: isinstance(app.screen, CallToolScreen))
    await pilot.press("ctrl+s")


def call_result(app: PickerApp) -> str | None:
    record = app.last_call
    return None if record is None or record.running else record.result


async def test_a_form_asked_during_a_picker_call_reaches_the_server(bridge: Bridge) -> None:
    app = picker(bridge)
    async with app.run_test(size=(110, 45)) as pilot:
        await call(pilot, app, "asker", "fields")
        await until(pilot, lambda: isinstance(app.screen, FormDialog))
        dialog = app.screen
        assert isinstance(dialog, FormDialog)
        assert "Server 'asker' asks, during your call of 'fields':" in text_of(app)
        assert "Tell us about yourself" in text_of(app)
        numbers = {field.name: number for number, field in enumerate(dialog.fields)}

        def field(name: str) -> object:
            return dialog.query_one(f"#ask-field-{numbers[name]}")

        email = field("email")
        assert isinstance(email, Input)
        email.value = "ada@example.org"
        color = field("color")
        assert isinstance(color, Select)
        color.value = "blue"
        tags = field("tags")
        assert isinstance(tags, SelectionList)
        tags.select("beta")
        await pilot.pause()
        await pilot.press("ctrl+s")
        await until(pilot, lambda: call_result(app) is not None)
        action, _, content = (call_result(app) or "").partition(" ")
        assert action == "accept"
        assert json.loads(content) == {
            "age": 36,
            "agree": False,
            "color": "blue",
            "email": "ada@example.org",
            "name": "Ada",
            "size": "l",
            "tags": ["alpha", "beta"],
        }
        assert isinstance(app.screen, CallToolScreen)  # back to the call, its result shown


async def test_a_form_of_a_2026_round_is_asked_the_same_way(bridge: Bridge) -> None:
    """form_server asks in an ``input_required`` round of the 2026-07-28 era: the call's hooks
    answer it in the calling task."""
    app = picker(bridge)
    async with app.run_test(size=(110, 45)) as pilot:
        await call(pilot, app, "form", "ask")
        await until(pilot, lambda: isinstance(app.screen, FormDialog))
        assert "Fill in your profile" in text_of(app)
        dialog = app.screen
        assert isinstance(dialog, FormDialog)
        name = dialog.query_one("#ask-field-0", Input)
        assert name.value == "Ada"  # the default, filled in
        name.value = "Grace"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: call_result(app) is not None)
        assert call_result(app) == 'accept {"age": 36, "name": "Grace", "nickname": null}'


async def test_decline_and_cancel_reach_the_server_as_such(bridge: Bridge) -> None:
    app = picker(bridge)
    async with app.run_test(size=(110, 45)) as pilot:
        await call(pilot, app, "asker", "fields")
        await until(pilot, lambda: isinstance(app.screen, FormDialog))
        app.screen.query_one("#ask-decline").press()  # type: ignore[attr-defined]
        await until(pilot, lambda: call_result(app) is not None)
        assert call_result(app) == "decline null"
        await pilot.press("ctrl+s")  # the call dialog again: call once more
        await until(pilot, lambda: isinstance(app.screen, FormDialog))
        await pilot.press("escape")
        await until(pilot, lambda: call_result(app) is not None)
        assert call_result(app) == "cancel null"


async def test_forms_asked_outside_any_call_are_shown_in_turn(bridge: Bridge) -> None:
    """A host's step (here the bridge itself) calls ``later``, which asks two forms after it
    answered: both reach the picker, one after the other, and the server gets both answers."""
    app = picker(bridge)
    async with app.run_test(size=(110, 45)) as pilot:
        await until(pilot, lambda: app.picker.select_key(("tool", "asker", "later")))
        result = await bridge.call_tool("asker", "later", {"count": 2})
        assert result.content[0].text == "asked 2"  # type: ignore[union-attr]
        await until(pilot, lambda: isinstance(app.screen, FormDialog))
        await until(pilot, lambda: "1 more request waits after this one." in text_of(app))
        shown = text_of(app)
        assert "Server 'asker' asks, outside any call of yours:" in shown
        assert "Question 1 of 2" in shown
        app.screen.query_one("#ask-field-0", Input).value = "first"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: "Question 2 of 2" in text_of(app))
        app.screen.query_one("#ask-decline").press()  # type: ignore[attr-defined]
        await until(pilot, lambda: app.server_asks.shown is None)
        with anyio.fail_after(TIMEOUT):
            while True:
                seen = await bridge.call_tool("asker", "answers")
                text = seen.content[0].text  # type: ignore[union-attr]
                if text.count("\n") == 1:
                    break
                await anyio.sleep(0.05)
        assert text.splitlines() == ['bg-1 accept {"reply": "first"}', "bg-2 decline null"]


async def test_a_page_asked_during_a_call_opens_only_on_open(bridge: Bridge) -> None:
    opened = Opened()
    app = picker(bridge, opened)
    async with app.run_test(size=(110, 45), notifications=True) as pilot:
        await call(pilot, app, "asker", "visit")
        await until(pilot, lambda: isinstance(app.screen, UrlDialog))
        assert "https://example.com/sign-in" in text_of(app)
        assert "Its domain: example.com" in text_of(app)
        assert opened == []
        await pilot.press("o")
        await until(pilot, lambda: call_result(app) is not None)
        assert call_result(app) == "accept"
        assert opened == ["https://example.com/sign-in"]
        # The server said the page was done: the picker says so.
        await until(pilot, lambda: any("is done" in n.message for n in app._notifications))


async def test_a_page_accepted_outside_any_call_says_when_it_is_done(bridge: Bridge) -> None:
    """A page a server asks outside any call, accepted in the fallback dialog: the server's
    completion for it reaches the picker (the bridge's ``ServerElicitationComplete``), which
    says so with the page's domain."""
    opened = Opened()
    app = picker(bridge, opened)
    async with app.run_test(size=(110, 45), notifications=True) as pilot:
        await until(pilot, lambda: app.picker.select_key(("tool", "asker", "later_page")))
        result = await bridge.call_tool("asker", "later_page")
        assert result.content[0].text == "asked a page"  # type: ignore[union-attr]
        await until(pilot, lambda: isinstance(app.screen, UrlDialog))
        assert "outside any call of yours" in text_of(app)
        await pilot.press("o")
        await until(pilot, lambda: opened == ["https://login.example.org/later"])
        await until(
            pilot,
            lambda: any(
                n.message == "Server 'asker' says the page you opened at login.example.org is done."
                for n in app._notifications
            ),
        )


async def test_a_call_refused_with_32042_shows_the_page_it_names(bridge: Bridge) -> None:
    opened = Opened()
    app = picker(bridge, opened)
    async with app.run_test(size=(110, 45), notifications=True) as pilot:
        await call(pilot, app, "asker", "authorize")
        await until(pilot, lambda: isinstance(app.screen, UrlDialog))
        shown = text_of(app)
        assert "asker needs you to open a page first" in shown
        assert "https://example.com/authorize" in shown
        assert "Authorize the thing" in shown
        await pilot.press("o")
        await until(pilot, lambda: opened == ["https://example.com/authorize"])
        assert "requires more information" in (call_result(app) or "")
        # The server's completion for that page comes later, outside the call.
        await bridge.call_tool("asker", "finish")
        await until(
            pilot,
            lambda: any(
                "the page you opened is done: call 'authorize' again" in n.message
                for n in app._notifications
            ),
        )
