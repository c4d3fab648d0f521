"""The picker's dialogs for what a server asks: a form of every kind of field (defaults, required
marks, inline validation), accept / decline / cancel, a page to open (its domain set apart,
warnings, opened only on Open), the queue (a second request while one is shown) and the
timeout. The requests go straight to the app's ``ServerAsks`` here; ``test_server_asks_live``
sends them from real servers."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types as types
import pytest
from rich.text import Text
from textual.pilot import Pilot
from textual.widgets import Button, Checkbox, Input, Select, SelectionList, Static

from agentty_tui.ui.app import PickerApp
from agentty_tui.ui.ask_dialog import Asker
from agentty_tui.ui.form_dialog import FormDialog
from agentty_tui.ui.server_asks import MAX_WAITING, ServerAsks
from agentty_tui.ui.text import PlainText
from agentty_tui.ui.url_dialog import UrlDialog
from tests.servers.elicit_server import FIELDS
from tests.ui.fakes import StaticSource, connected_model

pytestmark = pytest.mark.anyio

TIMEOUT = 10.0

Answers = dict[str, types.ElicitResult]


def form(
    schema: dict[str, Any] | None = None, message: str = "Tell us"
) -> types.ElicitRequestFormParams:
    return types.ElicitRequestFormParams(message=message, requested_schema=schema or FIELDS)


def page(
    url: str = "https://example.com/sign-in?next=%2F", eid: str = "p1"
) -> types.ElicitRequestURLParams:
    return types.ElicitRequestURLParams(message="Sign in to the thing", url=url, elicitation_id=eid)


class Opened(list[str]):
    """A stand-in browser: the URLs it was asked to open."""

    def __call__(self, url: str) -> bool:
        self.append(url)
        return True


@asynccontextmanager
async def picker(
    timeout: float = 60.0, opened: Opened | None = None
) -> AsyncIterator[tuple[PickerApp, Pilot[None], Callable[..., Awaitable[None]], Answers]]:
    """The picker over a static source, with ``ask(key, asker, params)`` that sends a request to
    its queue in a task of its own; each answer lands in the dict under ``key``."""
    app = PickerApp(StaticSource(connected_model()), follow=False)
    app.server_asks = ServerAsks(
        app, timeout=timeout, open_url=opened if opened is not None else Opened()
    )
    answers: Answers = {}
    async with (
        app.run_test(size=(100, 40), notifications=True) as pilot,
        anyio.create_task_group() as group,
    ):

        async def ask(key: str, asker: Asker, params: types.ElicitRequestParams) -> None:
            async def run() -> None:
                answers[key] = await app.server_asks.ask(asker, params)

            asks = app.server_asks
            before = asks.waiting + (asks.shown is not None)
            group.start_soon(run)
            # Queued, and the dialog on top is the shown request's (this one's, or the one
            # before it).
            await until(
                pilot,
                lambda: (
                    asks.waiting + (asks.shown is not None) > before
                    and asks.shown is not None
                    and asks.shown.dialog is app.screen
                ),
            )

        yield app, pilot, ask, answers
        group.cancel_scope.cancel()


async def until(pilot: Pilot[None], predicate: Callable[[], bool]) -> None:
    with anyio.fail_after(TIMEOUT):
        while not predicate():
            await pilot.pause(0.02)


def screen_text(app: PickerApp) -> str:
    """The text of every text widget of the dialog on top, in order."""
    return "\n".join(str(widget.render()) for widget in app.screen.query(Static))


def dialog_of(app: PickerApp) -> FormDialog:
    screen = app.screen
    assert isinstance(screen, FormDialog)
    return screen


def widget(app: PickerApp, name: str) -> Any:
    dialog = dialog_of(app)
    number = [field.name for field in dialog.fields].index(name)
    return dialog.query_one(f"#ask-field-{number}")


def error_of(app: PickerApp, name: str) -> str:
    dialog = dialog_of(app)
    number = [field.name for field in dialog.fields].index(name)
    return str(dialog.query_one(f"#ask-error-{number}", PlainText).render())


async def test_every_kind_of_field_has_its_widget_its_default_and_its_mark() -> None:
    async with picker() as (app, pilot, ask, _):
        await ask("a", Asker("forms", "fields", 600), form())
        await pilot.pause()
        assert (
            isinstance(
                widget(
                    app,
                    "name",
                ),
                Input,
            )
            and widget(app, "name").value == "Ada"
        )
        assert widget(app, "name").max_length == 20
        for text in ("email", "site", "born", "meet"):
            assert isinstance(widget(app, text), Input) and widget(app, text).value == ""
        assert widget(app, "age").type == "integer" and widget(app, "age").value == "36"
        assert widget(app, "score").type == "number"
        assert isinstance(widget(app, "agree"), Checkbox) and widget(app, "agree").value is False
        assert (
            isinstance(widget(app, "color"), Select) and widget(app, "color").value is Select.NULL
        )
        assert widget(app, "size").value == "l"
        tags = widget(app, "tags")
        assert isinstance(tags, SelectionList) and tags.selected == ["alpha"]
        shown = screen_text(app)
        assert "A form from forms" in shown
        assert "Server 'forms' asks, during your call of 'fields':" in shown
        assert "Tell us" in shown
        assert "Name *" in shown and "Web site" in shown and "Web site *" not in shown
        assert "an email address" in shown  # the hint under a text field
        assert "an integer from 0 to 150" in shown
        assert "Unanswered for 10 min, it is declined." in shown


async def test_what_does_not_fit_is_said_under_its_field_and_a_fixed_one_clears() -> None:
    async with picker() as (app, pilot, ask, answers):
        await ask("a", Asker("forms", None, 600), form())
        await pilot.pause()
        widget(app, "name").value = "A"
        widget(app, "email").value = "not-an-address"
        widget(app, "age").value = "151"
        widget(app, "born").value = "yesterday"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, FormDialog)  # nothing sent
        assert error_of(app, "name") == "at least 2 characters"
        assert error_of(app, "email") == "not an email address: 'not-an-address'"
        assert error_of(app, "age") == "must be at most 150"
        assert error_of(app, "born") == "not a date (YYYY-MM-DD): 'yesterday'"
        assert error_of(app, "color") == "this field is required"
        assert error_of(app, "site") == ""  # optional and empty: left out
        assert app.screen.focused is widget(app, "name")  # the first field to fix
        widget(app, "name").value = "Grace"
        await pilot.pause()
        assert error_of(app, "name") == ""  # cleared as soon as it fits
        assert "not-an-address" in error_of(app, "email")
        assert "color" not in answers


async def test_a_filled_form_is_sent_with_each_value_of_its_kind() -> None:
    async with picker() as (app, pilot, ask, answers):
        await ask("a", Asker("forms", None, 600), form())
        await pilot.pause()
        assert app.screen.focused is widget(app, "name")  # the first field has the focus
        await pilot.press("end", "a")  # typed: "Adaa"
        widget(app, "email").value = "ada@example.org"
        widget(app, "site").value = "https://ada.example.org"
        widget(app, "born").value = "1815-12-10"
        widget(app, "meet").value = "2026-12-02T10:00:00Z"
        widget(app, "score").value = "0.5"
        widget(app, "agree").value = True
        widget(app, "color").value = "green"
        widget(app, "tags").select("gamma")
        await pilot.pause()
        dialog_of(app).query_one("#ask-accept", Button).press()
        await until(pilot, lambda: "a" in answers)
        answer = answers["a"]
        assert answer.action == "accept"
        assert answer.content == {
            "name": "Adaa",
            "email": "ada@example.org",
            "site": "https://ada.example.org",
            "born": "1815-12-10",
            "meet": "2026-12-02T10:00:00Z",
            "age": 36,
            "score": 0.5,
            "agree": True,
            "color": "green",
            "size": "l",
            "tags": ["alpha", "gamma"],
        }
        assert not isinstance(app.screen, FormDialog)


async def test_too_many_choices_say_so() -> None:
    async with picker() as (app, pilot, ask, _answers):
        await ask("a", Asker("forms", None, 600), form())
        await pilot.pause()
        widget(app, "email").value = "ada@example.org"
        widget(app, "color").value = "red"
        widget(app, "tags").select_all()
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert error_of(app, "tags") == "pick at most 2"
        widget(app, "tags").deselect_all()
        await pilot.pause()
        assert error_of(app, "tags") == "this field is required"
        widget(app, "tags").select("beta")
        await pilot.pause()
        assert error_of(app, "tags") == ""


async def test_decline_and_cancel_are_distinct_answers() -> None:
    async with picker() as (app, pilot, ask, answers):
        await ask("declined", Asker("forms", None, 600), form())
        dialog_of(app).query_one("#ask-decline", Button).press()
        await until(pilot, lambda: "declined" in answers)
        await ask("escaped", Asker("forms", None, 600), form())
        await pilot.press("escape")
        await until(pilot, lambda: "escaped" in answers)
        await ask("cancelled", Asker("forms", None, 600), form())
        dialog_of(app).query_one("#ask-cancel", Button).press()
        await until(pilot, lambda: "cancelled" in answers)
        assert [answers[key].action for key in ("declined", "escaped", "cancelled")] == [
            "decline",
            "cancel",
            "cancel",
        ]
        assert all(answers[key].content is None for key in answers)


async def test_a_request_while_another_is_shown_waits_its_turn() -> None:
    one = {"type": "object", "properties": {"reply": {"type": "string"}}}
    async with picker() as (app, pilot, ask, answers):
        await ask("first", Asker("alpha", None, 600), form(one, "first question"))
        await ask("second", Asker("beta", None, 600), form(one, "second question"))
        await ask("third", Asker("alpha", None, 600), page())
        await until(pilot, lambda: "2 more requests wait after this one." in screen_text(app))
        assert app.server_asks.waiting == 2
        assert "first question" in screen_text(app)
        widget(app, "reply").value = "one"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: "first" in answers)
        await until(pilot, lambda: "second question" in screen_text(app))
        assert "1 more request waits after this one." in screen_text(app)
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, UrlDialog))
        await pilot.press("escape")
        await until(pilot, lambda: "third" in answers)
        assert answers["first"].content == {"reply": "one"}
        assert [answers[key].action for key in ("first", "second", "third")] == [
            "accept",
            "cancel",
            "cancel",
        ]
        assert app.server_asks.shown is None and app.server_asks.waiting == 0


async def test_a_request_nobody_answers_is_declined_and_its_dialog_closed() -> None:
    """Two requests, the second queued behind the first: each is declined once its time is up
    (counted from its arrival), the shown one's dialog closed."""
    async with picker(timeout=2.0) as (app, pilot, _, _answers):
        answers: list[str] = []
        with anyio.fail_after(TIMEOUT):  # the two requests end by themselves, or this fails
            async with anyio.create_task_group() as group:
                for _ in range(2):

                    async def one() -> None:
                        answer = await app.server_asks.ask(Asker("slow", None, 2.0), form())
                        answers.append(answer.action)

                    group.start_soon(one)
                await until(pilot, lambda: isinstance(app.screen, FormDialog))
                assert app.server_asks.waiting == 1
        await until(pilot, lambda: not isinstance(app.screen, FormDialog))
        await pilot.pause()
        assert answers == ["decline", "decline"]
        assert app.server_asks.shown is None and app.server_asks.waiting == 0
        await until(pilot, lambda: len(app._notifications) == 2)
        notes = [n.message for n in app._notifications]
        assert notes == ["A request of server 'slow' went unanswered: declined."] * 2
        notes = [n.message for n in app._notifications]
        assert notes.count("A request of server 'slow' went unanswered: declined.") == 2


