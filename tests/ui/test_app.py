"""Pilot tests of every key against a static source (fast; no server, no file).

The same keys are tested against a real bridge and real servers in ``test_app_live.py``.
"""

from __future__ import annotations

import gc
import sys

import anyio
import pytest
from textual.widgets import Input, Static, TextArea

import agentty_tui.ui.lens_view as lens_view_module
from agentty_tui.bridge.reload_report import ReloadReport
from agentty_tui.catalog import TokenCounter, project_catalog
from agentty_tui.errors import OperationError
from agentty_tui.model import HttpSpec, PluginModel, ServerState, StdioSpec
from agentty_tui.ui.app import PickerApp
from agentty_tui.ui.call import CallToolScreen
from agentty_tui.ui.dialogs import (
    DIALOG_KEYS,
    ConfirmScreen,
    HelpScreen,
    LoginScreen,
    ServerDetailsScreen,
    ToolDetailsScreen,
)
from agentty_tui.ui.server_asks import UNANSWERED_SECONDS
from agentty_tui.ui.server_form import AddServerScreen
from agentty_tui.ui.token_text import short_count
from tests.ui.fakes import (
    StaticSource,
    connected_model,
    connecting_model,
    failed_model,
    model,
    server,
    settle,
    tool,
)

pytestmark = pytest.mark.anyio


def key_of(app: PickerApp) -> tuple[str, ...] | None:
    row = app.picker.current_row
    return None if row is None else row.key


def keys(app: PickerApp) -> list[tuple[str, ...]]:
    return [row.key for row in app.picker.rows]


async def test_moves_with_arrows_and_vim_keys() -> None:
    app = PickerApp(StaticSource(connected_model()))
    async with app.run_test() as pilot:
        assert app.picker.highlighted == 0
        await pilot.press("down", "j", "j")
        assert app.picker.highlighted == 3
        await pilot.press("k", "up")
        assert app.picker.highlighted == 1
        await pilot.press("end")
        assert app.picker.highlighted == 7
        await pilot.press("home")
        assert app.picker.highlighted == 0
        await pilot.press("pagedown")
        assert app.picker.highlighted == 7
        await pilot.press("pageup")
        assert app.picker.highlighted == 0


async def test_space_toggles_the_tool_under_the_cursor() -> None:
    source = StaticSource(connected_model())
    app = PickerApp(source)
    async with app.run_test() as pilot:
        await pilot.press("down", "space")
        await settle(app)
        await pilot.pause()
        assert source.calls == [("tool_set_enabled", ("notes", "add_note", False))]
        row = app.picker.rows[1]
        assert (row.key, row.enabled) == (("tool", "notes", "add_note"), False)
        assert app.picker.highlighted == 1
        assert "1/3 tools on" in app.picker.rows[0].text


async def test_space_on_a_server_folds_and_unfolds_it() -> None:
    source = StaticSource(connected_model())
    app = PickerApp(source)
    async with app.run_test() as pilot:
        await pilot.press("space")
        assert keys(app) == [("server", "notes"), *keys(app)[1:]]
        assert len(app.picker.rows) == 5 and app.picker.rows[0].folded
        await pilot.press("space")
        assert len(app.picker.rows) == 8
        assert source.calls == []


async def test_a_click_on_a_mark_toggles_or_folds_and_elsewhere_opens_details() -> None:
    source = StaticSource(connected_model())
    app = PickerApp(source)
    async with app.run_test() as pilot:
        assert await pilot.click("#picker", offset=(5, 1))  # the [x] of notes/add_note
        await settle(app)
        await pilot.pause()
        assert source.calls == [("tool_set_enabled", ("notes", "add_note", False))]
        assert app.picker.rows[1].text.startswith("    [ ] add_note")
        assert app.screen is app.screen_stack[0]  # no details for a click on the mark
        assert await pilot.click("#picker", offset=(0, 4))  # the fold mark of editor
        await pilot.pause()
        assert keys(app)[4:] == [("server", "editor")] and app.picker.rows[4].folded
        assert await pilot.click("#picker", offset=(0, 4))
        await pilot.pause()
        assert len(app.picker.rows) == 8
        assert await pilot.click("#picker", offset=(10, 2))  # a tool's name: its details
        await pilot.pause()
        assert isinstance(app.screen, ToolDetailsScreen)
        assert len(source.calls) == 1


