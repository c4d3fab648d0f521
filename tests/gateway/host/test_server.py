"""The server one host talks to, in process over memory streams, on a source we drive."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.message import SessionMessage

from agentty_tui.bridge.call_hooks import CallHooks
from agentty_tui.bridge.roots import RootsBoard
from agentty_tui.errors import OperationError
from agentty_tui.gateway.host.server import HostServer
from agentty_tui.model import PluginModel, ServerState, ServerStatus, StdioSpec, ToolState
from tests.gateway.hosts import MODES, Notices, listening

pytestmark = pytest.mark.anyio


def state(
    name: str,
    tools: tuple[str, ...] = (),
    *,
    off: tuple[str, ...] = (),
    status: ServerStatus = "connected",
) -> ServerState:
    return ServerState(
        name=name,
        spec=StdioSpec(command=name),
        status=status,
        tools=tuple(ToolState(bare=bare, enabled=bare not in off) for bare in tools),
    )


def model(*servers: ServerState, revision: int) -> PluginModel:
    return PluginModel(servers=servers, revision=revision)


class Source:
    """A ``GatewaySource`` the test publishes to; ``publish`` returns once the server took
    the snapshot it published before (the feed has no room: one at a time)."""

    def __init__(self, first: PluginModel) -> None:
        self.snapshot = first
        self.calls: list[tuple[str, str, dict[str, Any] | None]] = []
        self.fail: str | None = None
        self._send, self._receive = anyio.create_memory_object_stream[PluginModel](0)
        self._changed = anyio.Event()
        self.roots = RootsBoard(())

    async def roots_changed(self, servers: Iterable[str] | None = None) -> None:
        pass

    async def publish(self, snapshot: PluginModel) -> None:
        self.snapshot = snapshot
        changed, self._changed = self._changed, anyio.Event()
        changed.set()
        await self._send.send(snapshot)

    async def updates(self) -> AsyncIterator[PluginModel]:
        yield self.snapshot
        async for snapshot in self._receive:
            yield snapshot

    async def wait_for(
        self, predicate: Callable[[PluginModel], bool], timeout: float | None = None
    ) -> PluginModel:
        with anyio.fail_after(timeout):
            while not predicate(self.snapshot):
                await self._changed.wait()
        return self.snapshot

    async def call_tool(
        self,
        server: str,
        tool: str,
        arguments: dict[str, Any] | None = None,
        hooks: CallHooks | None = None,
    ) -> types.CallToolResult:
        self.calls.append((server, tool, arguments))
        if self.fail is not None:
            raise OperationError(self.fail)
        text = types.TextContent(type="text", text=f"{server}/{tool}")
        return types.CallToolResult(content=[text], structured_content={"n": 1}, is_error=False)


@asynccontextmanager
async def attached(
    source: Source, mode: str, notices: Notices, *, wait: float = 5.0
) -> AsyncIterator[tuple[Client, HostServer]]:
    """A client attached to a ``HostServer`` on ``source`` over memory streams."""
    to_server, from_client = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    to_client, from_server = anyio.create_memory_object_stream[SessionMessage](16)
    host = HostServer(source, wait=wait)

    @asynccontextmanager
    async def transport() -> AsyncIterator[Any]:
        yield from_server, to_server

    async with anyio.create_task_group() as group:
        group.start_soon(host.serve, from_client, to_client)
        client = Client(transport(), mode=mode, message_handler=notices.handler, cache=None)
        async with client, listening(client, notices):
            yield client, host
        group.cancel_scope.cancel()


@pytest.mark.parametrize("mode", MODES)
async def test_one_notice_per_change_of_the_list_and_none_for_other_snapshots(mode: str) -> None:
    source = Source(model(state("s", ("a", "b")), revision=1))
    notices = Notices()
    async with attached(source, mode, notices) as (client, host):
        assert (client.protocol_version == "2026-07-28") == (mode == "auto")
        listed = await client.list_tools()
        assert [tool.name for tool in listed.tools] == ["s__a", "s__b"]
        # A new revision that leaves this list alone (another server connecting, then failing).
        await source.publish(
            model(state("s", ("a", "b")), state("t", status="connecting"), revision=2)
        )
        await source.publish(model(state("s", ("a", "b")), state("t", status="failed"), revision=3))
        # A toggle: one notice.
        await source.publish(model(state("s", ("a", "b"), off=("b",)), revision=4))
        await source.publish(model(state("s", ("a", "b"), off=("b",)), revision=5))
        await notices.until(1)
        # A late server: one more.
        late = model(state("s", ("a", "b"), off=("b",)), state("t", ("c",)), revision=6)
        await source.publish(late)
        await source.publish(late)  # the feed took the one before: it was handled
        await notices.until(2)
        assert host.announced == 2
        assert notices.count == 2
        listed = await client.list_tools()
        assert [tool.name for tool in listed.tools] == ["s__a", "t__c"]


@pytest.mark.parametrize("mode", MODES)
async def test_calls_go_through_and_a_tool_switched_off_is_refused_saying_why(mode: str) -> None:
    source = Source(model(state("s", ("a", "b")), revision=1))
    notices = Notices()
    async with attached(source, mode, notices) as (client, _):
        await client.list_tools()
        result = await client.call_tool("s__a", {"x": 1})
        assert not result.is_error
        assert result.structured_content == {"n": 1}
        assert source.calls == [("s", "a", {"x": 1})]
        await source.publish(model(state("s", ("a", "b"), off=("b",)), revision=2))
        refused = await client.call_tool("s__b", {})
        assert refused.is_error
        text = refused.content[0]
        assert isinstance(text, types.TextContent)
        assert "switched off" in text.text and "agentty-tui enable s b" in text.text
        assert source.calls == [("s", "a", {"x": 1})]  # never reached the server
        source.fail = "server 's' is not connected (failed: exit 1)"
        failed = await client.call_tool("s__a", {})
        assert failed.is_error and "not connected" in str(failed.content[0])


async def test_the_first_request_waits_for_servers_still_connecting() -> None:
    source = Source(model(state("s", ("a",)), state("slow", status="connecting"), revision=1))
    notices = Notices()

    async def connect_later() -> None:
        await anyio.sleep(0.3)
        source.snapshot = model(state("s", ("a",)), state("slow", ("b",)), revision=2)
        await source.publish(source.snapshot)

    async with anyio.create_task_group() as group:
        group.start_soon(connect_later)
        async with attached(source, "legacy", notices) as (client, _):
            listed = await client.list_tools()
            assert [tool.name for tool in listed.tools] == ["s__a", "slow__b"]
            assert "slow" not in (client.instructions or "")


async def test_a_server_still_connecting_after_the_wait_is_named_and_arrives_later() -> None:
    source = Source(model(state("s", ("a",)), state("slow", status="connecting"), revision=1))
    notices = Notices()
    async with attached(source, "legacy", notices, wait=0.2) as (client, _):
        assert "slow: still connecting" in (client.instructions or "")
        listed = await client.list_tools()
        assert [tool.name for tool in listed.tools] == ["s__a"]
        await source.publish(model(state("s", ("a",)), state("slow", ("b",)), revision=2))
        await notices.until(1)
        listed = await client.list_tools()
        assert [tool.name for tool in listed.tools] == ["s__a", "slow__b"]
