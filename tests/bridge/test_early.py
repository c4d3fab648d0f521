"""Servers started before the SDK is imported (``bridge/early.py``): the session takes the very
process started for it, nothing is started twice, and what no session takes is stopped."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from agentty_tui.bridge import Bridge
from agentty_tui.bridge.early import EarlyStarts, loaded_with_version
from agentty_tui.bridge.inherited import INHERITED_VARIABLES
from agentty_tui.bridge.probe import open_server
from agentty_tui.config import ConfigStore
from agentty_tui.config.trust import TrustGate
from agentty_tui.config.workspace import Workspace
from tests.conftest import WriteConfig
from tests.helpers import process_alive, stdio_entry
from tests.servers import light_argv

pytestmark = pytest.mark.anyio


def test_the_inherited_variables_are_the_sdks() -> None:
    """Written out so that a server starts before the SDK is imported: still the SDK's list."""
    from mcp.client.stdio import DEFAULT_INHERITED_ENV_VARS

    assert tuple(DEFAULT_INHERITED_ENV_VARS) == INHERITED_VARIABLES


def test_starting_servers_early_imports_no_sdk() -> None:
    code = (
        "import json, sys; import agentty_tui.bridge.early; "
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    loaded = set(json.loads(out.stdout))
    assert loaded.isdisjoint({"mcp", "mcp_types", "httpx2", "httpx", "textual"}), loaded


async def test_the_bridge_takes_the_processes_started_early(
    write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config({"a": stdio_entry(light_argv(2)), "b": stdio_entry(light_argv(3))})
    store = ConfigStore(path)
    with anyio.fail_after(30):
        async with EarlyStarts() as early:
            assert await early.start(store.load(), TrustGate()) == ("a", "b")
            pids = {name: _pid(early, name) for name in ("a", "b")}
            async with Bridge(store, log_dir=log_dir, early=early) as bridge:
                model = await bridge.settled(20)
                assert [s.status for s in model.servers] == ["connected", "connected"]
                # The very processes started early: none spawned a second time.
                assert {name: bridge.server_pid(name) for name in pids} == pids
                assert early.waiting == ()
    assert not any(process_alive(pid) for pid in pids.values())
    assert "started before the SDK was imported" in _log_of(log_dir, "a")


async def test_a_process_started_for_another_entry_is_stopped_not_taken(
    write_config: WriteConfig, log_dir: Path
) -> None:
    """The entry changed between the early start and the bridge's load: the bridge spawns what
    the file now says, and the process started for the old entry is stopped."""
    path = write_config({"a": stdio_entry(light_argv(2))})
    store = ConfigStore(path)
    with anyio.fail_after(30):
        async with EarlyStarts() as early:
            await early.start(store.load(), TrustGate())
            stale = _pid(early, "a")
            write_config({"a": stdio_entry(light_argv(4))})
            async with Bridge(store, log_dir=log_dir, early=early) as bridge:
                model = await bridge.settled(20)
                assert len(model.servers[0].tools) == 4
                assert bridge.server_pid("a") != stale
                # Stopped once the bridge's first sessions settled, not at the end.
                while process_alive(stale):  # noqa: ASYNC110 - another process: no event
                    await anyio.sleep(0.02)
                assert early.waiting == ()


async def test_a_process_nobody_takes_is_stopped_on_close(write_config: WriteConfig) -> None:
    path = write_config({"a": stdio_entry(light_argv(2))})
    with anyio.fail_after(30):
        async with EarlyStarts() as early:
            await early.start(ConfigStore(path).load(), TrustGate())
            process = early.process("a")
            assert process is not None
        assert process.returncode is not None
        assert not process_alive(process.pid)


async def test_one_shot_session_takes_its_early_process(
    write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config({"light": stdio_entry(light_argv(2))})
    config = ConfigStore(path).load().server("light")
    assert config is not None
    with anyio.fail_after(30):
        async with EarlyStarts() as early:
            assert await early.start_one(config)
            pid = _pid(early, "light")
            async with open_server(config, log_dir, early=early) as session:
                assert session.state.status == "connected", session.state.error
                assert session.state.pid == pid
        assert not process_alive(pid)


def _pid(early: EarlyStarts, name: str) -> int:
    process = early.process(name)
    assert process is not None, f"{name} was not started early"
    return process.pid


def _log_of(log_dir: Path, server: str) -> str:
    return next(p for p in log_dir.iterdir() if p.name.startswith(f"{server}-")).read_text()


def test_the_kept_config_is_taken_once_and_only_while_its_files_are_unchanged(
    write_config: WriteConfig,
) -> None:
    path = write_config({"a": stdio_entry(light_argv(1))})
    workspace = Workspace.of_file(path)
    version, config = loaded_with_version(workspace)
    assert version is not None and version == workspace.version()
    early = EarlyStarts()
    early.keep_loaded(version, config)
    assert early.take_loaded(version) is config
    assert early.take_loaded(version) is None  # once: a reload reads the files
    early.keep_loaded(version, config)
    path.write_text(path.read_text().replace('"a"', '"b"'))  # an edit after the early load
    assert early.take_loaded(workspace.version()) is None