async def test_z_folds_every_server_then_unfolds_them_all() -> None:
    source = StaticSource(connected_model())
    app = PickerApp(source)
    async with app.run_test() as pilot:
        await pilot.press("down", "space", "z")  # one toggle, then fold all
        await settle(app)
        await pilot.pause()
        assert keys(app) == [("server", "notes"), ("server", "editor")]
        assert key_of(app) == ("server", "notes")
        await pilot.press("space", "z")  # notes unfolded by hand: z folds it again
        assert len(app.picker.rows) == 2
        await pilot.press("z")
        assert len(app.picker.rows) == 8


async def test_a_wide_terminal_shows_descriptions_in_a_column() -> None:
    """From 120 columns on, tools with a title show their description beside it; narrower,
    the title alone. Crossing the width while running switches the rows."""
    titled = tool("add_note", description="Add a note to the notebook.").model_copy(
        update={"title": "Add note"}
    )
    app = PickerApp(StaticSource(model(server("notes", titled, tool("list_notes")))))
    async with app.run_test(size=(130, 20)) as pilot:
        assert app.picker.rows[1].text.rstrip() == (
            "    [x] add_note    Add note  Add a note to the notebook."
        )
        assert (
            app.picker.rows[2].text.rstrip() == "    [x] list_notes            The list_notes tool."
        )
        await pilot.resize_terminal(100, 20)
        await pilot.pause()
        assert app.picker.rows[1].text.rstrip() == "    [x] add_note    Add note"
        assert app.picker.rows[2].text.rstrip() == "    [x] list_notes  The list_notes tool."


async def test_e_and_x_switch_a_whole_server() -> None:
    source = StaticSource(connected_model())
    app = PickerApp(source)
    async with app.run_test() as pilot:
        await pilot.press("down", "e")
        await settle(app)
        await pilot.press("x")
        await settle(app)
        assert source.calls == [
            ("tools_set_enabled", ("notes", True)),
            ("tools_set_enabled", ("notes", False)),
        ]
        await pilot.pause()
        assert "0/3 tools on" in app.picker.rows[0].text


async def test_add_form_refuses_invalid_input_and_adds_valid() -> None:
    source = StaticSource(connected_model())
    app = PickerApp(source)
    async with app.run_test() as pilot:
        await pilot.press("a")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, AddServerScreen)
        await pilot.press(*"notes", "enter")
        error = form.query_one("#add-error", Static)
        assert "already exists" in str(error.render())
        name = form.query_one("#add-name", Input)
        assert name.has_class("-invalid") and name.has_focus
        name.value = "remote"
        form.query_one("#add-url", Input).value = "ftp://example.com"
        await pilot.press("enter")
        assert "http://" in str(error.render())
        assert source.calls == []
        form.query_one("#add-url", Input).value = "http://127.0.0.1:9/mcp"
        await pilot.press("enter")
        await settle(app)
        assert app.screen is not form
        assert source.calls == [("plugin_add", ("remote", HttpSpec(url="http://127.0.0.1:9/mcp")))]
        await pilot.pause()
        assert keys(app)[-1] == ("server", "remote")


async def test_add_form_escape_adds_nothing() -> None:
    source = StaticSource(connected_model())
    app = PickerApp(source)
    async with app.run_test() as pilot:
        await pilot.press("a")
        await pilot.pause()
        await pilot.press(*"x", "escape")
        assert not isinstance(app.screen, AddServerScreen)
        assert source.calls == []


