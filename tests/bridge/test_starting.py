"""The picker's source while its bridge starts (``bridge/starting.py``): the config alone first,
no SDK imported for it, then the bridge, which takes the processes started for it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anyio
import anyio.lowlevel
import pytest

from agentty_tui.bridge.starting import StartingSource
from agentty_tui.bridge.states import opening_model
from agentty_tui.config.trust import TrustGate
from agentty_tui.config.workspace import Workspace, open_workspace
from agentty_tui.model import PluginModel
from tests.conftest import WriteConfig
from tests.fake_home import build_fake_home
from tests.helpers import process_alive, stdio_entry
from tests.servers import light_argv

pytestmark = pytest.mark.anyio


def test_the_picker_and_its_first_source_import_no_sdk() -> None:
    """What the first frame needs: the app, its source (starting, or the daemon's), the config;
    not the SDK."""
    code = (
        "import json, sys; import agentty_tui.ui, agentty_tui.bridge.starting; "
        "import agentty_tui.gateway.picker.remote_source; "
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    loaded = set(json.loads(out.stdout))
    assert loaded.isdisjoint({"mcp", "mcp_types", "httpx2", "httpx"}), loaded


def test_the_first_snapshot_is_the_config_with_its_servers_connecting(
    write_config: WriteConfig,
) -> None:
    entry = stdio_entry(light_argv(2))
    path = write_config({"on": entry, "off": {**entry, "disabled": True}})
    source = StartingSource(Workspace.of_file(path))
    source.load()
    first = source.snapshot
    assert [(s.name, s.status) for s in first.servers] == [
        ("on", "connecting"),
        ("off", "disabled"),
    ]
    assert first.revision == 0 and not first.settled


async def test_the_bridge_takes_over_with_the_processes_started_for_it(
    write_config: WriteConfig,
) -> None:
    path = write_config({"a": stdio_entry(light_argv(3))})
    source = StartingSource(Workspace.of_file(path))
    source.load()
    frame = anyio.Event()
    seen: list[PluginModel] = []
    with anyio.fail_after(30):
        async with anyio.create_task_group() as group:
            group.start_soon(source.run, frame)
            updates = source.updates()
            seen.append(await anext(updates))
            assert seen[0].servers[0].status == "connecting"
            frame.set()
            async for model in updates:
                seen.append(model)
                if model.servers and model.servers[0].status == "connected":
                    break
            bridge = source.bridge
            assert bridge is not None
            pid = bridge.server_pid("a")
            assert pid is not None
            # The process the bridge runs is the one started before the SDK was imported.
            log = bridge.snapshot.servers[0].log_path
            assert log is not None
            text = await anyio.Path(log).read_text()
            assert "started before the SDK was imported" in text
            assert text.count("started pid") == 1
            model = await source.tool_set_enabled("a", "tool_0000", False)
            assert not next(t for t in model.servers[0].tools if t.bare == "tool_0000").enabled
            source.close()
    assert pid is not None and not process_alive(pid)


async def test_a_quit_before_the_first_frame_starts_nothing(write_config: WriteConfig) -> None:
    path = write_config({"a": stdio_entry(light_argv(2))})
    source = StartingSource(Workspace.of_file(path))
    source.load()
    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            group.start_soon(source.run, anyio.Event())
            await anyio.lowlevel.checkpoint()
            source.close()
    assert source.bridge is None


def _claude_workspace(root: Path) -> Workspace:
    """Our user file and Claude Code's ``~/.claude.json`` (its user and local scopes), one
    server each, plus ``layered`` in our file and the local scope (Claude Code's runs as
    ``layered``, ours as ``layered@agentty``)."""
    fake = build_fake_home(
        root,
        sources=("agentty-user", "claude-user", "claude-local"),
        twins=(),
        untrusted=False,
        url=None,
        prompted_input=False,
        muted=False,
    )
    return open_workspace(fake.cwd, home=fake.home, env=fake.env)


def _unnumbered(model: PluginModel) -> dict[str, object]:
    """``model`` as a dict without its servers' revisions (a counter of the process)."""
    return model.model_dump(exclude={"servers": {"__all__": {"revision"}}})


async def test_a_large_file_is_read_after_the_first_frame(tmp_path: Path) -> None:
    """``~/.claude.json`` over the limit: the first snapshot holds our file's servers and says
    the file is being read; once the frame is out, the next is the whole workspace's, as a
    load of it gives, before the bridge's."""
    workspace = _claude_workspace(tmp_path / "fake")
    whole = opening_model(workspace.load(), str(workspace.path), TrustGate())
    assert {s.name for s in whole.servers} >= {"agentty-user-1", "claude-user-1", "layered"}
    source = StartingSource(workspace, slow_bytes=1)
    source.load()
    first = source.snapshot
    assert [s.name for s in first.servers] == ["agentty-user-1", "layered"]
    assert all(s.status == "connecting" for s in first.servers)
    (line,) = first.reading
    assert line.startswith("reading ~/.claude.json (0.0 MiB)")
    frame = anyio.Event()
    with anyio.fail_after(30):
        async with anyio.create_task_group() as group:
            group.start_soon(source.run, frame)
            updates = source.updates()
            assert await anext(updates) is first
            frame.set()
            second = await anext(updates)
            assert second.reading == ()
            assert _unnumbered(second) == _unnumbered(whole)
            source.close()
            group.cancel_scope.cancel()


def test_small_files_and_one_file_are_read_before_the_first_frame(
    tmp_path: Path, write_config: WriteConfig
) -> None:
    workspace = _claude_workspace(tmp_path / "fake")
    source = StartingSource(workspace)  # every file under the limit
    source.load()
    assert source.snapshot.reading == ()
    assert "claude-user-1" in {s.name for s in source.snapshot.servers}
    one = StartingSource(Workspace.of_file(write_config({"a": {"command": "true"}})), slow_bytes=1)
    one.load()
    assert one.snapshot.reading == () and [s.name for s in one.snapshot.servers] == ["a"]


IDLE_RUN = """
import json, sys
from pathlib import Path
import anyio
from agentty_tui.bridge.starting import StartingSource
from agentty_tui.config.workspace import Workspace

async def main() -> None:
    source = StartingSource(Workspace.of_file(Path(sys.argv[1])))
    source.load()
    frame = anyio.Event()
    frame.set()
    seen = []
    with anyio.fail_after(30):
        async with anyio.create_task_group() as group:
            group.start_soon(source.run, frame)
            await source.idle.wait()
            seen.append(["mcp" in sys.modules, source.bridge is None])
            await source.reload()  # an operation: the bridge comes up for it
            seen.append(["mcp" in sys.modules, source.bridge is None])
            source.close()
    print(json.dumps(seen))

anyio.run(main)
"""


def test_nothing_to_connect_imports_no_sdk_until_an_operation_asks(
    write_config: WriteConfig,
) -> None:
    """An empty config: once the first frame is out the source waits with neither the SDK nor
    the bridge (a fresh interpreter); an operation brings both up."""
    path = write_config({})
    out = subprocess.run(
        [sys.executable, "-c", IDLE_RUN, str(path)],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == [[False, True], [True, False]]


async def test_a_server_added_by_an_outside_edit_starts_the_bridge(
    write_config: WriteConfig,
) -> None:
    path = write_config({"off": {**stdio_entry(light_argv(1)), "disabled": True}})
    source = StartingSource(Workspace.of_file(path))
    source.load()
    frame = anyio.Event()
    frame.set()
    with anyio.fail_after(30):
        async with anyio.create_task_group() as group:
            group.start_soon(source.run, frame)
            await source.idle.wait()
            assert source.bridge is None
            write_config({"on": stdio_entry(light_argv(1))})
            async for model in source.updates():
                if [(s.name, s.status) for s in model.servers] == [("on", "connected")]:
                    break
            assert source.bridge is not None
            source.close()