async def test_a_request_the_server_withdraws_closes_its_dialog() -> None:
    """The handler's task is cancelled (the server cancelled the request, or went away): the
    dialog goes, and the next request comes."""
    async with picker() as (app, pilot, _, _answers):
        async with anyio.create_task_group() as group:
            group.start_soon(app.server_asks.ask, Asker("gone", None, 600), form())
            await until(pilot, lambda: isinstance(app.screen, FormDialog))
            group.cancel_scope.cancel()
        await until(pilot, lambda: not isinstance(app.screen, FormDialog))
        assert app.server_asks.shown is None
        await pilot.pause()  # the dialog's last events, before the app ends


async def test_the_servers_text_is_shown_plain() -> None:
    hostile = "\x1b[2J[bold red]wipe[/] \x07"
    schema = {
        "type": "object",
        "properties": {"x": {"type": "string", "title": "[b]T\x1b[31m", "enum": ["[/]\x1b"]}},
    }
    async with picker() as (app, pilot, ask, _):
        await ask("a", Asker("h[/]", "t", 600), form(schema, hostile))
        await pilot.pause()
        shown = screen_text(app)
        assert "\x1b" not in shown and "\x07" not in shown
        assert "[bold red]wipe[/]" in shown and "[b]T␛[31m" in shown