async def test_removing_a_url_server_says_it_is_disconnected_not_stopped() -> None:
    """A URL server has no process of ours: the question must not promise to stop one."""
    remote = server("remote").model_copy(update={"spec": HttpSpec(url="http://h/mcp")})
    app = PickerApp(StaticSource(model(server("local"), remote)))
    async with app.run_test() as pilot:
        await pilot.press("d")
        await pilot.pause()
        local_question = str(app.screen.query_one(".dialog-text", Static).render())
        await pilot.press("n", "down", "d")
        await pilot.pause()
        remote_question = str(app.screen.query_one(".dialog-text", Static).render())
    assert local_question == "Remove server 'local' from the config?\nIts process is stopped."
    assert remote_question == "Remove server 'remote' from the config?\nIt is disconnected."


async def test_removing_a_server_that_does_not_run_says_nothing_is_stopped() -> None:
    """An untrusted, disabled or failed server has no process and no connection: the question
    must not promise to stop one."""
    remote = server("remote", status="untrusted").model_copy(
        update={"spec": HttpSpec(url="http://h/mcp")}
    )
    servers = (
        server("waiting", status="untrusted"),
        server("parked", status="disabled"),
        server("broken", status="failed", error="command not found"),
        remote,
    )
    app = PickerApp(StaticSource(model(*servers)))
    questions = []
    async with app.run_test() as pilot:
        for index in range(len(servers)):
            assert app.picker.select_key(("server", servers[index].name))
            await pilot.press("d")
            await pilot.pause()
            questions.append(str(app.screen.query_one(".dialog-text", Static).render()))
            await pilot.press("n")
            await pilot.pause()
    effects = [question.split("\n")[1] for question in questions]
    assert effects == [
        "It is not running (not trusted), so nothing is stopped.",
        "It is not running (disabled), so nothing is stopped.",
        "It is not running (it failed), so nothing is stopped.",
        "It is not connected (not trusted), so nothing is stopped.",
    ]


async def test_remove_asks_first() -> None:
    source = StaticSource(connected_model())
    app = PickerApp(source)
    async with app.run_test() as pilot:
        await pilot.press("down", "d")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("enter")  # the focused button is Cancel
        assert source.calls == []
        await pilot.press("d")
        await pilot.pause()
        await pilot.press("y")
        await settle(app)
        await pilot.pause()
        assert source.calls == [("plugin_remove", ("notes",))]
        assert keys(app)[0] == ("server", "editor")
        assert app.picker.highlighted == 0


async def test_reload_calls_the_source_and_says_so() -> None:
    source = StaticSource(connected_model())
    app = PickerApp(source)
    async with app.run_test() as pilot:
        await pilot.press("r")
        await settle(app)
        assert source.calls == [("reload", ())]
        assert [n.message for n in app._notifications] == ["Config reloaded: nothing changed."]


async def test_a_reload_that_failed_says_why_not_that_it_reloaded() -> None:
    """A config that no longer parses: the toast is an error naming the place, never
    "Config reloaded"."""
    source = StaticSource(connected_model())
    error = "mcp.json:3:5: invalid JSON: Expecting ',' delimiter"
    source.reload_report = ReloadReport(source.snapshot, error=error)
    app = PickerApp(source)
    async with app.run_test() as pilot:
        await pilot.press("r")
        await settle(app)
        (note,) = app._notifications
        assert note.message == f"Config not reloaded: {error}"
        assert note.severity == "error"


async def test_filter_and_escape() -> None:
    app = PickerApp(StaticSource(connected_model()))
    async with app.run_test() as pilot:
        await pilot.press("slash", *"scene")
        assert [row.key[-1] for row in app.picker.rows] == ["editor", "scene_open"]
        await pilot.press("enter")  # back to the list, the filter stays
        assert app.picker.has_focus and len(app.picker.rows) == 2
        await pilot.press("escape")
        assert len(app.picker.rows) == 8
        assert not app.query_one("#filter", Input).display


def _mixed_model() -> PluginModel:
    """Over budget (one tool trimmed), a tool off, a failed and a disabled server."""
    return model(
        server("notes", tool("add_note"), tool("list_notes", enabled=False), tool("tag_note")),
        server("broken", status="failed", error="exited with status 1"),
        server("parked", status="disabled"),
        budget=3,
    )


