"""Resource subscriptions through ``agentty-tui serve``, as a host makes them.

The host is the mcp SDK's client over stdio in both protocol eras (``resources/subscribe`` in
the 2025 handshake, a ``subscriptions/listen`` filter in 2026-07-28), alone and through the
shared daemon; the servers are real processes: ``offers_server.py`` (2026-07-28: a listen
stream a resource) and ``legacy_ts/offers.js --subscribe`` (the TypeScript SDK, 2025:
``resources/subscribe``), and ``legacy_ts/offers.js`` without it (declares no ``subscribe``).
Each server says what it was asked (its ``subscriptions`` tool), so a test sees how often the
gateway subscribed it.
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.session import IncomingMessage
from mcp.client.subscriptions import ResourceUpdated
from mcp.shared.exceptions import MCPError

from agentty_tui.gateway.rendezvous import rendezvous
from agentty_tui.gateway.stdio.shared import RESTARTED
from tests.conftest import WriteConfig
from tests.gateway.host.test_passthrough import Heard, host
from tests.gateway.hosts import MODES
from tests.gateway.stdio.test_serve import toggle
from tests.helpers import stdio_entry
from tests.servers import legacy_offers_argv, legacy_ts_available, offers_argv

WAIT = 60.0
"""Seconds the first request waits for the servers (a loaded machine starts them slowly)."""

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(
        not legacy_ts_available(), reason="needs node and npm ci in tests/servers/legacy_ts"
    ),
]

TS = "agentty://ts/memo://notes/first"
PY = "agentty://py/memo://notes/first"
PLAIN = "agentty://plain/memo://notes/first"


class Updated(Heard):
    """What the host was told, with the resource updates by gateway URI (the 2026-07-28
    listen stream's events come to the message handler too)."""

    def __init__(self) -> None:
        super().__init__()
        self.updates: list[str] = []

    async def handler(self, message: IncomingMessage) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            self.updates.append(message.params.uri)
            self._seen()
        await super().handler(message)


@pytest.fixture
def config(write_config: WriteConfig) -> Path:
    return write_config(
        {
            "py": stdio_entry(offers_argv()),
            "ts": stdio_entry(legacy_offers_argv("--subscribe")),
            "plain": stdio_entry(legacy_offers_argv()),
        }
    )


async def asked(client: Client, server: str) -> dict[str, Any]:
    """What ``server`` says it was asked (its ``subscriptions`` tool; ``{}`` while the
    gateway refuses the call, the server not back yet, or the daemon was replaced)."""
    try:
        result = await client.call_tool(f"{server}__subscriptions", {})
    except MCPError as exc:  # asked of a daemon killed meanwhile (a test kills one)
        if exc.error.message != RESTARTED:
            raise
        return {}
    if result.is_error:
        return {}
    content = result.content[0]
    assert isinstance(content, types.TextContent)
    found = json.loads(content.text)
    assert isinstance(found, dict)
    return found


async def subscribe(client: Client, uri: str) -> None:
    """``resources/subscribe`` (2025 handshake; the SDK's helper is marked deprecated)."""
    request = types.SubscribeRequest(params=types.SubscribeRequestParams(uri=uri))
    await client.session.send_request(request, types.EmptyResult)


async def unsubscribe(client: Client, uri: str) -> None:
    """``resources/unsubscribe`` (2025 handshake)."""
    request = types.UnsubscribeRequest(params=types.UnsubscribeRequestParams(uri=uri))
    await client.session.send_request(request, types.EmptyResult)


@asynccontextmanager
async def holding(client: Client, *uris: str) -> AsyncIterator[tuple[str, ...]]:
    """The host holds ``uris``: ``resources/subscribe`` in the 2025 era (undone on leaving),
    a listen stream naming them in 2026-07-28 (closed on leaving); yields what was honoured
    (2026) or subscribed (2025)."""
    if client.protocol_version != "2026-07-28":
        for uri in uris:
            await subscribe(client, uri)
        yield uris
        for uri in uris:
            await unsubscribe(client, uri)
        return
    async with anyio.create_task_group() as group:
        honored: list[tuple[str, ...]] = []

        async def follow(*, task_status: anyio.abc.TaskStatus[None]) -> None:
            async with client.listen(resource_subscriptions=uris) as subscription:
                honored.append(tuple(subscription.honored.resource_subscriptions or ()))
                task_status.started()
                async for event in subscription:
                    assert isinstance(event, ResourceUpdated)

        await group.start(follow)
        yield honored[0]
        group.cancel_scope.cancel()


async def until_asked(client: Client, server: str, key: str, value: object) -> None:
    """Until ``server``'s ``subscriptions`` says ``key`` is ``value``."""
    with anyio.fail_after(15):
        # Asked again at once: each ask is a round trip, and the count has no notice of its own.
        while (await asked(client, server)).get(key) != value:
            pass


@pytest.mark.parametrize("mode", MODES)
async def test_a_hosts_subscription_reaches_the_server_and_its_updates_come_back(
    mode: str, config: Path, tmp_path: Path
) -> None:
    heard = Updated()
    async with host(config, tmp_path, mode, heard, wait=WAIT) as client:
        resources = client.server_capabilities.resources
        assert resources is not None and resources.subscribe
        async with holding(client, TS, PY) as held:
            assert held == (TS, PY)
            assert (await asked(client, "ts"))["subscribed"] == ["memo://notes/first"]
            assert (await asked(client, "py"))["open"] == 1
            await client.call_tool("ts__touch_note", {"name": "first", "text": "new"})
            await client.call_tool("py__touch_note", {"name": "first", "text": "new"})
            await heard.until(lambda: sorted(heard.updates) == [PY, TS])
            # A note nobody holds: no update.
            await client.call_tool("ts__touch_note", {"name": "second", "text": "new"})
            read = await client.read_resource(TS)
            assert isinstance(read.contents[0], types.TextResourceContents)
            assert read.contents[0].text == "new"
        await until_asked(client, "ts", "subscribed", [])
        await until_asked(client, "py", "open", 0)
        assert sorted(heard.updates) == [PY, TS]


async def test_a_2025_host_is_told_why_a_resource_cannot_be_subscribed_to(
    config: Path, tmp_path: Path
) -> None:
    async with host(config, tmp_path, "legacy", Updated(), wait=WAIT) as client:
        with pytest.raises(MCPError) as plain:
            await subscribe(client, PLAIN)
        assert "server plain does not offer resource subscriptions" in plain.value.error.message
        with pytest.raises(MCPError) as nobody:
            await subscribe(client, "agentty://nope/memo://notes/first")
        assert "agentty serves no server nope here" in nobody.value.error.message
        with pytest.raises(MCPError) as bare:
            await subscribe(client, "memo://notes/first")
        assert "agentty://<server>/<uri>" in bare.value.error.message
        await unsubscribe(client, TS)  # never subscribed: no error
        assert (await asked(client, "ts"))["unsubscribes"] == 0


async def test_a_2026_host_has_only_what_can_be_subscribed_to_honoured(
    config: Path, tmp_path: Path
) -> None:
    async with (
        host(config, tmp_path, "auto", Updated(), wait=WAIT) as client,
        holding(client, PLAIN, PY, "memo://notes/first") as held,
    ):
        assert held == (PY,)
        assert (await asked(client, "py"))["open"] == 1


async def test_a_host_holds_a_bounded_number_of_subscriptions(config: Path, tmp_path: Path) -> None:
    from agentty_tui.gateway.host.subscriptions import MAX_HOST_SUBSCRIPTIONS

    async with host(config, tmp_path, "legacy", Updated(), wait=WAIT) as client:
        for number in range(MAX_HOST_SUBSCRIPTIONS):
            await subscribe(client, f"agentty://ts/memo://notes/n{number}")
        with pytest.raises(MCPError) as over:
            await subscribe(client, "agentty://ts/memo://notes/one-more")
        assert (
            f"at most {MAX_HOST_SUBSCRIPTIONS} resource subscriptions" in over.value.error.message
        )
        await subscribe(client, "agentty://ts/memo://notes/n0")  # held already: no change
        await unsubscribe(client, "agentty://ts/memo://notes/n0")
        await subscribe(client, "agentty://ts/memo://notes/one-more")  # room again


@pytest.mark.parametrize("mode", MODES)
async def test_a_server_that_comes_back_is_subscribed_again(
    mode: str, config: Path, tmp_path: Path
) -> None:
    heard = Updated()
    async with host(config, tmp_path, mode, heard, wait=WAIT) as client, holding(client, TS, PY):
        for server in ("ts", "py"):
            await toggle("disable", config, server)
            await toggle("enable", config, server)
        await until_asked(client, "ts", "subscribed", ["memo://notes/first"])
        await until_asked(client, "py", "open", 1)
        await client.call_tool("ts__touch_note", {"name": "first", "text": "again"})
        await client.call_tool("py__touch_note", {"name": "first", "text": "again"})
        await heard.until(lambda: sorted(heard.updates) == [PY, TS])


async def test_two_hosts_of_the_daemon_share_one_subscription_a_resource(
    config: Path, tmp_path: Path
) -> None:
    """A 2025 host and a 2026-07-28 host hold the same two resources: each server is
    subscribed once; an update reaches both; the subscription goes with the last holder, and
    a host that leaves lets its own go."""
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    old, new = Updated(), Updated()
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    async with host(config, one, "legacy", old, runtime, wait=WAIT) as first:
        async with (
            host(config, two, "auto", new, runtime, wait=WAIT) as second,
            holding(second, TS, PY),
        ):
            await subscribe(first, TS)
            await subscribe(first, PY)
            assert (await asked(first, "ts"))["subscribes"] == 1
            assert (await asked(first, "py"))["opened"] == 1
            await first.call_tool("ts__touch_note", {"name": "first", "text": "1"})
            await second.call_tool("py__touch_note", {"name": "first", "text": "1"})
            for heard in (old, new):
                await heard.until(lambda h=heard: sorted(h.updates) == [PY, TS])
            await unsubscribe(first, TS)  # the other host still holds it
            await first.call_tool("ts__touch_note", {"name": "first", "text": "2"})
            await new.until(lambda: new.updates.count(TS) == 2)
            assert (await asked(first, "ts"))["unsubscribes"] == 0
        # The 2026 host left (its listen stream with it): ts goes, py stays for the first.
        await until_asked(first, "ts", "subscribed", [])
        assert (await asked(first, "py"))["open"] == 1
        await first.call_tool("py__touch_note", {"name": "first", "text": "3"})
        await old.until(lambda: old.updates.count(PY) == 2)
        assert old.updates.count(TS) == 1
    # The 2025 host left too: its subscription went with it (seen by a host that comes next).
    async with host(config, one, "legacy", Updated(), runtime, wait=WAIT) as third:
        await until_asked(third, "py", "open", 0)


@pytest.mark.parametrize("mode", MODES)
async def test_a_daemon_killed_is_replaced_with_the_hosts_subscriptions(
    mode: str, config: Path, tmp_path: Path
) -> None:
    """``kill -9`` of the daemon: the host's ``serve`` tells the new daemon its
    subscriptions again (a 2025 host's ``resources/subscribe``, a 2026-07-28 host's open listen
    stream), so the new server process is subscribed and its updates reach the host."""
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    heard = Updated()
    async with (
        host(config, tmp_path, mode, heard, runtime, wait=WAIT) as client,
        holding(client, TS, PY),
    ):
        await until_asked(client, "ts", "subscribed", ["memo://notes/first"])
        daemon = int(rendezvous({"XDG_RUNTIME_DIR": str(runtime)}).pid.read_text())
        os.kill(daemon, signal.SIGKILL)
        with anyio.fail_after(60):  # a new daemon's start: seconds on a loaded machine
            while rendezvous({"XDG_RUNTIME_DIR": str(runtime)}).pid.read_text() == str(daemon):
                await asked(client, "ts")  # each ask is a round trip: no fixed sleep
        await until_asked(client, "ts", "subscribed", ["memo://notes/first"])
        await until_asked(client, "py", "open", 1)
        await client.call_tool("ts__touch_note", {"name": "first", "text": "after"})
        await client.call_tool("py__touch_note", {"name": "first", "text": "after"})
        await heard.until(lambda: sorted(heard.updates) == [PY, TS])
