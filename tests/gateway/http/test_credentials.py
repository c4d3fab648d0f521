"""A host's credentials stay with the gateway: what a host sends ``serve --http`` to be let in
(its bearer token, any cookie or header of its own) never reaches a server behind it. The
upstream is a real Streamable HTTP server (``session_http_server.py``) that records every
request's headers; the host is the mcp SDK's client."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from tests.conftest import WriteConfig
from tests.gateway.daemon.test_process import text_of
from tests.gateway.http.test_endpoint import gateway, http_host
from tests.helpers import free_port, serving
from tests.servers import python_server_argv

pytestmark = pytest.mark.anyio


@pytest.fixture
def upstream(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The recording HTTP server: its MCP endpoint, and the file of headers it saw."""
    port, headers = free_port(), tmp_path / "headers.jsonl"
    argv = python_server_argv(
        "session_http_server.py",
        *("--port", str(port), "--events", str(tmp_path / "events"), "--headers", str(headers)),
    )
    process = subprocess.Popen(argv, stderr=subprocess.DEVNULL)
    try:
        with anyio.from_thread.start_blocking_portal() as portal:
            portal.call(_until_serving, port, process)
        yield f"http://127.0.0.1:{port}/mcp", headers
    finally:
        process.terminate()
        process.wait(timeout=10)


async def _until_serving(port: int, process: subprocess.Popen[bytes]) -> None:
    with anyio.fail_after(60):
        # Another process's port: no event says it listens, so it is polled.
        while not serving(port) and process.poll() is None:  # noqa: ASYNC110
            await anyio.sleep(0.05)
    assert serving(port), "the recording server did not start"


async def test_the_hosts_token_never_reaches_an_upstream_server(
    write_config: WriteConfig, upstream: tuple[str, Path]
) -> None:
    url, seen = upstream
    config = write_config({"sessions": {"url": url}})
    async with gateway(config) as served, http_host(served, "legacy") as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
        assert "sessions__add" in listed, listed
        added = await client.call_tool("sessions__add", {"a": 2, "b": 3})
        assert text_of(added) == "5"
        token = served.token
    requests = [json.loads(line) for line in seen.read_text().splitlines()]
    assert len(requests) >= 3  # the bridge's handshake, its listing, the call
    for headers in requests:
        assert "authorization" not in headers, headers
        assert not any(token in value for value in headers.values()), headers