async def test_filter_by_state_with_is_words() -> None:
    """``is:`` words filter by state, alone, together or with name text; an unknown one
    matches nothing and the empty list says which states there are."""
    app = PickerApp(StaticSource(_mixed_model()))
    async with app.run_test(size=(120, 30)) as pilot:

        async def shown(text: str) -> list[str]:
            field = app.query_one("#filter", Input)
            field.value = text
            await pilot.pause()
            return [row.key[-1] for row in app.picker.rows]

        await pilot.press("slash")
        assert await shown("is:off") == ["notes", "list_notes"]
        assert await shown("is:trimmed") == ["notes", "tag_note"]
        assert await shown("is:on add") == ["notes", "add_note"]
        assert await shown("is:failed") == ["broken"]
        assert await shown("is:failed is:disabled") == ["broken", "parked"]
        assert await shown("IS:Needs-Login") == []
        assert await shown("is:failed notes") == []
        assert await shown("is:offf") == []
        empty = str(app.query_one("#empty", Static).render())
        assert "No such state: is:offf" in empty and "is:trimmed" in empty
        await pilot.press("escape")
        assert len(app.picker.rows) == 6
        await pilot.press("question_mark")
        help_text = "\n".join(str(w.render()) for w in app.screen.query(Static))
        assert "is:off is:trimmed is:failed" in help_text


async def test_the_help_says_the_keys_of_a_servers_form_and_page_and_of_a_running_call() -> None:
    app = PickerApp(StaticSource(failed_model()))
    async with app.run_test() as pilot:
        await pilot.press("question_mark")
        help_text = "\n".join(str(w.render()) for w in app.screen.query(Static))
        assert "In a dialog" in help_text
        for key, _ in DIALOG_KEYS:
            assert key in help_text
        assert "the server hears a decline" in help_text
        assert f"in {UNANSWERED_SECONDS / 60:g} minutes is declined" in help_text


async def test_enter_shows_tool_details_and_server_details() -> None:
    app = PickerApp(StaticSource(failed_model()))
    async with app.run_test() as pilot:
        await pilot.press("down", "enter")
        assert isinstance(app.screen, ToolDetailsScreen)
        facts = str(app.screen.query_one("#details-facts", Static).render())
        assert "mcp__notes__add_note" in facts and "on the wire" in facts
        schema = str(app.screen.query_one("#details-schema", Static).render())
        assert '"required"' in schema
        await pilot.press("escape", "down", "enter")
        assert isinstance(app.screen, ServerDetailsScreen)
        await pilot.press("escape")
        assert app.screen is app.screen_stack[0]


async def test_call_prefills_required_fields_and_shows_the_result() -> None:
    source = StaticSource(connected_model())
    app = PickerApp(source)
    async with app.run_test() as pilot:
        await pilot.press("down", "c")
        await pilot.pause()
        assert isinstance(app.screen, CallToolScreen)
        area = app.screen.query_one("#call-args", TextArea)
        assert area.text == '{\n  "text": ""\n}'
        area.text = '{"text": "hi"}'
        await pilot.press("ctrl+s")
        await settle(app, "call")
        await pilot.pause()
        result = str(app.screen.query_one("#call-result", Static).render())
        assert result == "add_note called with {'text': 'hi'}"
        area.text = "[1, 2"
        await pilot.press("ctrl+s")
        assert "Not valid JSON" in str(app.screen.query_one("#call-result", Static).render())
        assert source.calls == [("call_tool", ("notes", "add_note", {"text": "hi"}))]


async def test_call_on_a_server_row_asks_for_a_tool() -> None:
    app = PickerApp(StaticSource(connected_model()))
    async with app.run_test() as pilot:
        await pilot.press("c")
        assert app.screen is app.screen_stack[0]
        assert [n.severity for n in app._notifications] == ["warning"]


async def test_help_lists_the_keys() -> None:
    app = PickerApp(StaticSource(connected_model()))
    async with app.run_test() as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_q_quits() -> None:
    app = PickerApp(StaticSource(connected_model()))
    async with app.run_test() as pilot:
        await pilot.press("q")
        await pilot.pause()
        assert app._exit_renderables == [] and not app.is_running


