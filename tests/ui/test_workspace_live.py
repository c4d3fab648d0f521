"""Pilot tests of the picker on a real workspace: a bridge over a fake home and project
(``tests/fake_home.py``) with real subprocess servers. Each test checks the files afterwards:
an edit lands in the one file it names, the others keep every byte; a trust is on disk (under
the fake home's ``XDG_STATE_HOME``, never the real one)."""

from __future__ import annotations

import json
import shlex
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import anyio
import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Select, Static

from agentty_tui.bridge import Bridge
from agentty_tui.config.trust import default_trust_file
from agentty_tui.config.workspace import Workspace, open_workspace
from agentty_tui.model import SourceRef
from agentty_tui.ui.app import PickerApp
from agentty_tui.ui.dialogs import ConfirmScreen, ServerDetailsScreen, ToolDetailsScreen
from agentty_tui.ui.server_form import AddServerScreen
from tests.fake_home import LAYERED, REPO_TOOL, FakeHome, build_fake_home
from tests.servers import plain_argv
from tests.ui.fakes import settle

pytestmark = pytest.mark.anyio

TIMEOUT = 30.0


@pytest.fixture
def fake(tmp_path: Path) -> FakeHome:
    """Our user file, the project's ``.mcp.json`` and Claude Code's local scope: ``layered``
    in all three (the local one runs), ``repo-tool`` in the project file (waits for trust)."""
    return build_fake_home(
        tmp_path / "fake",
        servers_per_source=0,
        sources=("agentty-user", "claude-local", "project-mcp"),
        twins=(),
        url=None,
        prompted_input=False,
        muted=False,
    )


def workspace_of(fake: FakeHome) -> Workspace:
    return open_workspace(fake.cwd, home=fake.home, env=fake.env)


@pytest.fixture
async def bridge(fake: FakeHome, tmp_path: Path) -> AsyncIterator[Bridge]:
    async with Bridge(workspace_of(fake), log_dir=tmp_path / "logs") as running:
        with anyio.fail_after(TIMEOUT):
            await running.settled()
        yield running


async def until(pilot: Pilot[None], predicate: Callable[[], bool]) -> None:
    with anyio.fail_after(TIMEOUT):
        while not predicate():
            await pilot.pause()


def text_of(app: PickerApp, key: tuple[str, ...]) -> str:
    return next((row.text for row in app.picker.rows if row.key == key), "")


def dialog_text(app: PickerApp) -> str:
    return str(app.screen.query_one(".dialog-text", Static).render())


def ref(fake: FakeHome, source: str) -> SourceRef:
    entry = fake.files[source]
    scope = {"agentty-user": "user", "claude-local": "local", "project-mcp": "project"}[source]
    host = "agentty" if source == "agentty-user" else "claude"
    return SourceRef(path=str(entry), scope=scope, host=host)


def shadowed_key(fake: FakeHome, source: str) -> tuple[str, ...]:
    where = ref(fake, source)
    return ("shadowed", LAYERED, where.path, where.scope)


async def test_rows_show_where_each_server_is_from_and_t_trusts_one_on_disk(
    fake: FakeHome, bridge: Bridge
) -> None:
    app = PickerApp(bridge)
    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: "tools on" in text_of(app, ("server", LAYERED)))
        assert "claude · local" in text_of(app, ("server", LAYERED))
        # The project's ``layered``, under the one Claude Code runs; our file's is ours.
        row = text_of(app, shadowed_key(fake, "project-mcp"))
        assert "project .mcp.json" in row and "shadowed by claude · local" in row
        ours = text_of(app, ("server", f"{LAYERED}@agentty"))
        assert "agentty" in ours and "shadowed" not in ours
        waiting = text_of(app, ("server", REPO_TOOL))
        argv = fake.entry("project-mcp", REPO_TOOL).argv
        assert argv is not None
        assert f"not trusted — T to trust  runs: {shlex.join(argv)}" in waiting
        assert app.picker.select_key(("server", REPO_TOOL))
        await pilot.press("T")
        await pilot.pause()
        await pilot.press("y")
        await settle(app)
        await until(pilot, lambda: "tools on" in text_of(app, ("server", REPO_TOOL)))
    # Remembered under the fake home's state folder: a new run trusts it without asking.
    assert default_trust_file(fake.home, fake.env).is_file()
    again = workspace_of(fake).load().server(REPO_TOOL)
    assert again is not None and again.untrusted is None


async def test_x_on_a_shadowed_entry_removes_it_from_its_own_file_only(
    fake: FakeHome, bridge: Bridge
) -> None:
    before = fake.snapshot()
    app = PickerApp(bridge)
    async with app.run_test(size=(120, 30)) as pilot:
        hidden = shadowed_key(fake, "project-mcp")
        await until(pilot, lambda: app.picker.select_key(hidden))
        await pilot.press("x")
        await pilot.pause()
        await pilot.press("y")
        await settle(app)
        await until(pilot, lambda: not text_of(app, hidden))
        assert "tools on" in text_of(app, ("server", LAYERED))  # the winner runs on
        assert "tools on" in text_of(app, ("server", f"{LAYERED}@agentty"))
    after = fake.snapshot()
    assert LAYERED not in json.loads(after["project-mcp"])["mcpServers"]
    assert after["claude-local"] == before["claude-local"]
    assert after["agentty-user"] == before["agentty-user"]


