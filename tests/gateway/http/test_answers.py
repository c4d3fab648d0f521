"""A 2025-era session's request over HTTP is answered as one JSON body when nothing but its
answer can go back (``gateway/http/answers``), else on an SSE stream: progress, forms and
roots still reach the host during its call.

The gateway is ``serve --http`` as a user runs it (``test_endpoint.gateway``) over
``asking_server.py``; hosts are raw HTTP requests (to see how each is answered) and the mcp
SDK's client in the 2025 era.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.session import ElicitationFnT, ListRootsFnT
from mcp.client.streamable_http import streamable_http_client

from agentty_tui.gateway.http.answers import answered_alone, asks_nothing
from tests.conftest import WriteConfig
from tests.gateway.host.test_requests import HOST_ROOT, Host, form_answer
from tests.gateway.http.test_endpoint import ACCEPT, Gateway, gateway
from tests.gateway.stdio.test_serve import text_of
from tests.helpers import stdio_entry
from tests.servers import asking_argv

pytestmark = pytest.mark.anyio


@pytest.fixture
def config(write_config: WriteConfig) -> Path:
    return write_config({"old": stdio_entry(asking_argv("--legacy"))})


def initialize(capabilities: dict[str, Any]) -> bytes:
    return json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": capabilities,
                "clientInfo": {"name": "h", "version": "1"},
            },
        }
    ).encode()


def call(meta: dict[str, Any] | None = None) -> bytes:
    params: dict[str, Any] = {"name": "old__count", "arguments": {"steps": 2}}
    if meta is not None:
        params["_meta"] = meta
    return json.dumps(
        {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}
    ).encode()


def test_which_requests_are_answered_alone() -> None:
    assert asks_nothing(initialize({}))
    assert asks_nothing(initialize({"sampling": {}}))
    assert not asks_nothing(initialize({"elicitation": {}}))
    assert not asks_nothing(initialize({"roots": {"listChanged": True}}))
    assert not asks_nothing(b"not json") and not asks_nothing(b"[]")
    assert answered_alone(call()) and answered_alone(call({"other": 1}))
    assert not answered_alone(call({"progressToken": 1}))
    notification = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert not answered_alone(json.dumps(notification).encode())
    assert not answered_alone(b"[" + call() + b"]") and not answered_alone(b"{")


async def session(
    served: Gateway, http: httpx2.AsyncClient, capabilities: dict[str, Any]
) -> dict[str, str]:
    """A 2025-era session opened with ``capabilities``: the headers of its requests."""
    bearer = {**ACCEPT, "Authorization": f"Bearer {served.token}"}
    opened = await http.post(served.url, content=initialize(capabilities), headers=bearer)
    assert opened.status_code == 200
    headers = {
        **bearer,
        "Mcp-Session-Id": opened.headers["mcp-session-id"],
        "MCP-Protocol-Version": "2025-11-25",
    }
    done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert (await http.post(served.url, json=done, headers=headers)).status_code == 202
    return headers


@pytest.mark.parametrize(
    ("capabilities", "meta", "kind"),
    [
        ({}, None, "application/json"),
        ({}, {"progressToken": "p"}, "text/event-stream"),
        ({"elicitation": {}}, None, "text/event-stream"),
        ({"roots": {}}, None, "text/event-stream"),
    ],
)
async def test_a_call_is_answered_alone_only_when_nothing_else_can_go_back(
    capabilities: dict[str, Any], meta: dict[str, Any] | None, kind: str, config: Path
) -> None:
    async with gateway(config, "--wait", "30") as served, httpx2.AsyncClient(timeout=30) as http:
        headers = await session(served, http, capabilities)
        answered = await http.post(served.url, content=call(meta), headers=headers)
        assert answered.status_code == 200
        assert answered.headers["content-type"].split(";")[0] == kind
        assert '"counted 2"' in answered.text
        if meta is not None:  # the progress came first, on the request's own stream
            assert answered.text.count("notifications/progress") == 2


@asynccontextmanager
async def http_host(
    served: Gateway,
    *,
    elicitation: ElicitationFnT | None = None,
    roots: ListRootsFnT | None = None,
) -> AsyncIterator[Client]:
    """The SDK's client in the 2025 era over HTTP, declaring what it is given."""
    async with AsyncExitStack() as stack:
        http = await stack.enter_async_context(
            httpx2.AsyncClient(
                headers={"Authorization": f"Bearer {served.token}"},
                timeout=httpx2.Timeout(30, read=300),
            )
        )
        client = Client(
            streamable_http_client(served.url, http_client=http),
            mode="legacy",
            elicitation_callback=elicitation,
            list_roots_callback=roots,
            cache=None,
        )
        yield await stack.enter_async_context(client)


async def test_progress_forms_and_roots_reach_an_sdk_host_over_http(config: Path) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    asked = Host([HOST_ROOT])
    with anyio.fail_after(60):
        async with gateway(config, "--wait", "30") as served:
            async with http_host(served) as plain:
                counted = await plain.call_tool(
                    "old__count", {"steps": 2}, progress_callback=progress
                )
                assert text_of(counted) == "counted 2"
                assert text_of(await plain.call_tool("old__count", {"steps": 1})) == "counted 1"
            async with http_host(served, elicitation=asked.elicit, roots=asked.list_roots) as host:
                answer = form_answer(await host.call_tool("old__confirm", {}))
                assert answer == ("accept", {"note": "host", "proceed": True})
                listed = await host.call_tool("old__roots", {})
                assert text_of(listed) == str(HOST_ROOT.uri)
    assert seen == [(1, 2, "step 1"), (2, 2, "step 2")]
    assert isinstance(asked.forms[0], types.ElicitRequestFormParams)
