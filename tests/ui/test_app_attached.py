"""The picker attached to the real gateway daemon (``RemoteSource``): pilot tests.

A host (an SDK client through ``serve --shared``) starts the daemon in the test's runtime
folder; the picker attaches to it from this process as ``run_picker`` does, toggles, and the
host hears ``tools/list_changed``. The daemon killed under the picker is said on screen.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from textual.widgets import Static

from agentty_tui.gateway.rendezvous import rendezvous
from agentty_tui.ui.app import PickerApp
from agentty_tui.ui.dialogs import ToolDetailsScreen
from tests.gateway.hosts import Notices
from tests.gateway.test_daemon import attached, daemon_gone, text_of
from tests.gateway.test_remote_source import config, picker_source, runtime
from tests.ui.fakes import settle
from tests.ui.test_app_live import until

pytestmark = pytest.mark.anyio

__all__ = ["config", "runtime"]  # the fixtures, shared with the source's tests


def text(app: PickerApp, selector: str) -> str:
    return str(app.query_one(selector, Static).render())


async def test_the_attached_picker_toggles_for_the_host_and_shows_who_sees_what(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    notices = Notices()
    async with attached(config, runtime, tmp_path / "host", notices) as host:
        pid = int(text_of(await host.call_tool("alpha__pid", {})))
        async with picker_source(config, runtime, tmp_path / "picker") as source:
            app = PickerApp(source)
            async with app.run_test(size=(120, 40)) as pilot:
                await until(pilot, lambda: app.picker.select_key(("tool", "alpha", "add")))
                await until(
                    pilot, lambda: "1 host(s) attached for this workspace" in text(app, "#daemon")
                )
                assert f"gateway daemon {source.daemon.pid}" in text(app, "#title")
                assert f"every host  {config}  since " in text(app, "#daemon")
                await pilot.press("enter")
                assert isinstance(app.screen, ToolDetailsScreen)
                facts = str(app.screen.query_one("#details-facts", Static).render())
                assert "hosts      every host" in facts
                await pilot.press("escape")
                await pilot.press("space")
                await settle(app)
                await notices.until(1)
                listed = {tool.name for tool in (await host.list_tools()).tools}
                assert "alpha__add" not in listed and "alpha__echo" in listed
                await until(pilot, lambda: "3 tools listed" in text(app, "#daemon"))
                assert [s.pid for s in source.snapshot.servers] == [pid]  # no second spawn

                os.kill(source.daemon.pid or 0, signal.SIGKILL)
                await until(pilot, lambda: "daemon gone" in text(app, "#title"))
                assert "the gateway daemon went away" in text(app, "#daemon")
                await pilot.press("space")  # said, not silently dropped
                await until(
                    pilot,
                    lambda: any("went away" in str(n.message) for n in app._notifications),
                )
                await notices.until(2, timeout=60)  # the host's serve started a new daemon
                await host.call_tool("alpha__pid", {})
                await until(
                    pilot, lambda: "1 host(s) attached for this workspace" in text(app, "#daemon")
                )
                new = int(rendezvous({"XDG_RUNTIME_DIR": str(runtime)}).pid.read_text())
                assert f"gateway daemon {new}" in text(app, "#title")
    await daemon_gone(runtime)
