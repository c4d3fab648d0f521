"""What a host gets of each tool through the gateway: everything the server said of it.

The server is server-everything from npm (annotations on every tool, an output schema on one);
the host is the mcp SDK's client starting ``agentty-tui serve`` as a host does, with a bridge
of its own (``--no-daemon``) and through the user's gateway daemon (``--shared``), in both
protocol eras. What it lists is compared with what the same server lists to an SDK client
connected to it directly: title, description, input schema, annotations and output schema
alike, under the gateway's names; the task-only tool is left out. Skipped, saying why, where
node or the package is missing.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.context import ClientRequestContext
from mcp.client.stdio import stdio_client

from agentty_tui.gateway.rendezvous import rendezvous
from tests.conftest import WriteConfig
from tests.gateway.daemon.test_process import daemon_gone
from tests.helpers import stdio_entry
from tests.servers import (
    EVERYTHING_TOOLS,
    everything_argv,
    require_everything,
    stdio_params,
)

pytestmark = pytest.mark.anyio

WAYS = {"own-bridge": ("serve", "--no-daemon"), "daemon": ("serve", "--shared")}
"""How the host starts the gateway: with a bridge of its own, or attached to the daemon."""


@pytest.fixture
def config(write_config: WriteConfig) -> Path:
    require_everything()
    return write_config({"everything": stdio_entry(everything_argv())})


def environment(runtime: Path) -> dict[str, str]:
    # PYTHONPATH: the host's serve (and a daemon it starts) runs the code under test.
    keep = ("HOME", "PATH", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "PYTHONPATH")
    found = {name: os.environ[name] for name in keep if name in os.environ}
    return {**found, "XDG_RUNTIME_DIR": str(runtime), "AGENTTY_GATEWAY_IDLE": "1"}


@asynccontextmanager
async def host(
    config: Path, runtime: Path, tmp_path: Path, way: str, mode: str
) -> AsyncIterator[Client]:
    """A host whose one server is the gateway, started the ``way`` named; its stderr stays
    empty, but for the SIGTERM the host's SDK sends ``serve`` 2 s after closing its input.
    (server-everything outlives the closing of its own input, and the bridge gives it 2 s
    before its SIGTERM; a daemon stops it later, with no host waiting.)"""
    errors = tmp_path / "serve-stderr.txt"
    argv = [sys.executable, "-m", "agentty_tui", *WAYS[way], "--config", str(config)]
    params = stdio_params(argv, env=environment(runtime), cwd=tmp_path)
    with errors.open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog), mode=mode, cache=None) as client:
            yield client
    said = errors.read_text()
    assert said == "" or (way == "own-bridge" and said == "agentty-tui: stopped by SIGTERM\n")


async def _roots(context: ClientRequestContext) -> types.ListRootsResult:
    return types.ListRootsResult(roots=[])


async def _form(
    context: ClientRequestContext, params: types.ElicitRequestParams
) -> types.ElicitResult:
    return types.ElicitResult(action="decline")


async def direct_tools() -> dict[str, types.Tool]:
    """server-everything's tools as it lists them to a client that declares what the bridge
    declares (roots, elicitation), connected to it directly."""
    client = Client(
        stdio_params(everything_argv()),
        mode="legacy",
        list_roots_callback=_roots,
        elicitation_callback=_form,
        cache=None,
    )
    async with client:
        return {tool.name: tool for tool in (await client.list_tools()).tools}


@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize("way", WAYS)
async def test_a_host_gets_each_tools_title_annotations_and_output_schema_as_the_server_gave_them(
    way: str, mode: str, config: Path, runtime: Path, tmp_path: Path
) -> None:
    with anyio.fail_after(90):
        direct = await direct_tools()
        assert tuple(direct) == EVERYTHING_TOOLS
        async with host(config, runtime, tmp_path, way, mode) as client:
            served = {tool.name: tool for tool in (await client.list_tools()).tools}
            # The host's client checks a structured result against the schema it was given.
            weather = await client.call_tool(
                "everything__get-structured-content", {"location": "Chicago"}
            )
            # The way is the one meant: a daemon listens only when the host attached to one.
            assert rendezvous({"XDG_RUNTIME_DIR": str(runtime)}).socket.exists() == (
                way == "daemon"
            )
        if way == "daemon":
            await daemon_gone(runtime)
    shipped = [name for name in EVERYTHING_TOOLS if name != "simulate-research-query"]
    assert list(served) == [f"everything__{name}" for name in shipped]
    for name in shipped:
        theirs, ours = direct[name], served[f"everything__{name}"]
        assert ours.title == theirs.title, name
        assert ours.description == theirs.description, name
        assert ours.input_schema == theirs.input_schema, name
        assert ours.annotations == theirs.annotations, name
        assert ours.output_schema == theirs.output_schema, name
    structured = served["everything__get-structured-content"]
    assert structured.output_schema is not None
    assert structured.output_schema["required"] == ["temperature", "conditions", "humidity"]
    roots = served["everything__get-roots-list"].annotations
    assert roots is not None and roots.read_only_hint is True and roots.open_world_hint is False
    assert not weather.is_error
    assert weather.structured_content == {
        "temperature": 36,
        "conditions": "Light rain / drizzle",
        "humidity": 82,
    }