async def test_a_page_shows_its_domain_apart_and_opens_only_on_open() -> None:
    opened = Opened()
    async with picker(opened=opened) as (app, pilot, ask, answers):
        await ask("a", Asker("signer", "login", 600), page())
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, UrlDialog)
        url = dialog.query_one("#ask-url-text", PlainText).render()
        assert isinstance(url, Text) or "example.com" in str(url)
        shown = screen_text(app)
        assert "https://example.com/sign-in?next=%2F" in shown
        assert "Its domain: example.com" in shown
        assert "⚠" not in shown
        await pilot.pause(0.2)
        assert opened == []  # nothing before the person agrees
        await pilot.press("o")
        await until(pilot, lambda: "a" in answers)
        assert answers["a"].action == "accept"
        await until(pilot, lambda: opened == ["https://example.com/sign-in?next=%2F"])


async def test_a_doubtful_page_is_warned_about_and_a_non_web_one_cannot_be_opened() -> None:
    opened = Opened()
    async with picker(opened=opened) as (app, pilot, ask, answers):
        await ask("a", Asker("signer", None, 600), page("https://bank.com@xn--80ak6aa92e.com/"))
        await pilot.pause()
        shown = screen_text(app)
        assert "⚠ the domain is written in punycode; it reads 'аррӏе.com'" in shown
        assert "⚠ the URL puts 'bank.com' before the domain" in shown
        await pilot.press("escape")
        await until(pilot, lambda: "a" in answers)
        await ask("b", Asker("signer", None, 600), page("javascript:alert(1)"))
        await pilot.pause()
        assert app.screen.query_one("#ask-open", Button).disabled
        assert "⚠ this is no http or https page: it is not opened" in screen_text(app)
        await pilot.press("o")
        await pilot.pause()
        assert isinstance(app.screen, UrlDialog)  # o did nothing
        app.screen.query_one("#ask-decline", Button).press()
        await until(pilot, lambda: "b" in answers)
        assert answers["b"].action == "decline" and opened == []


