"""The edit-server form (``E``) and the add form's env and header fields."""

from __future__ import annotations

import pytest
from textual.widgets import Input, Static

from agentty_tui.model import HttpSpec, ServerState, StdioSpec
from agentty_tui.ui.app import PickerApp
from agentty_tui.ui.server_form import (
    MASK,
    AddServerScreen,
    EditServerScreen,
    FormError,
    connection_spec,
    names_held,
    parse_pairs,
)
from tests.ui.fakes import StaticSource, model, settle
from tests.ui.screen_text import screen_text
from tests.ui.workspace_fakes import (
    CLAUDE_LOCAL,
    CLAUDE_USER,
    CODEX_USER,
    OUR_USER,
    workspace_model,
)

pytestmark = pytest.mark.anyio

SECRET = "s3cr3t-value"


def stdio_server() -> ServerState:
    spec = StdioSpec(command="echo", args=("--old",), env={"TOKEN": SECRET}, cwd="/tmp")
    return ServerState(name="tool", spec=spec, status="connected")


def url_server() -> ServerState:
    spec = HttpSpec(
        url=f"http://127.0.0.1:9/mcp?token={SECRET}",
        headers={"Authorization": f"Bearer {SECRET}"},
        transport="sse",
    )
    return ServerState(name="remote", spec=spec, status="connected")


def field(app: PickerApp, name: str) -> Input:
    return app.screen.query_one(f"#edit-{name}", Input)


async def test_edit_shows_the_command_masks_env_and_keeps_saved_values() -> None:
    source = StaticSource(model(stdio_server()))
    app = PickerApp(source, follow=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("E")
        await pilot.pause()
        assert isinstance(app.screen, EditServerScreen)
        assert field(app, "command").value == "echo --old"
        assert field(app, "cwd").value == "/tmp"
        assert field(app, "env").value == f"'TOKEN={MASK}'"
        assert SECRET not in screen_text(app)
        field(app, "command").value = "echo --new"
        field(app, "env").value += " TZ=UTC"
        await pilot.click("#edit-ok")
        await settle(app)
        spec = StdioSpec(
            command="echo", args=("--new",), env={"TOKEN": SECRET, "TZ": "UTC"}, cwd="/tmp"
        )
        assert source.calls == [("plugin_update", ("tool", spec))]


async def test_edit_of_a_url_server_masks_url_and_headers_and_keeps_them() -> None:
    saved = url_server()
    source = StaticSource(model(saved))
    app = PickerApp(source, follow=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("E")
        await pilot.pause()
        assert SECRET not in screen_text(app)
        assert SECRET not in field(app, "url").value + field(app, "headers").value
        await pilot.click("#edit-ok")
        await settle(app)
        assert source.calls == [("plugin_update", ("remote", saved.spec))]


async def test_edit_refuses_a_masked_value_it_never_saved() -> None:
    source = StaticSource(model(stdio_server()))
    app = PickerApp(source, follow=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("E")
        await pilot.pause()
        field(app, "env").value = f"NEW={MASK}"
        await pilot.click("#edit-ok")
        await pilot.pause()
        error = str(app.screen.query_one("#edit-error", Static).render())
        assert "'NEW' has no saved value" in error
        assert field(app, "env").has_class("-invalid")
        assert source.calls == []


async def test_add_form_takes_env_and_refuses_headers_on_a_command() -> None:
    source = StaticSource(model())
    app = PickerApp(source, follow=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, AddServerScreen)
        screen = app.screen
        screen.query_one("#add-name", Input).value = "mem"
        screen.query_one("#add-command", Input).value = "echo hi"
        screen.query_one("#add-headers", Input).value = '"X-Key: 1"'
        await pilot.click("#add-ok")
        await pilot.pause()
        assert "Headers are for a URL server" in str(screen.query_one("#add-error").render())
        screen.query_one("#add-headers", Input).value = ""
        screen.query_one("#add-env", Input).value = 'TZ=UTC "GREETING=hello there"'
        # The refusal focused the headers field and scrolled the form to it: enter submits.
        assert screen.focused is screen.query_one("#add-headers", Input)
        await pilot.press("enter")
        await settle(app)
        spec = StdioSpec(command="echo", args=("hi",), env={"TZ": "UTC", "GREETING": "hello there"})
        assert source.calls == [("plugin_add", ("mem", spec))]


def test_pairs_parse_and_say_what_is_wrong() -> None:
    assert parse_pairs('"Authorization: Bearer x"', ": ", "headers") == {
        "Authorization": "Bearer x"
    }
    with pytest.raises(FormError, match="NAME=value"):
        parse_pairs("TZ", "=", "env")
    with pytest.raises(FormError, match="no saved value"):
        parse_pairs(f"TZ={MASK}", "=", "env", {})
    url = connection_spec("web", {"url": "http://h/mcp", "headers": '"A: b"'}, [])
    assert url == HttpSpec(url="http://h/mcp", headers={"A": "b"})


def test_the_names_each_file_holds_count_shadowed_entries_and_other_files() -> None:
    """``notes`` is held by our user file too (shadowed there), ``time`` by Codex's file too:
    the add form refuses each name for each file holding it."""
    held = names_held(workspace_model())
    assert held[OUR_USER] == {"notes", "weather"}
    assert held[CLAUDE_USER] == {"time"}
    assert held[CODEX_USER] == {"time"}
    assert held[CLAUDE_LOCAL] == {"notes"}
    assert names_held(model()) == {}