async def test_a_asks_which_file_and_adds_the_server_there(fake: FakeHome, bridge: Bridge) -> None:
    before = fake.snapshot()
    app = PickerApp(bridge)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: bool(app.picker.rows))
        await pilot.press("a")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, AddServerScreen)
        choice = form.query_one("#add-file", Select)
        assert choice.value == ref(fake, "agentty-user")  # our user file, unless told
        project = ref(fake, "project-mcp")
        choice.value = project
        form.query_one("#add-name", Input).value = "added"
        form.query_one("#add-command", Input).value = shlex.join(plain_argv())
        form.submit()
        await settle(app)
        await until(pilot, lambda: bool(text_of(app, ("server", "added"))))
        # A project file's server: it waits for trust like any other there.
        assert "project .mcp.json" in text_of(app, ("server", "added"))
        assert "not trusted — T to trust" in text_of(app, ("server", "added"))
    after = fake.snapshot()
    assert "added" in json.loads(after["project-mcp"])["mcpServers"]
    assert after["agentty-user"] == before["agentty-user"]
    assert after["claude-local"] == before["claude-local"]


async def test_an_outside_edit_says_what_it_changed_and_a_no_op_says_nothing(
    fake: FakeHome, bridge: Bridge
) -> None:
    ours = fake.files["agentty-user"]
    app = PickerApp(bridge)
    async with anyio.create_task_group() as group:
        await group.start(bridge.watch)
        async with app.run_test(size=(120, 40)) as pilot:
            # A rewrite that changes no entry (as Claude Code's are): a reload, and no word.
            ours.write_text(ours.read_text() + "\n")
            await until(pilot, lambda: bridge.live.reloads == 1)
            document = json.loads(ours.read_text())
            document["mcpServers"]["late"] = {"command": plain_argv()[0], "args": plain_argv()[1:]}
            ours.write_text(json.dumps(document))
            await until(pilot, lambda: bool(app._notifications))
            said = [note.message for note in app._notifications]
            assert bridge.live.reloads == 2
        group.cancel_scope.cancel()
    assert said == ["Outside edit: Config reloaded: 1 added."]


async def test_t_trusts_the_entry_it_showed_and_asks_again_when_the_file_changed_meanwhile(
    fake: FakeHome, bridge: Bridge
) -> None:
    """The project file is edited while the ``T`` dialog is open (and the picker reloads it):
    ``y`` must not trust the new entry, which the user never saw. It says so, asks again with
    the entry as it is now, and only that second ``y`` trusts it."""
    project = fake.files["project-mcp"]
    app = PickerApp(bridge)
    async with anyio.create_task_group() as group:
        await group.start(bridge.watch)
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: "not trusted" in text_of(app, ("server", REPO_TOOL)))
            assert app.picker.select_key(("server", REPO_TOOL))
            await pilot.press("T")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmScreen)
            assert "swapped" not in dialog_text(app)
            # Another entry under the same name, while the question is on screen.
            document = json.loads(project.read_text())
            document["mcpServers"][REPO_TOOL]["args"] = plain_argv("--name", "swapped")[1:]
            project.write_text(json.dumps(document))
            await until(pilot, lambda: bridge.live.reloads == 1)  # the bridge has the new one
            await pilot.press("y")
            await until(pilot, lambda: bool(app._notifications))
            (note,) = [n.message for n in app._notifications]
            assert f"{REPO_TOOL!r} changed since you were asked" in note and "not trusted" in note
            # Asked again, with the entry as it is now.
            await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            again = dialog_text(app)
            assert again.startswith("Its entry changed while you were asked; this is it now.")
            assert "swapped" in again
            state = bridge.snapshot.server(REPO_TOOL)
            assert state is not None and state.status == "untrusted"  # nothing of it runs
            waiting = workspace_of(fake).load().server(REPO_TOOL)
            assert waiting is not None and waiting.untrusted is not None  # not on disk either
            await pilot.press("y")
            await settle(app)
            await until(pilot, lambda: "tools on" in text_of(app, ("server", REPO_TOOL)))
        group.cancel_scope.cancel()
    trusted = workspace_of(fake).load().server(REPO_TOOL)
    assert trusted is not None and trusted.untrusted is None
    assert trusted.spec is not None and "swapped" in trusted.spec.model_dump_json()


async def test_details_say_where_p_kept_the_pin(fake: FakeHome, bridge: Bridge) -> None:
    """`p` on a tool of Claude Code's local entry: the pin lands in agentty's pin store, not in
    Claude Code's file, and the tool's and the server's details say so as plain text; a server
    of our own file says its pins are in its config file."""
    before = fake.snapshot()
    store = Path(fake.env["XDG_CONFIG_HOME"]) / "agentty" / "pins.json"
    app = PickerApp(bridge)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: "tools on" in text_of(app, ("server", LAYERED)))
        rows = app.picker.rows
        first = next(row.key for row in rows if row.kind == "tool" and row.server == LAYERED)
        assert app.picker.select_key(first)
        await pilot.press("p")
        await settle(app)
        await until(pilot, lambda: "⚑" in text_of(app, first))
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ToolDetailsScreen))
        facts = str(app.screen.query_one("#details-facts", Static).render())
        assert "pin        pinned (p unpins it)\n" in facts
        assert (
            f"pins kept  in agentty's pin store:\n           {store}\n"
            "           (Claude Code's file cannot hold pins)"
        ) in facts
        await pilot.press("escape")
        assert app.picker.select_key(("server", LAYERED))
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ServerDetailsScreen))
        facts = str(app.screen.query_one("#server-facts", Static).render())
        assert f"pinned     {first[-1]}\npins kept  in agentty's pin store:\n" in facts
        await pilot.press("escape")
        assert app.picker.select_key(("server", f"{LAYERED}@agentty"))
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ServerDetailsScreen))
        facts = str(app.screen.query_one("#server-facts", Static).render())
        assert 'pins kept  in its config file: tools.pin and "priority"' in facts
    assert fake.snapshot() == before  # no host's file written for the pin
    assert json.loads(store.read_text())["pins"][0]["tools"] == [first[-1]]