async def test_operation_errors_become_notifications() -> None:
    source = StaticSource(connected_model())
    app = PickerApp(source)
    async with app.run_test() as pilot:
        source.fail = OperationError("config write refused")
        await pilot.press("down", "space")
        await settle(app)
        source.fail = RuntimeError("something unexpected")
        await pilot.press("r")
        await settle(app)
        notes = [(n.title, n.message, n.severity) for n in app._notifications]
        assert notes == [
            ("Toggle failed", "config write refused", "error"),
            ("Reload failed", "RuntimeError: something unexpected", "error"),
        ]
        assert app.is_running


async def test_updates_rerender_and_keep_the_cursor_on_its_tool() -> None:
    source = StaticSource(model(server("g", tool("a"), tool("b"))))
    app = PickerApp(source)
    async with app.run_test() as pilot:
        await pilot.press("down", "down")
        assert app.picker.current_row and app.picker.current_row.tool == "b"
        source.publish(model(server("g", tool("z"), tool("a"), tool("b"), tool("c"))))
        await pilot.pause()
        assert keys(app)[1:] == [("tool", "g", n) for n in ("z", "a", "b", "c")]
        assert app.picker.current_row and app.picker.current_row.tool == "b"
        source.publish(model(server("g", tool("z"), tool("c"))))
        await pilot.pause()
        assert app.picker.current_row and app.picker.current_row.tool == "c"
        assert app.picker.option_count == 3


async def test_added_server_spec_from_a_command_line() -> None:
    source = StaticSource(connected_model())
    app = PickerApp(source)
    async with app.run_test() as pilot:
        await pilot.press("a")
        await pilot.pause()
        await pilot.press(*"mem", "tab")
        await pilot.press(*"python -m 'my server'", "enter")
        await settle(app)
        assert source.calls == [
            ("plugin_add", ("mem", StdioSpec(command="python", args=("-m", "my server"))))
        ]


async def test_empty_config_and_empty_filter_say_what_to_do() -> None:
    source = StaticSource(model())
    app = PickerApp(source)
    async with app.run_test() as pilot:
        empty = app.query_one("#empty", Static)
        assert empty.display and "press a to add one" in str(empty.render())
        source.publish(connected_model())
        await pilot.pause()
        assert not empty.display
        await pilot.press("slash", *"zzz")
        assert empty.display and "Nothing matches" in str(empty.render())


async def test_snapshots_arriving_under_a_dialog_are_shown_after_it() -> None:
    source = StaticSource(connected_model())
    app = PickerApp(source)
    async with app.run_test() as pilot:
        await pilot.press("question_mark")
        source.publish(failed_model())
        await pilot.pause()
        await pilot.press("escape")
        assert [row.server for row in app.picker.rows if row.kind == "server"] == [
            "notes",
            "broken",
            "parked",
        ]
        assert app.query_one("#status", Static).render() is not None


async def test_config_error_is_shown() -> None:
    broken = connected_model().model_copy(update={"config_error": "mcp.json:3:5: expected ','"})
    app = PickerApp(StaticSource(broken))
    async with app.run_test():
        error = app.query_one("#config-error", Static)
        assert error.display
        assert "expected ','" in str(error.render())


async def test_freeze_heap_freezes_once_the_first_settled_snapshot_is_shown() -> None:
    """Not while a server is connecting; then once; never without ``freeze_heap``."""
    gc.unfreeze()
    try:
        source = StaticSource(connecting_model())
        plain = PickerApp(StaticSource(connected_model()))
        async with plain.run_test() as pilot:
            await pilot.pause()
            assert gc.get_freeze_count() == 0
        app = PickerApp(source, freeze_heap=True)
        async with app.run_test() as pilot:
            await pilot.pause()
            assert gc.get_freeze_count() == 0
            source.publish(connected_model())
            await pilot.pause()
            frozen = gc.get_freeze_count()
            assert frozen > 0
            gc.unfreeze()
            source.publish(failed_model())
            await pilot.pause()
            assert gc.get_freeze_count() == 0  # once only
    finally:
        gc.unfreeze()