async def test_a_server_asking_in_a_loop_piles_up_no_more_than_max_waiting() -> None:
    one = {"type": "object", "properties": {"reply": {"type": "string"}}}
    async with picker() as (app, pilot, _, _answers):
        answers: list[str] = []

        async def one_more() -> None:
            answers.append((await app.server_asks.ask(Asker("loop", None, 600), form(one))).action)

        async with anyio.create_task_group() as group:
            for _ in range(MAX_WAITING + 3):
                group.start_soon(one_more)
            await until(pilot, lambda: len(answers) == 2)  # one shown, MAX_WAITING waiting
            assert answers == ["decline", "decline"]
            assert app.server_asks.waiting == MAX_WAITING
            group.cancel_scope.cancel()
        await until(
            pilot, lambda: any("requests wait: declined" in n.message for n in app._notifications)
        )
        await pilot.pause()


def test_the_hosts_of_calls_in_flight_are_said_bounded_and_safe() -> None:
    """What the daemon says of the hosts whose calls were in flight is the daemon's, but
    their projects are folders a host named: the link's list is cut at ``MAX_DURING`` (the
    rest counted), anything of the wrong shape dropped; a dialog names ``NAMED_DURING``,
    counts the rest, shows controls as visible marks and cuts a long project."""
    from agentty_tui.gateway.picker.view import MAX_DURING, AskedBy
    from agentty_tui.ui.server_asks import NAMED_DURING, PROJECT_SHOWN, during_text

    hosts = [{"host": "claude", "project": "/p\x1b[31m\n"}, {"host": None, "project": "/q"}]
    hosts += [{"host": "codex", "project": "/x" * PROJECT_SHOWN}] * MAX_DURING
    hosts += [{"host": 1, "project": "/bad"}, "nothing", {"host": "gemini"}]
    said = {"during": hosts, "during_more": 3, "during_others": True}
    by = AskedBy.of_json("old", said)
    assert len(by.during) == MAX_DURING and by.during[:2] == (
        ("claude", "/p\x1b[31m\n"),
        (None, "/q"),
    )
    assert by.during_more == 3 + 2 and by.during_others == 0 and by.during_calls
    text = during_text(by)
    assert "\x1b" not in text and "\n" not in text
    assert text.startswith("host claude (project /p␛[31m⏎), a host served every host's servers")
    assert text.count("(project ") == NAMED_DURING
    assert "more characters not shown" in text
    assert text.endswith(f", {MAX_DURING + 5 - NAMED_DURING} more hosts")
    assert not AskedBy.of_json("old", {"during": "x"}).during_calls
    assert during_text(AskedBy("s", during_others=2)) == "your own calls"
