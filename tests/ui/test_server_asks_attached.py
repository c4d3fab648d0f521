"""The picker attached to the real gateway daemon answers what the daemon's servers ask: pilot.

A host (an SDK client through ``serve --shared``, declaring no elicitation) starts the daemon;
the picker attaches to it from this process (``RemoteSource``). A form a server asks during
the host's call appears in the picker's form dialog naming the host and its project, and the
host's call gets the picker's answer; the picker's own call through the daemon draws the
server's progress, and escape has the daemon cancel it (the server hears
``notifications/cancelled``); a page asked outside any call and accepted is said done.
"""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from textual.widgets import Static

from agentty_tui.ui.app import PickerApp
from agentty_tui.ui.call import CANCELLED
from agentty_tui.ui.form_dialog import FormDialog
from agentty_tui.ui.server_asks import ServerAsks
from agentty_tui.ui.url_dialog import UrlDialog
from tests.gateway.conftest import runtime
from tests.gateway.daemon.test_picker_asks import config, ready, waiting_call
from tests.gateway.daemon.test_process import attached, text_of
from tests.gateway.picker.test_remote_source import picker_source, until_model
from tests.ui.test_app_live import until
from tests.ui.test_call_live import call, shown
from tests.ui.test_server_asks_live import Opened

pytestmark = pytest.mark.anyio

__all__ = ["config", "runtime"]  # the fixtures, shared with the gateway's tests

TIMEOUT = 30.0


def screen_text(app: PickerApp) -> str:
    return "\n".join(str(widget.render()) for widget in app.screen.query(Static))


async def test_a_hosts_call_asks_the_attached_picker_naming_the_host(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    async with (
        attached(config, runtime, tmp_path / "host") as host,
        picker_source(config, runtime, tmp_path / "picker") as source,
    ):
        await until_model(source, ready)
        app = PickerApp(source)
        async with app.run_test(size=(120, 45)) as pilot, anyio.create_task_group() as group:
            got: list[str] = []

            async def host_call() -> None:
                got.append(text_of(await host.call_tool("old__confirm", {})))

            group.start_soon(host_call)
            await until(pilot, lambda: isinstance(app.screen, FormDialog))
            assert (
                f"Server 'old' asks, during the call of 'confirm' by a host served every "
                f"host's servers (project {config}):" in screen_text(app)
            )
            await pilot.press("ctrl+s")  # accept, with the form's defaults
            with anyio.fail_after(TIMEOUT):
                while not got:
                    await pilot.pause(0.05)
        assert got == ['accept {"note": "", "proceed": false}']


async def test_a_form_during_calls_of_two_hosts_names_both_in_the_picker(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    """A 2025 server asks while calls of two hosts are in flight: the dialog says it came
    during calls of several hosts, naming both (not "outside any call of yours"); the
    picker's answer reaches the server."""
    async with (
        attached(config, runtime, tmp_path / "one") as one,
        attached(config, runtime, tmp_path / "two") as two,
        picker_source(config, runtime, tmp_path / "picker") as source,
    ):
        await until_model(source, ready)
        app = PickerApp(source)
        async with (
            app.run_test(size=(120, 45)) as pilot,
            waiting_call(one, tmp_path / "cancelled.txt"),
            anyio.create_task_group() as group,
        ):
            got: list[str] = []

            async def host_call() -> None:
                got.append(text_of(await two.call_tool("old__confirm", {})))

            group.start_soon(host_call)
            await until(pilot, lambda: isinstance(app.screen, FormDialog))
            every = f"a host served every host's servers (project {config})"
            said = " ".join(screen_text(app).split())
            assert (
                "Server 'old' asks, during calls of several hosts at once, not saying whose: "
                f"{every}, {every}:" in said
            )
            assert "outside any call" not in said
            await pilot.press("ctrl+s")  # accept, with the form's defaults
            with anyio.fail_after(TIMEOUT):
                while not got:
                    await pilot.pause(0.05)
        assert got == ['accept {"note": "", "proceed": false}']


async def test_the_pickers_own_call_draws_progress_and_escape_cancels_it_in_the_daemon(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "marker"
    async with (
        attached(config, runtime, tmp_path / "host"),
        picker_source(config, runtime, tmp_path / "picker") as source,
    ):
        await until_model(source, ready)
        app = PickerApp(source)
        async with app.run_test(size=(110, 32)) as pilot:
            await call(pilot, app, "old", "crawl", json.dumps({"marker": str(marker)}))
            with anyio.fail_after(TIMEOUT):
                while "2/5 · crawling page 2" not in shown(app, "#call-progress"):
                    await pilot.pause(0.05)
            await pilot.press("escape")
            with anyio.fail_after(TIMEOUT):
                while not marker.exists():
                    await pilot.pause(0.05)
            assert marker.read_text() == "cancelled"
            await until(pilot, lambda: shown(app, "#call-result") == CANCELLED)


async def test_a_page_accepted_outside_any_call_is_said_done_in_the_attached_picker(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    opened = Opened()
    async with (
        attached(config, runtime, tmp_path / "host") as host,
        picker_source(config, runtime, tmp_path / "picker") as source,
    ):
        await until_model(source, ready)
        app = PickerApp(source)
        app.server_asks = ServerAsks(app, open_url=opened)
        async with app.run_test(size=(110, 45), notifications=True) as pilot:
            await until(pilot, lambda: app.picker.select_key(("tool", "asker", "later_page")))
            await host.call_tool("asker__later_page", {})
            await until(pilot, lambda: isinstance(app.screen, UrlDialog))
            assert "Server 'asker' asks, outside any call of yours:" in screen_text(app)
            await pilot.press("o")
            await until(pilot, lambda: opened == ["https://login.example.org/later"])
            done = "Server 'asker' says the page you opened at login.example.org is done."
            await until(pilot, lambda: any(n.message == done for n in app._notifications))