async def test_shift_r_restarts_the_server_under_the_cursor() -> None:
    """The failed row says how to retry; R asks the source to start that server again."""
    source = StaticSource(failed_model())
    app = PickerApp(source)
    async with app.run_test() as pilot:
        assert app.picker.select_key(("server", "broken"))
        assert app.picker.current_row is not None
        assert app.picker.current_row.text.endswith("R restarts")
        await pilot.press("R")
        await settle(app)
        await pilot.pause()
        assert source.calls == [("restart", ("broken",))]
        row = app.picker.current_row
        assert row is not None and row.key == ("server", "broken") and "connecting" in row.text


async def test_an_added_server_gets_the_cursor_and_a_notification() -> None:
    """The new server lands at the bottom of a list taller than the screen: the cursor moves
    to it (so it scrolls into view) and a notification says it was added."""
    many = model(*(server(f"s{i}", tool("t1"), tool("t2")) for i in range(12)))
    source = StaticSource(many)
    app = PickerApp(source)
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.press("a")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, AddServerScreen)
        form.query_one("#add-name", Input).value = "weather"
        form.query_one("#add-command", Input).value = f"{sys.executable} -m weather"
        await pilot.press("enter")
        await settle(app)
        await pilot.pause()
        assert source.calls[0][0] == "plugin_add"
        assert key_of(app) == ("server", "weather")
        picker = app.picker
        assert picker.highlighted is not None
        top = picker.scroll_offset.y
        assert top <= picker.highlighted < top + picker.scrollable_content_region.height
        assert [n.message for n in app._notifications] == ["Added server 'weather'."]


async def test_a_failed_restart_is_a_notification() -> None:
    source = StaticSource(failed_model())
    source.fail = OperationError("server 'broken' is not started: config not trusted")
    app = PickerApp(source)
    async with app.run_test() as pilot:
        assert app.picker.select_key(("server", "broken"))
        await pilot.press("R")
        await settle(app)
        await pilot.pause()
        assert [n.message for n in app._notifications] == [
            "server 'broken' is not started: config not trusted"
        ]


async def test_space_on_a_disabled_server_enables_it() -> None:
    """The disabled row says how to turn it back on; space clears its disabled flag (R does
    not restart it, and says to press space)."""
    source = StaticSource(failed_model())
    app = PickerApp(source)
    async with app.run_test() as pilot:
        assert app.picker.select_key(("server", "parked"))
        assert app.picker.current_row is not None
        assert app.picker.current_row.text.rstrip().endswith("disabled in config  space enables")
        await pilot.press("R")
        await pilot.press("space")
        await settle(app)
        await pilot.pause()
        assert source.calls == [("server_set_disabled", ("parked", False))]
        assert [n.message for n in app._notifications] == [
            "Server 'parked' is disabled in the config: space enables it."
        ]
        assert key_of(app) == ("server", "parked") and "connecting" in app.picker.rows[-1].text


def _remote_model() -> PluginModel:
    remote = ServerState(
        name="remote",
        spec=HttpSpec(url="http://127.0.0.1:1/mcp"),
        status="needs_login",
        error="needs login: run agentty-tui login remote",
    )
    return model(remote)


async def test_l_shows_the_login_url_and_escape_cancels_it() -> None:
    source = StaticSource(_remote_model())
    app = PickerApp(source)
    async with app.run_test() as pilot:
        await pilot.press("L")
        await settle(app)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, LoginScreen)
        url = "http://127.0.0.1:1/authorize?state=s&server=remote"
        assert screen.url == url
        shown = str(screen.query_one("#login-url", Static).render())
        assert url in shown.replace("\n", "")
        await pilot.press("escape")
        await settle(app)
        await pilot.pause()
        assert not isinstance(app.screen, LoginScreen)
        assert ("login cancelled", ("remote",)) in source.calls


