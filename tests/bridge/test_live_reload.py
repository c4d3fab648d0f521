"""Outside edits, live: a bridge that watches its files reloads on an edit made elsewhere.

Real files and real stdio servers (``light_plain_server.py``): an outside rewrite of one entry
restarts that server alone; our own writes cause no second reload; a file created later joins
the workspace; a burst of writes is one reload or two, not one each.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import anyio
import pytest

from agentty_tui.bridge import Bridge
from agentty_tui.config import ConfigStore, SetToolEnabled
from agentty_tui.config import announce as announce_module
from agentty_tui.config.announce import announce_written
from agentty_tui.config.workspace import open_workspace
from agentty_tui.model import PluginModel
from tests.fake_home import REPO_TOOL, FakeHome, build_fake_home, small_fake_home
from tests.helpers import stdio_entry
from tests.servers import light_argv, plain_argv

pytestmark = pytest.mark.anyio

TIMEOUT = 30.0


def write(path: Path, servers: dict[str, object]) -> None:
    path.write_text(json.dumps({"mcpServers": servers}, indent=2))


def pid(model: PluginModel, name: str) -> int | None:
    server = model.server(name)
    return None if server is None else server.pid


def connected(*names: str) -> Callable[[PluginModel], bool]:
    def check(model: PluginModel) -> bool:
        return all(
            (s := model.server(name)) is not None and s.status == "connected" for name in names
        )

    return check


@pytest.fixture
async def watched(tmp_path: Path) -> AsyncIterator[tuple[Bridge, Path]]:
    path = tmp_path / "mcp.json"
    write(
        path,
        {
            "one": stdio_entry(plain_argv("--name", "one")),
            "two": stdio_entry(plain_argv("--name", "two")),
        },
    )
    bridge = Bridge(ConfigStore(path), log_dir=tmp_path / "logs")
    async with bridge, anyio.create_task_group() as group:
        await group.start(bridge.watch)
        await bridge.wait_for(connected("one", "two"), TIMEOUT)
        yield bridge, path
        group.cancel_scope.cancel()


async def test_an_outside_edit_restarts_the_changed_server_alone(
    watched: tuple[Bridge, Path],
) -> None:
    bridge, path = watched
    before = bridge.snapshot
    write(
        path,
        {
            "one": stdio_entry(plain_argv("--name", "one")),
            "two": stdio_entry(plain_argv("--name", "two-changed")),
        },
    )
    model = await bridge.wait_for(
        lambda m: pid(m, "two") not in (None, pid(before, "two")) and connected("two")(m),
        TIMEOUT,
    )
    assert pid(model, "one") == pid(before, "one")
    assert bridge.live.reloads == 1
    assert bridge.live.last_report is not None
    assert bridge.live.last_report.restarted == ("two",)


async def test_our_own_write_is_not_reloaded_again(watched: tuple[Bridge, Path]) -> None:
    bridge, path = watched
    runs = bridge.reload_runs
    await bridge.tool_set_enabled("one", "echo", False)
    # The watcher sees our write, and leaves it alone.
    with anyio.fail_after(TIMEOUT):
        while bridge.live.ignored < 1:
            await bridge.live.next_check()
    assert bridge.live.reloads == 0
    assert bridge.reload_runs == runs
    text = path.read_text()
    path.write_text(text.replace('"two"', '"two-b"', 1))
    await bridge.wait_for(lambda m: m.server("two-b") is not None, TIMEOUT)
    assert bridge.live.reloads == 1


async def test_a_burst_of_writes_is_one_reload_or_two(watched: tuple[Bridge, Path]) -> None:
    bridge, path = watched
    runs = bridge.reload_runs
    for number in range(10):
        write(
            path,
            {
                "one": stdio_entry(plain_argv("--name", "one")),
                "two": stdio_entry(plain_argv("--name", "two")),
                f"extra{number}": {"command": "true", "disabled": True},
            },
        )
    await bridge.wait_for(lambda m: m.server("extra9") is not None, TIMEOUT)
    assert bridge.reload_runs - runs <= 2


@pytest.mark.parametrize("gap", [0.0, 0.2])
async def test_an_editors_save_in_two_steps_is_one_reload(
    watched: tuple[Bridge, Path], gap: float
) -> None:
    """Vim's save (``backupcopy=no``): the file renamed away to a backup, then (``gap`` s
    later: editors take microseconds, a loaded machine more) the new text written under its
    name, flushed and synced. One reload, of the new text: the server left as it was keeps its
    process, never stopped for the moment without the file (the quiet holds the steps together
    up to 50 ms apart; a missing file is waited for beyond that)."""
    bridge, path = watched
    before = bridge.snapshot
    runs = bridge.reload_runs
    text = json.dumps(
        {
            "mcpServers": {
                "one": stdio_entry(plain_argv("--name", "one")),
                "two": stdio_entry(plain_argv("--name", "two-saved")),
            }
        },
        indent=2,
    )

    def save() -> None:
        # In a thread: the steps are an editor's, apart from the bridge's event loop.
        path.rename(path.with_name("mcp.json~"))
        time.sleep(gap)
        with path.open("w") as saved:
            saved.write(text)
            saved.flush()
            os.fsync(saved.fileno())

    await anyio.to_thread.run_sync(save)
    model = await bridge.wait_for(
        lambda m: pid(m, "two") not in (None, pid(before, "two")) and connected("two")(m),
        TIMEOUT,
    )
    assert pid(model, "one") == pid(before, "one")
    assert bridge.reload_runs - runs == 1
    assert bridge.live.reloads == 1


def tool_enabled(model: PluginModel, server: str, tool: str) -> bool | None:
    found = model.server(server)
    state = None if found is None else found.tool(tool)
    return None if state is None else state.enabled


async def test_an_announced_write_is_checked_at_once(watched: tuple[Bridge, Path]) -> None:
    # No file changed, so the watcher has nothing to report: only the announcement can have
    # made the check, which finds the files as the bridge read them.
    bridge, _ = watched
    ignored = bridge.live.ignored
    announce_written()
    with anyio.fail_after(TIMEOUT):
        while bridge.live.ignored == ignored:
            await bridge.live.next_check()
    assert bridge.live.reloads == 0


async def test_our_own_write_is_announced_once_its_fingerprint_is_noted(
    watched: tuple[Bridge, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Announced any earlier, the bridge's own listener could check the files before the
    # bridge noted their new fingerprint, and reload its own write a second time.
    bridge, _ = watched
    noted: list[bool] = []

    def announce() -> None:
        noted.append(bridge._seen_version == bridge.store.version())
        announce_written()

    monkeypatch.setattr(announce_module, "announce_written", announce)
    await bridge.tool_set_enabled("one", "echo", False)
    assert noted == [True]


async def test_another_writers_toggle_is_reloaded_once(watched: tuple[Bridge, Path]) -> None:
    # As `agentty-tui disable` writes it: announced, so reloaded at once; the watcher's event
    # for the same write (or the announcement, whichever comes second) finds nothing new.
    bridge, path = watched
    runs = bridge.reload_runs
    await anyio.to_thread.run_sync(ConfigStore(path).apply, SetToolEnabled("one", "echo", False))
    await bridge.wait_for(lambda m: tool_enabled(m, "one", "echo") is False, TIMEOUT)
    with anyio.fail_after(TIMEOUT):
        while bridge.live.ignored < 1:
            await bridge.live.next_check()
    assert bridge.live.reloads == 1
    assert bridge.reload_runs - runs == 1


@pytest.fixture
def fake(tmp_path: Path) -> FakeHome:
    return small_fake_home(tmp_path)


async def test_a_file_created_later_joins_the_workspace(fake: FakeHome, tmp_path: Path) -> None:
    workspace = open_workspace(fake.cwd, home=fake.home, env=fake.env)
    cursor = fake.project / ".cursor" / "mcp.json"
    assert not cursor.parent.exists()
    bridge = Bridge(workspace, log_dir=tmp_path / "logs")
    async with bridge, anyio.create_task_group() as group:
        await group.start(bridge.watch)
        cursor.parent.mkdir()
        write(cursor, {"late": stdio_entry(plain_argv("--name", "late"))})
        model = await bridge.wait_for(lambda m: m.server("late") is not None, TIMEOUT)
        late = model.server("late")
        assert late is not None and late.source is not None
        assert late.source.path == str(cursor)
        # A project file's server waits for trust, however it arrived.
        assert late.status == "untrusted"
        group.cancel_scope.cancel()


async def test_claude_codes_own_rewrite_of_its_file_restarts_nothing(tmp_path: Path) -> None:
    fake = build_fake_home(
        tmp_path,
        sources=["claude-user", "claude-local"],
        twins=(),
        untrusted=False,
        url=None,
        prompted_input=False,
        muted=False,
    )
    bridge = Bridge(
        open_workspace(fake.cwd, home=fake.home, env=fake.env), log_dir=tmp_path / "logs"
    )
    async with bridge, anyio.create_task_group() as group:
        await group.start(bridge.watch)
        model = await bridge.settled(TIMEOUT)
        pids = {server.name: server.pid for server in model.servers}
        assert all(pids.values())
        fake.claude_code_writes("a prompt of the user's")
        with anyio.fail_after(TIMEOUT):
            while bridge.live.reloads < 1:
                await bridge.live.next_check()
        report = bridge.live.last_report
        assert report is not None
        assert (report.added, report.removed, report.restarted) == ((), (), ())
        assert {server.name: server.pid for server in bridge.snapshot.servers} == pids
        group.cancel_scope.cancel()


async def test_a_file_truncated_before_it_is_written_restarts_nothing(tmp_path: Path) -> None:
    # light_server: the cheap real server; ``--name LABEL`` follows its argv.
    fake = build_fake_home(
        tmp_path,
        server_command=light_argv(3),
        sources=["claude-user", "claude-local", "cursor-user"],
        layered=False,
        twins=(),
        untrusted=False,
        url=None,
        prompted_input=False,
        muted=False,
    )
    claude_json = fake.files["claude-local"]
    local = fake.servers["claude-local"][0]
    bridge = Bridge(
        open_workspace(fake.cwd, home=fake.home, env=fake.env), log_dir=tmp_path / "logs"
    )
    async with bridge, anyio.create_task_group() as group:
        await group.start(bridge.watch)
        model = await bridge.settled(TIMEOUT)
        pids = {server.name: server.pid for server in model.servers}
        assert len(pids) == 3 and all(pids.values())
        text = claude_json.read_text()
        # A writer that is not atomic: the file is empty (then blank) for a moment, in place.
        for blank in ("", " \n"):
            reloads = bridge.live.reloads
            with claude_json.open("r+") as file:
                file.truncate(0)
                file.write(blank)
            with anyio.fail_after(TIMEOUT):
                while bridge.live.reloads == reloads:
                    await bridge.live.next_check()
            model = bridge.snapshot
            assert {server.name: server.pid for server in model.servers} == pids, repr(blank)
            half_saved = [w for w in model.config_warnings if "half-saved" in w]
            # ~/.claude.json is two sources: still one warning.
            assert len(half_saved) == 1, model.config_warnings
            assert half_saved[0].startswith(f"{claude_json}: the file is empty now")
            assert half_saved[0].endswith("(its servers are kept as last read)")
        # The real content arrives, with the local entry changed: it alone restarts.
        document = json.loads(text)
        document["projects"][str(fake.project)]["mcpServers"][local]["args"][-1] += "-changed"
        claude_json.write_text(json.dumps(document, indent=2))
        model = await bridge.wait_for(
            lambda m: pid(m, local) not in (None, pids[local]) and connected(local)(m), TIMEOUT
        )
        assert {s.name: s.pid for s in model.servers if s.name != local} == {
            name: number for name, number in pids.items() if name != local
        }
        assert not [w for w in model.config_warnings if "half-saved" in w]
        assert bridge.live.last_report is not None
        assert bridge.live.last_report.restarted == (local,)
        group.cancel_scope.cancel()


async def test_trust_given_by_another_process_starts_the_server_in_the_running_bridge(
    tmp_path: Path,
) -> None:
    # The trust file ($XDG_STATE_HOME/agentty/trust.json) is watched like a source: another
    # terminal's `agentty-tui trust --all` starts the waiting server here, without `r`.
    fake = build_fake_home(
        tmp_path,
        server_command=light_argv(2),
        sources=["agentty-user", "project-mcp"],
        layered=False,
        twins=(),
        url=None,
        prompted_input=False,
        muted=False,
    )
    trust_file = Path(fake.env["XDG_STATE_HOME"]) / "agentty" / "trust.json"
    assert not trust_file.parent.exists()  # its folder appears with the first trust
    bridge = Bridge(
        open_workspace(fake.cwd, home=fake.home, env=fake.env), log_dir=tmp_path / "logs"
    )
    async with bridge, anyio.create_task_group() as group:
        await group.start(bridge.watch)
        model = await bridge.settled(TIMEOUT)
        waiting = model.server(REPO_TOOL)
        assert waiting is not None and waiting.status == "untrusted"
        reloads = bridge.live.reloads
        other = await anyio.run_process(
            [sys.executable, "-m", "agentty_tui", "trust", "--all"],
            cwd=fake.cwd,
            env=fake.process_env(),
            check=False,
        )
        assert other.returncode == 0, other.stderr.decode()
        assert trust_file.exists()
        model = await bridge.wait_for(connected(REPO_TOOL), TIMEOUT)
        started = model.server(REPO_TOOL)
        assert started is not None and started.pid is not None and len(started.tools) == 2
        assert bridge.live.reloads == reloads + 1
        group.cancel_scope.cancel()
