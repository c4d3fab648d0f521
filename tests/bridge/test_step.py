"""Step runtimes: a step calls through the session it advertised, across a reload."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentty_tui.bridge import Bridge
from agentty_tui.catalog.step import open_step
from agentty_tui.config import ConfigStore
from agentty_tui.errors import OperationError, UnknownToolError
from tests.conftest import WriteConfig
from tests.helpers import process_alive, stdio_entry, wait_until_gone
from tests.servers import plain_argv

pytestmark = pytest.mark.anyio

SETTLE = 20.0


async def _pid_via(step_call: object) -> int:
    result = await step_call  # type: ignore[misc]
    return int(result.content[0].text)


async def test_step_keeps_its_session_across_a_replacing_reload(
    write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config({"alpha": stdio_entry(plain_argv("--name", "v1"))})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        await bridge.settled(SETTLE)
        old_pid = bridge.server_pid("alpha")
        step = bridge.step()
        assert step.session_pid("alpha") == old_pid

        write_config({"alpha": stdio_entry(plain_argv("--name", "v2"))})
        await bridge.reload()
        new_pid = bridge.server_pid("alpha")
        assert new_pid not in (None, old_pid)

        # the old step still calls through the old process, which stays alive for it
        assert await _pid_via(step.call("alpha", "pid")) == old_pid
        assert old_pid is not None and process_alive(old_pid)
        # a new step gets the new process
        with bridge.step() as fresh:
            assert await _pid_via(fresh.call("alpha", "pid")) == new_pid

        step.close()
        await wait_until_gone(old_pid)
        with pytest.raises(OperationError):
            await step.call("alpha", "pid")


async def test_step_refuses_unknown_tools_and_unconnected_servers(
    write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config(
        {"alpha": stdio_entry(plain_argv()), "broken": {"command": "agentty-no-such-command"}}
    )
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        await bridge.settled(SETTLE)
        with bridge.step() as step:
            assert step.server_names == ("alpha",)
            with pytest.raises(UnknownToolError):
                await step.call("alpha", "nope")
            with pytest.raises(OperationError, match="not connected"):
                await step.call("broken", "x")


async def test_wire_step_lists_and_calls_by_wire_name(
    write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config(
        {
            "alpha": stdio_entry(plain_argv(), tools={"exclude": ["sleep"]}),
            "beta": stdio_entry(plain_argv()),
        },
        toolBudget=10,
    )
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        await bridge.settled(SETTLE)
        with open_step(bridge) as step:
            names = [tool.name for tool in step.tools]
            assert names[:6] == [
                "read_file",
                "write_file",
                "edit_file",
                "list_directory",
                "search_files",
                "run_command",
            ]
            assert names[6:] == [
                "mcp__alpha__echo",
                "mcp__alpha__add",
                "mcp__alpha__pid",
                "mcp__beta__echo",
            ]
            result = await step.call("mcp__alpha__add", {"a": 20, "b": 22})
            assert result.content[0].text == "42"  # type: ignore[union-attr]
            with pytest.raises(UnknownToolError):
                await step.call("mcp__beta__add", {"a": 1, "b": 1})  # trimmed by the budget
            with pytest.raises(UnknownToolError):
                await step.call("mcp__alpha__sleep", {"seconds": 0})  # disabled
            with pytest.raises(OperationError, match="native tool"):
                await step.call("read_file", {"path": "x"})
