"""The picker's first frame before a large file of the workspace is read
(``bridge/starting.py``): the fast files' servers, a line saying which file is being read, never
"No servers"; then the large file's servers, once it is read, from the same source."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import anyio
import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from agentty_tui.bridge.starting import StartingSource
from agentty_tui.config.workspace import open_workspace
from agentty_tui.ui.app import PickerApp
from agentty_tui.ui.text import PlainText
from tests.fake_home import build_fake_home
from tests.ui.fakes import StaticSource, connecting_model

pytestmark = pytest.mark.anyio

TIMEOUT = 30.0


async def until(pilot: Pilot[None], predicate: Callable[[], bool]) -> None:
    """Let the app run until ``predicate`` holds (or fail after ``TIMEOUT``)."""
    with anyio.fail_after(TIMEOUT):
        while not predicate():
            await pilot.pause()


def _texts(app: PickerApp) -> tuple[str, str]:
    """The list's empty-state text and the config bar's text."""
    empty = str(app.query_one("#empty", PlainText).content)
    return empty, str(app.query_one("#config-error", Static).render())


async def test_only_servers_in_a_file_still_being_read_is_not_no_servers(tmp_path: Path) -> None:
    """Our user file holds nothing, ``~/.claude.json`` two servers: the first frame says the
    file is being read (not "No servers"); its servers appear once it is read."""
    fake = build_fake_home(
        tmp_path / "fake",
        sources=("claude-user", "claude-local"),
        layered=False,
        twins=(),
        untrusted=False,
        url=None,
        prompted_input=False,
        muted=False,
    )
    source = StartingSource(open_workspace(fake.cwd, home=fake.home, env=fake.env), slow_bytes=1)
    source.load()
    app = PickerApp(source, follow=True)
    frame = anyio.Event()
    async with anyio.create_task_group() as group, app.run_test() as pilot:
        group.start_soon(source.run, frame)
        await pilot.pause()
        empty, bar = _texts(app)
        assert "No servers" not in empty
        assert empty.startswith("Reading the workspace's files")
        assert bar.startswith("reading ~/.claude.json (0.0 MiB): its servers are shown once")
        frame.set()
        await until(pilot, lambda: len(app.model.servers) == 2)
        assert {s.name for s in app.model.servers} == {"claude-user-1", "claude-local-1"}
        assert app.model.reading == ()
        assert not app.query_one("#empty", PlainText).display
        assert "reading" not in _texts(app)[1]
        source.close()
        group.cancel_scope.cancel()


async def test_the_fast_files_servers_are_listed_beside_the_line() -> None:
    model = connecting_model().model_copy(
        update={"reading": ("reading ~/.claude.json (16.6 MiB): its servers are shown once",)}
    )
    app = PickerApp(StaticSource(model), follow=False)
    async with app.run_test() as pilot:
        await pilot.pause()
        assert [r.server for r in app.picker.rows if r.kind == "server"] == [
            s.name for s in model.servers
        ]
        assert not app.query_one("#empty", PlainText).display
        assert "16.6 MiB" in _texts(app)[1]
