"""A call's own log messages (2026-07-28, SEP-2577): opted into with the call, told to it.

Through the bridge with a real 2026-07-28 server (``offers_server.py``, whose ``log`` tool
logs for its call) and a 2025 one (``legacy_ts/offers.js``); whose a message is when several
calls are in flight is ``CallLogs.target`` alone.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from agentty_tui.bridge import Bridge
from agentty_tui.bridge.call_logging import CallLog, CallLogs, call_log, logging_to
from agentty_tui.bridge.server_logging import ServerLogMessage
from agentty_tui.config import ConfigStore
from tests.conftest import WriteConfig
from tests.helpers import stdio_entry
from tests.servers import legacy_offers_argv, legacy_ts_available, offers_argv

pytestmark = pytest.mark.anyio

SETTLE = 20.0


def collecting(into: list[ServerLogMessage], level: str = "info", owner: object = None) -> CallLog:
    """A ``CallLog`` that keeps what it is sent."""

    async def send(message: ServerLogMessage) -> None:
        into.append(message)

    return CallLog(level, send, owner)  # type: ignore[arg-type]


async def test_a_call_that_opts_in_gets_its_log_messages_at_its_level(
    write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config({"py": stdio_entry(offers_argv())})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        everybody: list[ServerLogMessage] = []
        bridge.add_log_listener(everybody.append)
        await bridge.settled(SETTLE)
        mine: list[ServerLogMessage] = []
        with logging_to(collecting(mine, "info")):
            for level in ("debug", "info", "error"):
                await bridge.call_tool("py", "log", {"level": level, "text": level})
        assert [(m.server, m.level, m.data, m.logger) for m in mine] == [
            ("py", "info", "info", "offers"),
            ("py", "error", "error", "offers"),
        ]
        # Without the opt-in a 2026-07-28 server sends nothing, and a call's messages are
        # its own: nobody else heard them.
        await bridge.call_tool("py", "log", {"level": "error", "text": "unasked"})
        assert len(mine) == 2 and everybody == []


@pytest.mark.skipif(not legacy_ts_available(), reason="needs node and npm ci")
async def test_a_2025_servers_messages_are_nobodys_call_and_go_to_the_listeners(
    write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config({"ts": stdio_entry(legacy_offers_argv())})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        everybody: list[ServerLogMessage] = []
        bridge.add_log_listener(everybody.append)
        await bridge.settled(SETTLE)
        mine: list[ServerLogMessage] = []
        with logging_to(collecting(mine)):
            await bridge.call_tool("ts", "log", {"level": "error", "text": "connection-wide"})
        assert mine == []
        assert [m.data for m in everybody] == ["connection-wide"]


def test_a_message_is_the_one_callers_or_the_newest_of_one_owners_or_nobodys() -> None:
    logs = CallLogs()
    assert logs.target() is None and not logs.open
    host, other = object(), object()
    first, second, third = (collecting([], owner=owner) for owner in (host, host, other))
    with logs.calling(first):
        assert logs.target() is first
        with logs.calling(second):
            assert logs.target() is second  # one owner's: the newest
            with logs.calling(third):
                assert logs.target() is None and logs.open  # two owners': nobody's
            assert logs.target() is second
        with logs.calling(None):  # a call that did not opt in changes nothing
            assert logs.target() is first
    assert logs.target() is None


async def test_a_call_waits_for_its_messages_still_being_passed_on() -> None:
    logs = CallLogs()
    passed: list[ServerLogMessage] = []
    release = anyio.Event()

    async def slow(message: ServerLogMessage) -> None:
        await release.wait()
        passed.append(message)

    log = CallLog("info", slow, None)
    message = ServerLogMessage("s", "info", "x")
    order: list[object] = []

    async def call_returns() -> None:
        await logs.drained(log)
        order.append("result")

    async with anyio.create_task_group() as group:
        group.start_soon(logs.deliver, log, message)
        await anyio.wait_all_tasks_blocked()
        group.start_soon(call_returns)
        await anyio.wait_all_tasks_blocked()
        assert order == []  # the call waits for the message being passed on
        release.set()
    assert passed == [message] and order == ["result"]
    await logs.drained(log)  # nothing left: at once


def test_the_opt_in_is_set_around_the_calls_made_within() -> None:
    log = collecting([])
    assert call_log() is None
    with logging_to(log):
        assert call_log() is log
        with logging_to(None):
            assert call_log() is None
        assert call_log() is log
    assert call_log() is None
