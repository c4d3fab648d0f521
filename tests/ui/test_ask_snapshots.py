"""SVG snapshots of the dialogs for what a server asks (stored in ``snapshots/test_ask_snapshots``):
the form of every kind of field and the page to open, at 80×24 and 60×20.

The requests go straight to the app's queue (``ServerAsks.ask``) over a static source; no server
runs. Update with ``pytest tests/ui/test_ask_snapshots.py --snapshot-update`` and look at each
SVG.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import anyio
import mcp_types as types
import pytest
from textual.pilot import Pilot

from agentty_tui.gateway.picker.view import AskedBy
from agentty_tui.ui.app import PickerApp
from agentty_tui.ui.ask_dialog import AskDialog, Asker
from agentty_tui.ui.server_asks import UNANSWERED_SECONDS, during_text
from tests.servers.elicit_server import FIELDS
from tests.ui.fakes import StaticSource, connected_model
from tests.ui.test_snapshots import no_blink

SnapCompare = Callable[..., bool]
SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((60, 20), id="60x20")]


def asking(
    asker: Asker, *requests: types.ElicitRequestParams
) -> Callable[[Pilot[None]], Awaitable[None]]:
    """A ``run_before`` that sends ``requests`` to the app's queue and waits for the first's
    dialog."""

    async def run(pilot: Pilot[None]) -> None:
        app = pilot.app
        assert isinstance(app, PickerApp)
        for params in requests:
            app.run_worker(app.server_asks.ask(asker, params), exit_on_error=False)
        with anyio.fail_after(10):
            while not isinstance(app.screen, AskDialog) or (
                app.server_asks.waiting < len(requests) - 1
            ):
                await pilot.pause(0.02)
            # And until its first field (or the URL) holds the focus, which it takes once it is
            # shown: on a loaded machine the picture could otherwise be taken before.
            while app.screen.focused is None or app.screen.focused is not app.screen.query_one(
                str(app.screen.AUTO_FOCUS)
            ):
                await pilot.pause(0.02)
        await pilot.pause()
        await no_blink(pilot)

    return run


@pytest.mark.parametrize("size", SIZES)
def test_form_of_every_kind_of_field(snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    """The form of ``elicit_server``'s ``fields``: the title naming the server, who asks during
    which call, the message, then Name (``*``, "Ada" filled in, its hint: text of 2 to 20
    characters) with the first fields below; the dialog scrolls (its scroll bar at the right),
    the rest further down. At 60×20 it fills the screen with one-line fields."""
    app = PickerApp(StaticSource(connected_model()), follow=False)
    request = types.ElicitRequestFormParams(
        message="Tell us about yourself", requested_schema=FIELDS
    )
    run = asking(Asker("asker", "fields", UNANSWERED_SECONDS), request)
    assert snap_compare(app, terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES)
def test_form_scrolled_to_its_buttons(snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    """The same form after ``end``: the multi-select Tags (Alpha checked), "* required", the
    Accept / Decline / Cancel buttons, the key hint, "Unanswered for 10 min, it is declined."
    and "1 more request waits after this one." (a second request is queued)."""
    app = PickerApp(StaticSource(connected_model()), follow=False)
    request = types.ElicitRequestFormParams(
        message="Tell us about yourself", requested_schema=FIELDS
    )
    ask = asking(Asker("asker", None, UNANSWERED_SECONDS), request, request)

    async def run(pilot: Pilot[None]) -> None:
        await ask(pilot)
        pilot.app.screen.query_one(".dialog").scroll_end(animate=False)
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES)
def test_page_with_a_doubtful_domain(snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    """A page to open whose URL puts ``bank.example`` before the real domain, a punycode one:
    the whole URL with the real domain reversed, "Its domain: xn--80ak6aa92e.com", two
    warnings (⚠ punycode reading 'аррӏе.com' and mixed scripts; ⚠ the user part), Open /
    Decline / Cancel."""
    app = PickerApp(StaticSource(connected_model()), follow=False)
    request = types.ElicitRequestURLParams(
        message="Sign in to continue",
        url="https://bank.example@xn--80ak6aa92e.com/sign-in?next=%2Fhome",
        elicitation_id="p1",
    )
    run = asking(Asker("signer", "login", UNANSWERED_SECONDS), request)
    assert snap_compare(app, terminal_size=size, run_before=run)


def test_form_of_a_hosts_call_through_the_daemon(snap_compare: SnapCompare) -> None:
    """A form asked of the picker attached to the gateway daemon during a host's call: under
    the title, "Server 'old' asks, during the call of 'confirm' by host claude (project
    /home/u/app):", then the server's message and the form."""
    app = PickerApp(StaticSource(connected_model()), follow=False)
    schema = {"type": "object", "properties": {"proceed": {"type": "boolean", "title": "Proceed"}}}
    request = types.ElicitRequestFormParams(message="Proceed?", requested_schema=schema)
    asker = Asker("old", "confirm", UNANSWERED_SECONDS, "host claude (project /home/u/app)")
    assert snap_compare(app, terminal_size=(80, 24), run_before=asking(asker, request))


def test_form_during_calls_of_several_hosts(snap_compare: SnapCompare) -> None:
    """A form the gateway daemon asks that came during calls of several hosts (a 2025 server's
    request that names none of them): under the title, "Server 'old' asks, during calls of
    several hosts at once, not saying whose: host claude (project /home/u/app), host cursor
    (project /home/u/site), a host served every host's servers (project /home/u/app), 2 more
    hosts, your own call:", wrapped, then the server's message and the form."""
    app = PickerApp(StaticSource(connected_model()), follow=False)
    schema = {"type": "object", "properties": {"proceed": {"type": "boolean", "title": "Proceed"}}}
    request = types.ElicitRequestFormParams(message="Proceed?", requested_schema=schema)
    hosts = (
        ("claude", "/home/u/app"),
        ("cursor", "/home/u/site"),
        (None, "/home/u/app"),
        ("codex", "/home/u/app"),
        ("gemini", "/home/u/app"),
    )
    by = AskedBy("old", during=hosts, during_others=1)
    asker = Asker("old", None, UNANSWERED_SECONDS, during=during_text(by))
    assert snap_compare(app, terminal_size=(80, 24), run_before=asking(asker, request))
