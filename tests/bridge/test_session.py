"""The value a session publishes: frozen, compared without its re-list counter."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import anyio
import pytest

from agentty_tui.bridge import Bridge, listing
from agentty_tui.bridge.bridge import Coalescer
from agentty_tui.bridge.session import SAMPLING_WARNING, SessionState, session_warnings
from agentty_tui.config import ConfigStore
from agentty_tui.frozen import thaw
from agentty_tui.model import AdvertisedTool, ToolHints
from tests.conftest import WriteConfig
from tests.helpers import stdio_entry
from tests.servers import python_server_argv

pytestmark = pytest.mark.anyio


def test_a_state_cannot_be_changed_in_place() -> None:
    state = SessionState()
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.status = "connected"  # type: ignore[misc]


def test_a_relist_that_found_the_same_tools_is_no_change() -> None:
    tools = (AdvertisedTool(name="echo"),)
    before = SessionState(status="connected", tools=tools, relists=3)
    after = dataclasses.replace(before, relists=4)
    assert after == before  # so the bridge hands out the same ServerState again
    assert dataclasses.replace(before, tools=()) != before


def test_warnings_name_each_condition_once() -> None:
    assert session_warnings(None, False, False) == ()
    found = session_warnings("the log x could not be written", True, True)
    assert found == (
        "the log x could not be written; the server runs without its log",
        f"its tool list did not end after {listing.MAX_TOOL_PAGES:,} pages; "
        "only those pages are shown",
        listing.noisy_warning(),
    )


async def test_requests_during_a_run_are_served_by_one_next_run() -> None:
    release = anyio.Event()
    runs: list[int] = []

    async def job() -> int:
        runs.append(len(runs))
        await release.wait()
        return len(runs)

    coalescer = Coalescer(job)
    results: list[int] = []

    async def ask() -> None:
        results.append(await coalescer.request())

    with anyio.fail_after(5):
        async with anyio.create_task_group() as group:
            group.start_soon(ask)
            await anyio.wait_all_tasks_blocked()
            for _ in range(3):  # all arrive while the first run waits
                group.start_soon(ask)
            await anyio.wait_all_tasks_blocked()
            release.set()
    assert coalescer.runs == 2
    assert sorted(results) == [1, 2, 2, 2]


async def test_annotations_and_output_schemas_reach_the_model(
    write_config: WriteConfig, log_dir: Path
) -> None:
    """A real server's annotations become the tools' hints (only what it said), its output
    schema is kept, and a tool without annotations has none."""
    argv = python_server_argv("light_server.py", "--tools", "1", "--hinted")
    path = write_config({"light": stdio_entry(argv)})
    with anyio.fail_after(30):
        async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
            state = (await bridge.settled()).require_server("light")
    tools = {tool.bare: tool for tool in state.tools}
    assert tools["lookup"].hints == ToolHints(
        title="Look it up", read_only=True, idempotent=True, open_world=False
    )
    assert tools["lookup"].title == "Look it up"
    assert tools["wipe"].hints == ToolHints(read_only=False, destructive=True, open_world=True)
    assert tools["tool_0000"].hints is None and tools["tool_0000"].output_schema is None
    assert thaw(tools["measure"].output_schema) == {
        "type": "object",
        "properties": {"size": {"type": "integer"}},
        "required": ["size"],
    }


def test_the_sampling_warning_is_one_of_the_warnings() -> None:
    assert session_warnings(None, False, False, sampling_asked=True) == (SAMPLING_WARNING,)
