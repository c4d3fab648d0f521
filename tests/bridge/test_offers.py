"""What servers offer besides tools, through the bridge: resources, prompts, log messages.

Real servers of both eras: ``offers_server.py`` (2026-07-28) and ``legacy_ts/offers.js``
(TypeScript SDK, 2025 handshake, with logging).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from operator import contains
from pathlib import Path
from typing import TypeVar

import anyio
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from agentty_tui.bridge import Bridge
from agentty_tui.bridge.offers import MAX_OFFERS, OfferChange, ServerOffers, all_pages
from agentty_tui.bridge.server_logging import (
    MAX_LOG_DATA,
    LogLevels,
    ServerLogMessage,
    at_least,
    bounded_data,
)
from agentty_tui.config import ConfigStore
from agentty_tui.errors import OperationError, UnknownServerError
from tests.conftest import WriteConfig
from tests.helpers import stdio_entry
from tests.servers import legacy_offers_argv, legacy_ts_available, offers_argv, plain_argv

pytestmark = pytest.mark.anyio

Item = TypeVar("Item")

SETTLE = 20.0

needs_node = pytest.mark.skipif(
    not legacy_ts_available(), reason="needs node and npm ci in tests/servers/legacy_ts"
)


class Heard(list[Item]):
    """What a listener heard; ``until`` waits for ``check()`` to hold."""

    def __init__(self) -> None:
        super().__init__()
        self._moved = anyio.Event()

    def hear(self, item: Item) -> None:
        self.append(item)
        moved, self._moved = self._moved, anyio.Event()
        moved.set()

    async def until(self, check: Callable[[], bool], timeout: float = 10.0) -> None:
        with anyio.fail_after(timeout):
            while not check():
                await self._moved.wait()


@needs_node
async def test_resources_and_prompts_of_both_eras_and_their_changes(
    write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config(
        {
            "py": stdio_entry(offers_argv()),
            "ts": stdio_entry(legacy_offers_argv()),
            "plain": stdio_entry(plain_argv()),
        }
    )
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        changes = Heard[OfferChange]()
        bridge.add_offer_listener(changes.hear)
        await bridge.settled(SETTLE)
        assert bridge.offers("plain") == ServerOffers()
        assert bridge.offers("ts") == ServerOffers(resources=True, prompts=True, logging=True)
        for server in ("py", "ts"):
            resources = await bridge.list_resources(server)
            assert [r.uri for r in resources] == ["memo://notes/first", "memo://notes/second"]
            templates = await bridge.list_resource_templates(server)
            assert [t.uri_template for t in templates] == ["memo://notes/{name}"]
            read = await bridge.read_resource(server, "memo://notes/first")
            first = read.contents[0]
            assert isinstance(first, types.TextResourceContents) and first.text == "the first note"
            assert [p.name for p in await bridge.list_prompts(server)] == ["greet"]
            got = await bridge.get_prompt(server, "greet", {"name": "Bo"})
            assert isinstance(got.messages[0].content, types.TextContent)
            assert got.messages[0].content.text == "Hello, Bo!"
            await bridge.call_tool(server, "add_note", {"name": "third", "text": "3"})
            await changes.until(partial(contains, changes, OfferChange(server, "resources")))
            assert len(await bridge.list_resources(server)) == 3
            await bridge.call_tool(server, "add_prompt", {"name": "extra"})
            await changes.until(partial(contains, changes, OfferChange(server, "prompts")))
        # Once each: the 2026 era's event is not counted again from the message handler.
        assert sorted(c.kind for c in changes if c.kind != "connection") == [
            "prompts",
            "prompts",
            "resources",
            "resources",
        ]
        with pytest.raises(MCPError) as missing:  # the server's own refusal, as it is
            await bridge.read_resource("ts", "memo://notes/none")
        assert missing.value.error.code == -32002
        with pytest.raises(UnknownServerError):
            await bridge.list_prompts("nope")
        await bridge.server_set_disabled("ts", True)
        await changes.until(lambda: changes[-1] == OfferChange("ts", "connection"))
        assert bridge.offers("ts") is None
        with pytest.raises((OperationError, UnknownServerError)):
            await bridge.list_resources("ts")


@needs_node
async def test_log_messages_come_tagged_at_the_most_verbose_level_asked(
    write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config({"ts": stdio_entry(legacy_offers_argv())})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        heard = Heard[ServerLogMessage]()
        bridge.add_log_listener(heard.hear)
        await bridge.settled(SETTLE)
        quiet, chatty = object(), object()
        await bridge.set_log_level(quiet, "error")
        await bridge.call_tool("ts", "log", {"level": "warning", "text": "held back"})
        await bridge.set_log_level(chatty, "info")  # the most verbose one wins
        await bridge.call_tool("ts", "log", {"level": "info", "text": "passed"})
        await heard.until(lambda: len(heard) == 1)
        assert heard == [ServerLogMessage("ts", "info", "passed", "offers")]
        await bridge.set_log_level(chatty, None)  # back to the quiet one's level
        await bridge.call_tool("ts", "log", {"level": "warning", "text": "held back again"})
        await bridge.call_tool("ts", "log", {"level": "critical", "text": "passed again"})
        await heard.until(lambda: len(heard) == 2)
        assert heard[1].data == "passed again"


def test_log_levels_and_bounds() -> None:
    levels = LogLevels()
    first, second = object(), object()
    assert levels.floor is None
    assert levels.ask(first, "warning") and levels.floor == "warning"
    assert levels.ask(second, "debug") and levels.floor == "debug"
    assert not levels.ask(first, "error")  # the floor stays debug
    assert levels.ask(second, None) and levels.floor == "error"
    assert at_least("error", "warning") and not at_least("info", "warning")
    assert at_least("debug", None)
    assert bounded_data({"a": 1}) == {"a": 1}
    cut = bounded_data("x" * (MAX_LOG_DATA + 10))
    assert isinstance(cut, str) and len(cut) < MAX_LOG_DATA + 100 and "cut" in cut


async def test_all_pages_stops_at_the_bounds() -> None:
    async def endless(cursor: str | None) -> tuple[list[int], str | None]:
        return list(range(1000)), "more"

    assert len(await all_pages(endless)) == MAX_OFFERS
