"""Pilot tests of the picker in a workspace, against a static source (no server, no file):
what each key does on a shadowed entry and on a project server waiting for trust, the details,
the help, and the source column on a narrow terminal. ``test_workspace_live.py`` drives the
same keys against a real bridge over a fake home."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Select, Static

from agentty_tui.config.discover import HostFile
from agentty_tui.config.trust import entry_hash
from agentty_tui.model import HostView, PluginModel, SourceRef, StdioSpec, ToolFilter
from agentty_tui.ui.app import PickerApp
from agentty_tui.ui.dialogs import ConfirmScreen, HelpScreen, ServerDetailsScreen
from agentty_tui.ui.rows import Row, tool_key
from agentty_tui.ui.server_form import AddServerScreen
from tests.ui.fakes import StaticSource, settle
from tests.ui.workspace_fakes import (
    CLAUDE_LOCAL,
    CODEX_USER,
    OUR_USER,
    PROJECT_MCP,
    ROOT,
    SECRET,
    WorkspaceSource,
    workspace_model,
)

pytestmark = pytest.mark.anyio

SHADOWED = ("shadowed", "notes", OUR_USER.path, "user")


def dialog_text(app: PickerApp) -> str:
    return str(app.screen.query_one(".dialog-text", Static).render())


@pytest.mark.parametrize("key", ["x", "d"])
async def test_x_or_d_on_a_shadowed_entry_removes_that_entry_from_its_file(key: str) -> None:
    source = StaticSource(workspace_model())
    app = PickerApp(source)
    async with app.run_test(size=(100, 30)) as pilot:
        assert app.picker.select_key(SHADOWED)
        await pilot.press(key)
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        question = dialog_text(app)
        assert question.startswith(f"Remove the entry 'notes' from {OUR_USER.path}?")
        assert "claude · local" in question and "stays" in question
        await pilot.press("y")
        await settle(app)
        await pilot.pause()
        assert SHADOWED not in [row.key for row in app.picker.rows]
    # That file's entry, never the one that wins (which would be ("notes",)).
    assert source.calls == [("plugin_remove", ("notes", OUR_USER))]


async def test_d_on_a_server_of_a_workspace_names_its_file() -> None:
    source = StaticSource(workspace_model())
    app = PickerApp(source)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("d")
        await pilot.pause()
        assert dialog_text(app).startswith(f"Remove server 'notes' from {CLAUDE_LOCAL.path}?")
        await pilot.press("y")
        await settle(app)
    # The file the question named, even if another file's entry wins by the time of the answer.
    assert source.calls == [("plugin_remove", ("notes", CLAUDE_LOCAL))]


@pytest.mark.parametrize("key", ["space", "e", "R", "E", "L"])
async def test_a_shadowed_entry_cannot_be_toggled_restarted_edited_or_logged_in(key: str) -> None:
    source = StaticSource(workspace_model())
    app = PickerApp(source)
    async with app.run_test(size=(100, 30)) as pilot:
        assert app.picker.select_key(SHADOWED)
        await pilot.press(key)
        await pilot.pause()
        assert app.screen is app.screen_stack[0]  # no dialog: nothing to edit or log in to
        (note,) = app._notifications
        assert "shadowed by the entry in claude · local" in note.message
        assert "d or x removes this entry" in note.message
        assert app.folded == set()  # space did not fold the winner either
    assert source.calls == []


async def test_enter_on_a_shadowed_entry_shows_it_and_which_file_wins() -> None:
    app = PickerApp(StaticSource(workspace_model()))
    async with app.run_test(size=(100, 30)) as pilot:
        assert app.picker.select_key(SHADOWED)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ServerDetailsScreen)
        facts = str(app.screen.query_one("#server-facts", Static).render())
    assert "status     shadowed" in facts
    assert f"file       {OUR_USER.path} (agentty · user)" in facts
    assert f"wins       {CLAUDE_LOCAL.path} (claude · local)" in facts
    assert "demo.old_notes" in facts  # its own command, not the winner's


async def test_t_on_an_untrusted_project_server_trusts_that_server_after_asking() -> None:
    source = StaticSource(workspace_model())
    app = PickerApp(source)
    async with app.run_test(size=(100, 30)) as pilot:
        assert app.picker.select_key(("server", "repo-tool"))
        await pilot.press("T")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        question = dialog_text(app)
        assert "Trust the project server 'repo-tool'" in question
        # Every fact of the entry, a line each: what it runs, where that is, its env.
        assert "  runs      python -m demo.repo_tool 'https://api.example.com/v1?token=" in question
        assert (
            f"  resolves  {ROOT}/.bin/python  ⚠ inside the project folder, found through a "
            "relative path" in question
        )
        assert "  env       PATH=.bin:/usr/bin  ⚠ decides what runs" in question
        assert "  env       API_KEY=••••••••" in question
        assert SECRET not in question
        await pilot.press("n")
        await pilot.pause()
        assert source.calls == []
        await pilot.press("T")
        await pilot.pause()
        await pilot.press("y")
        await settle(app)
    assert source.calls == [("trust_servers", (("repo-tool",),))]
    # The entry as the dialog showed it, by its hash: not whatever the file holds by then.
    shown = app.model.server("repo-tool")
    assert shown is not None and source.shown == {"repo-tool": entry_hash(shown)}


async def test_t_on_an_untrusted_url_server_shows_its_url_and_header_references() -> None:
    app = PickerApp(StaticSource(workspace_model()))
    async with app.run_test(size=(100, 30)) as pilot:
        assert app.picker.select_key(("server", "docs"))
        await pilot.press("T")
        await pilot.pause()
        question = dialog_text(app)
    assert "  url     https://docs.example.com/mcp?api_key=••••••••" in question
    assert "  header  Authorization: Bearer ${DOCS_TOKEN}" in question
    assert SECRET not in question


async def test_t_elsewhere_points_at_the_servers_that_wait_and_trusts_nothing() -> None:
    source = StaticSource(workspace_model())
    app = PickerApp(source)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("T")  # on notes: trusted already
        await pilot.pause()
        (note,) = app._notifications
    assert note.message.startswith("2 server(s) wait for trust")
    assert source.calls == []


async def test_t_elsewhere_keeps_trusting_an_insecure_config_file_for_this_run() -> None:
    insecure = workspace_model().model_copy(update={"config_untrusted": "mcp.json is o+w"})
    source = StaticSource(insecure)
    app = PickerApp(source)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("T")
        await pilot.pause()
        assert dialog_text(app).startswith("mcp.json is o+w")
        await pilot.press("y")
        await settle(app)
    assert source.calls == [("trust_config", ())]


async def test_the_help_of_a_workspace_says_what_the_keys_do_there() -> None:
    app = PickerApp(StaticSource(workspace_model()))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = "\n".join(str(w.render()) for w in app.screen.query(Static))
    assert "In a workspace" in text and "src:claude" in text and "-src:" in text
    assert "not trusted" in text and "shadowed" in text


async def test_the_source_column_goes_first_on_a_narrow_terminal_and_comes_back() -> None:
    app = PickerApp(StaticSource(workspace_model()))
    async with app.run_test(size=(100, 30)) as pilot:
        assert "claude · local" in app.picker.rows[0].text
        await pilot.resize_terminal(70, 30)
        await pilot.pause()
        assert "claude · local" not in app.picker.rows[0].text
        assert "shadowed by claude · local" in app.picker.rows[3].text
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        assert "claude · local" in app.picker.rows[0].text


async def test_an_unknown_source_word_says_which_there_are() -> None:
    app = PickerApp(StaticSource(workspace_model()))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("slash", *"src:nope")
        await pilot.pause()
        empty = str(app.query_one("#empty", Static).render())
    assert empty.startswith("No such state or source: src:nope")
    assert "claude" in empty and "local" in empty


@pytest.mark.parametrize("choose", [None, PROJECT_MCP, CLAUDE_LOCAL])
async def test_a_offers_the_workspaces_files_and_adds_to_the_one_chosen(
    choose: SourceRef | None,
) -> None:
    source = WorkspaceSource(workspace_model())
    app = PickerApp(source)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("a")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, AddServerScreen)
        choice = form.query_one("#add-file", Select)
        assert choice.value == OUR_USER  # the default: our user file
        offered = [value for _, value in choice._options]
        assert offered == [OUR_USER, CLAUDE_LOCAL, PROJECT_MCP]
        if choose is not None:
            choice.value = choose
            await pilot.pause()
        path = str(form.query_one("#add-file-path", Static).render())
        assert path == (choose or OUR_USER).path
        await pilot.press(*"mem", "tab", *"echo", "enter")
        await settle(app)
        note = list(app._notifications)[-1].message
    target = choose or OUR_USER
    assert source.calls == [("plugin_add", ("mem", StdioSpec(command="echo"), target))]
    assert note == f"Added server 'mem' to {target.label} ({target.path})."


async def test_a_name_another_file_holds_may_go_to_a_file_chosen_on_purpose() -> None:
    source = WorkspaceSource(workspace_model())
    app = PickerApp(source)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("a")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, AddServerScreen)
        # "weather" is our user file's: refused there, the default.
        await pilot.press(*"weather", "tab", *"echo", "enter")
        await pilot.pause()
        assert "already" in str(form.query_one("#add-error", Static).render())
        # The project file holds no "weather": chosen on purpose, it takes an entry over the
        # user's.
        form.query_one("#add-file", Select).value = PROJECT_MCP
        await pilot.pause()
        form.submit()
        await settle(app)
    assert source.calls == [("plugin_add", ("weather", StdioSpec(command="echo"), PROJECT_MCP))]


async def test_a_name_the_chosen_file_holds_is_refused() -> None:
    source = WorkspaceSource(workspace_model())
    app = PickerApp(source)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("a")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, AddServerScreen)
        form.query_one("#add-file", Select).value = PROJECT_MCP
        await pilot.pause()
        await pilot.press(*"docs", "tab", *"echo", "enter")
        await pilot.pause()
        assert "already" in str(form.query_one("#add-error", Static).render())
    assert source.calls == []


async def test_a_on_one_config_file_asks_for_no_file() -> None:
    source = StaticSource(workspace_model())  # no workspace behind it
    app = PickerApp(source)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("a")
        await pilot.pause()
        assert not app.screen.query("#add-file")
        await pilot.press(*"mem", "tab", *"echo", "enter")
        await settle(app)
    assert source.calls == [("plugin_add", ("mem", StdioSpec(command="echo")))]


async def test_t_on_a_server_of_a_file_others_can_write_trusts_it_for_this_run() -> None:
    base = workspace_model()
    weather = base.servers[3].model_copy(
        update={"status": "untrusted", "tools": (), "error": f"{OUR_USER.path} is o+w"}
    )
    servers = tuple(weather if s.name == "weather" else s for s in base.servers)
    source = StaticSource(base.model_copy(update={"servers": servers}))
    app = PickerApp(source)
    async with app.run_test(size=(100, 30)) as pilot:
        assert app.picker.select_key(("server", "weather"))
        assert "not started: config not trusted" in app.picker.current_row.text  # type: ignore[union-attr]
        await pilot.press("T")
        await pilot.pause()
        question = dialog_text(app)
        assert question.startswith(f"{OUR_USER.path} is o+w")
        assert "for this run" in question and "runs: python -m demo.weather" in question
        await pilot.press("y")
        await settle(app)
    assert source.calls == [("trust_servers", (("weather",),))]


async def test_i_in_a_workspace_offers_only_files_it_does_not_read_and_imports_into_ours() -> None:
    read = HostFile("Codex", Path(CODEX_USER.path), "codex", 2)
    elsewhere = HostFile("Cursor", Path("/elsewhere/.cursor/mcp.json"), "claude", 1)
    asked: list[Path | None] = []

    def found(target: Path | None) -> tuple[HostFile, ...]:
        asked.append(target)
        return (read, elsewhere)

    app = PickerApp(WorkspaceSource(workspace_model()), host_files=found)
    async with app.run_test(size=(100, 40)):
        assert app.host_files.found() == (elsewhere,)
    # Our user file is where an import goes, never the project's folder.
    assert asked == [Path(OUR_USER.path)]


async def test_h_looks_through_each_hosts_lens_and_a_toggle_there_is_that_hosts_alone() -> None:
    """``time`` is held by Claude Code (which leaves ``now`` out) and Codex (which sends it):
    ``h`` cycles every host, Claude Code, Codex; each lens shows its host's tools and names it
    in the status bar, and space there switches that host alone."""
    m = workspace_model()
    time = m.server("time")
    assert time is not None and time.source is not None
    claude = HostView(source=time.source, tools=ToolFilter(exclude=("now",)))
    codex = HostView(source=CODEX_USER)
    both = time.model_copy(update={"hosts": (claude, codex)})
    source = StaticSource(m.model_copy(update={"servers": (*m.servers[:-1], both)}))
    app = PickerApp(source)
    now = tool_key("time", "now")

    def status() -> str:
        return str(app.query_one("#status", Static).render())

    def now_on() -> bool:
        return next(row.enabled for row in app.picker.rows if row.key == now)

    async with app.run_test(size=(100, 30)) as pilot:
        assert now_on() and not status().startswith("Claude")
        await pilot.press("h")
        await pilot.pause()
        assert status().startswith("Claude Code's view · ") and not now_on()
        assert [row.key for row in app.picker.rows if row.kind == "server"] == [("server", "time")]
        assert app.picker.select_key(now)
        await pilot.press("space")
        await settle(app)
        await pilot.press("h")
        await pilot.pause()
        assert status().startswith("Codex's view · ") and now_on()
        await pilot.press("h")
        await pilot.pause()
        assert not status().startswith(("Claude", "Codex"))
    assert source.calls == [("tool_set_enabled", ("time", "now", True, "claude"))]


async def test_a_tool_hosts_differ_about_shows_mixed_and_space_turns_it_on_for_all() -> None:
    """``now`` of ``time``: Claude Code leaves it out, Cursor (no switch) sends it: ``[~]``;
    space turns it on for every host; off again, it stays on for Cursor, and a warning says
    why."""
    m = workspace_model()
    time = m.server("time")
    assert time is not None and time.source is not None
    cursor = HostView(source=CODEX_USER.model_copy(update={"host": "cursor"}))
    off = HostView(source=time.source, tools=ToolFilter(exclude=("now",)))
    mixed = time.model_copy(update={"hosts": (off, cursor)})

    class Hosts(StaticSource):
        async def tool_set_enabled(
            self, server: str, tool: str, enabled: bool, *, host: str | None = None
        ) -> PluginModel:
            await super().tool_set_enabled(server, tool, enabled, host=host)
            # As the bridge would: Claude Code follows the switch; Cursor sends it whatever.
            claude = off if not enabled else off.model_copy(update={"tools": ToolFilter()})
            state = self._server(server).model_copy(
                update={"hosts": (claude, cursor), "tools": mixed.tools}
            )
            self._replace(state)
            return self._model

    source = Hosts(m.model_copy(update={"servers": (*m.servers[:-1], mixed)}))
    app = PickerApp(source)
    now = tool_key("time", "now")

    def row() -> Row:
        return next(r for r in app.picker.rows if r.key == now)

    async with app.run_test(size=(120, 30)) as pilot:
        assert row().mixed and "[~] now" in row().text
        assert app.picker.select_key(now)
        await pilot.press("space")
        await settle(app)
        await pilot.pause()
        assert not row().mixed and "[x] now" in row().text
        await pilot.press("space")
        await settle(app)
        await pilot.pause()
        assert row().mixed
        (said,) = [n.message for n in app._notifications if n.title == "Toggle"]
        assert said.startswith("now stays on: Cursor still sends it (no per-tool switch")
    assert [call[1] for call in source.calls] == [("time", "now", True), ("time", "now", False)]
