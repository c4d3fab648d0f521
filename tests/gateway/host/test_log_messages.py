"""A 2026-07-28 host's per-request log opt-in (SEP-2577) through ``agentty-tui serve``.

The host is the mcp SDK's client over stdio in the 2026-07-28 era, alone and through the
shared daemon; it opts in on one ``tools/call`` with ``_meta``
``io.modelcontextprotocol/logLevel``. The servers are real processes: ``offers_server.py``
(2026-07-28: logs for the call, only when it opted in) and ``legacy_ts/offers.js`` (2025:
connection-wide messages, which belong to no request). The 2025 host's side
(``logging/setLevel``) is in ``test_passthrough.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

import mcp_types as types
import pytest
from mcp import Client
from mcp.client.session import ClientRequestContext

from tests.conftest import WriteConfig
from tests.gateway.host.test_passthrough import Heard, host
from tests.helpers import stdio_entry
from tests.servers import legacy_offers_argv, legacy_ts_available, offers_argv

LOG_LEVEL = types.LOG_LEVEL_META_KEY

WAIT = 60.0
"""Seconds the first request waits for the servers (a loaded machine starts them slowly)."""

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(
        not legacy_ts_available(), reason="needs node and npm ci in tests/servers/legacy_ts"
    ),
]


@pytest.fixture
def config(write_config: WriteConfig) -> Path:
    return write_config({"py": stdio_entry(offers_argv()), "ts": stdio_entry(legacy_offers_argv())})


async def log(client: Client, server: str, level: str, text: str, opt_in: str | None) -> None:
    """``<server>__log`` as a call that opts into its log messages at ``opt_in`` (or not)."""
    meta = None if opt_in is None else cast(types.RequestParamsMeta, {LOG_LEVEL: opt_in})
    result = await client.call_tool(f"{server}__log", {"level": level, "text": text}, meta=meta)
    assert not result.is_error, result


async def test_a_2026_hosts_call_that_opts_in_gets_its_log_messages_at_its_level(
    config: Path, tmp_path: Path
) -> None:
    heard = Heard()
    async with host(config, tmp_path, "auto", heard, wait=WAIT) as client:
        assert client.protocol_version == "2026-07-28"
        for level in ("debug", "warning", "error"):
            await log(client, "py", level, level, opt_in="warning")
        # With the call, before its result: no waiting needed.
        assert [(m.level, m.logger, m.data) for m in heard.logs] == [
            ("warning", "py.offers", "warning"),
            ("error", "py.offers", "error"),
        ]
        await log(client, "py", "error", "not asked for", opt_in=None)
        # A 2025-era server's messages belong to no request: the call gets none of them.
        await log(client, "ts", "error", "connection-wide", opt_in="debug")
        await log(client, "py", "critical", "the last", opt_in="error")
        assert [m.data for m in heard.logs] == ["warning", "error", "the last"]


async def test_a_call_answered_in_rounds_gets_its_log_messages_too(
    config: Path, tmp_path: Path
) -> None:
    """A 2026-07-28 host that declares forms has its calls run in ``input_required`` rounds
    (the server's call in a task of the rounds): the opt-in reaches that task, and the
    messages go to the round that started the call, as its progress does."""

    async def decline(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        return types.ElicitResult(action="decline")

    heard = Heard()
    async with host(config, tmp_path, "auto", heard, wait=WAIT, elicitation=decline) as client:
        await log(client, "py", "notice", "in rounds", opt_in="info")
        assert [(m.level, m.data) for m in heard.logs] == [("notice", "in rounds")]


async def test_two_2026_hosts_of_the_daemon_each_get_their_own_calls_messages(
    config: Path, tmp_path: Path
) -> None:
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    first_heard, second_heard = Heard(), Heard()
    async with (
        host(config, one, "auto", first_heard, runtime, wait=WAIT) as first,
        host(config, two, "auto", second_heard, runtime, wait=WAIT) as second,
    ):
        await log(first, "py", "info", "for the first", opt_in="info")
        await log(second, "py", "info", "for the second", opt_in="info")
        await log(second, "py", "info", "not asked for", opt_in=None)
        assert [m.data for m in first_heard.logs] == ["for the first"]
        assert [m.data for m in second_heard.logs] == ["for the second"]
