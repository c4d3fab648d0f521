"""The reference server of the MCP project as a peer: ``@modelcontextprotocol/server-everything``
from npm (the pinned version in ``tests/servers/legacy_ts``), a real node process over stdio.

It registers some tools only for a client that declares roots or elicitation, so its list is
what a client's capabilities make of it: every one of ours, and its task-only tool kept off
the wire. Its form is answered by ``call --accept-defaults`` (and declined without it), its
long-running tool's progress reaches the bridge's progress hook, and ``get-roots-list`` shows
the bridge's roots (the project root, then what a client offered). Skipped, saying why, where
node or the package is missing.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import mcp_types as types
import pytest

from agentty_tui.bridge import Bridge
from agentty_tui.bridge.call_hooks import CallHooks
from agentty_tui.catalog import project_catalog
from agentty_tui.config import ConfigStore
from tests.conftest import WriteConfig
from tests.helpers import run_cli, stdio_entry
from tests.servers import EVERYTHING_TOOLS, everything_argv, require_everything

HOST_ROOT = types.Root(uri="file:///host/project", name="project")


@pytest.fixture
def config(write_config: WriteConfig) -> Path:
    require_everything()
    return write_config({"everything": stdio_entry(everything_argv())})


def text_of(result: types.CallToolResult) -> str:
    first = result.content[0]
    assert isinstance(first, types.TextContent)
    return first.text


@asynccontextmanager
async def everything(config: Path, log_dir: Path) -> AsyncIterator[Bridge]:
    async with Bridge(ConfigStore(config), log_dir=log_dir) as bridge:
        state = (await bridge.settled(timeout=60)).server("everything")
        assert state is not None and state.status == "connected", state
        yield bridge


def test_list_shows_every_tool_our_capabilities_unlock_and_marks_the_task_only_one(
    config: Path,
) -> None:
    done = run_cli("--no-daemon", "--config", str(config), "list", "--json")
    assert done.returncode == 0, done.stderr
    (server,) = json.loads(done.stdout)["servers"]
    tools = {tool["name"]: tool for tool in server["tools"]}
    assert tuple(tools) == EVERYTHING_TOOLS  # 16: roots and both elicitation modes declared
    assert not any(name.startswith("trigger-sampling") for name in tools)  # not offered
    assert [name for name, tool in tools.items() if tool["needs_tasks"]] == [
        "simulate-research-query"
    ]
    assert tools["get-roots-list"]["hints"]["read_only"] is True


def test_its_form_requires_a_name_without_a_default_so_it_is_declined_and_said(
    config: Path,
) -> None:
    """Its form requires ``name``, which has no default: ``--accept-defaults`` declines it (an
    answer without it would break the form) and says why; without the flag and a terminal the
    server hears a decline too."""
    words = ("--no-daemon", "--config", str(config), "call", "everything")
    defaults = run_cli(*words, "trigger-elicitation-request", "--accept-defaults")
    assert defaults.returncode == 0, defaults.stderr
    assert "User declined" in defaults.stdout
    assert "everything asked for a form that requires 'name' without a default: declined" in (
        defaults.stderr
    )
    declined = run_cli(*words, "trigger-elicitation-request")
    assert declined.returncode == 0, declined.stderr
    assert "User declined" in declined.stdout  # the server heard a decline, not an error


@pytest.mark.anyio
async def test_its_long_running_tools_progress_reaches_the_calls_hook(
    config: Path, log_dir: Path
) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    with anyio.fail_after(60):
        async with everything(config, log_dir) as bridge:
            arguments = {"duration": 0.3, "steps": 3}
            result = await bridge.call_tool(
                "everything", "trigger-long-running-operation", arguments, CallHooks(progress)
            )
    assert "Steps: 3" in text_of(result)
    assert seen == [(1, 3, None), (2, 3, None), (3, 3, None)]


@pytest.mark.anyio
async def test_get_roots_list_shows_the_project_root_then_what_a_client_offered(
    config: Path, log_dir: Path
) -> None:
    with anyio.fail_after(60):
        async with everything(config, log_dir) as bridge:
            first = text_of(await bridge.call_tool("everything", "get-roots-list", {}))
            assert config.parent.absolute().as_uri() in first
            bridge.roots.offer("host", [HOST_ROOT])
            await bridge.roots_changed(["everything"])
            # The server asks again when told of the change and keeps the answer, on its own
            # time: no event says it has, so its tool is read until it shows the offer.
            while str(HOST_ROOT.uri) not in (  # noqa: ASYNC110 - the server's state, no event
                shown := text_of(await bridge.call_tool("everything", "get-roots-list", {}))
            ):
                await anyio.sleep(0.05)
    assert config.parent.absolute().as_uri() not in shown


@pytest.mark.anyio
async def test_the_task_only_tool_is_kept_off_the_wire(config: Path, log_dir: Path) -> None:
    with anyio.fail_after(60):
        async with everything(config, log_dir) as bridge:
            catalog = project_catalog(bridge.snapshot)
    shipped = [tool.tool for tool in catalog.tools if tool.server == "everything"]
    assert shipped == [name for name in EVERYTHING_TOOLS if name != "simulate-research-query"]