async def test_l_takes_a_pasted_redirect_and_refuses_a_stdio_server() -> None:
    source = StaticSource(_remote_model())
    app = PickerApp(source)
    async with app.run_test() as pilot:
        await pilot.press("L")
        await settle(app)
        await pilot.pause()
        assert isinstance(app.screen, LoginScreen)
        app.screen.query_one("#login-paste", Input).value = "http://127.0.0.1:5/callback?code=c"
        await pilot.press("enter")
        await settle(app)
        await pilot.pause()
        assert ("login pasted", ("http://127.0.0.1:5/callback?code=c",)) in source.calls
        assert not isinstance(app.screen, LoginScreen)  # the dialog closes when the login ends
    stdio = StaticSource(connected_model())
    app = PickerApp(stdio)
    async with app.run_test() as pilot:
        await pilot.press("L")
        await pilot.pause()
        assert not isinstance(app.screen, LoginScreen)
        assert stdio.calls == []


async def test_server_details_say_whether_it_is_logged_in() -> None:
    from agentty_tui.model import AuthState

    state = (
        _remote_model()
        .servers[0]
        .model_copy(
            update={"auth": AuthState(logged_in=True, scopes=("mcp:tools",), expires_at=0.0)}
        )
    )
    app = PickerApp(StaticSource(model(state)))
    async with app.run_test() as pilot:
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ServerDetailsScreen)
        text = " ".join(str(s.render()) for s in app.screen.query(Static))
        assert "logged in · mcp:tools · access token until 1970-01-01 00:00 UTC" in text


async def test_o_in_a_logged_in_servers_details_logs_it_out() -> None:
    """The details of a URL server that is logged in offer logout (`o`); elsewhere `o` does
    nothing."""
    from agentty_tui.model import AuthState

    remote = _remote_model().servers[0]
    logged_in = remote.model_copy(update={"auth": AuthState(logged_in=True, scopes=("a",))})
    source = StaticSource(model(logged_in))
    app = PickerApp(source)
    async with app.run_test() as pilot:
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ServerDetailsScreen)
        hint = " ".join(str(s.render()) for s in app.screen.query(".dialog-hint"))
        assert "o logs out" in hint
        await pilot.press("o")
        await settle(app)
        assert not isinstance(app.screen, ServerDetailsScreen)
        assert source.calls == [("logout", (remote.name,))]
    logged_out = remote.model_copy(update={"auth": AuthState(logged_in=False)})
    source = StaticSource(model(logged_out))
    app = PickerApp(source)
    async with app.run_test() as pilot:
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("o")
        await pilot.pause()
        assert isinstance(app.screen, ServerDetailsScreen)
        assert source.calls == []


async def test_a_token_budget_applies_once_the_encoding_is_loaded_off_the_first_frame(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With ``toolTokenBudget`` set and the encoding not loaded yet, the first frame shows the
    count budget alone (it does not wait for the load); a worker thread loads it, then the
    token budget trims the last tool, the status bar shows the shipped tools' tokens and the
    warning names the token budget."""
    monkeypatch.setattr(lens_view_module, "TOKEN_COUNTER", TokenCounter())
    plain = model(server("notes", tool("a"), tool("b"), tool("c", description="x " * 40)))
    everything = project_catalog(plain, token_budget=100_000).tokens_shipped
    assert everything is not None
    budget = everything - 1  # the last tool (c) no longer fits
    app = PickerApp(StaticSource(plain.model_copy(update={"tool_token_budget": budget})))
    assert app.catalog.token_budget is None and not app.catalog.trimmed
    async with app.run_test() as pilot:
        with anyio.fail_after(30):
            while app.catalog.token_budget is None:
                await settle(app, "tokens")
                await pilot.pause()
        assert [ref.tool for ref in app.catalog.trimmed] == ["c"]
        shown = app.catalog.tokens_shipped
        assert shown is not None and shown < budget
        status = str(app.query_one("#status", Static).render())
        assert status.endswith(f"4/128 on the wire · {short_count(shown)} tokens")
        warning = str(app.query_one("#warning", Static).render())
        assert f"tokens over the token budget of {budget:,}" in warning
