"""What servers ask and what hosts cancel through ``serve --http --shared``: the daemon's HTTP
hosts as its stdio hosts (``daemon.http_handover``).

``serve --http --shared`` runs as a user runs it (its daemon the real one it starts, in the
test's runtime folder); the hosts are the mcp SDK's client over HTTP, in both protocol eras,
declaring no elicitation; the picker is the picker's source (``RemoteSource``) attached to the
same daemon from this process, answering as the test says. The servers are real processes
(``asking_server.py``: ``old`` speaks the 2025 handshake to the bridge, ``ask`` 2026-07-28);
what each got is read from the server itself.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from agentty_tui.gateway.picker.view import AskedBy
from tests.conftest import WriteConfig
from tests.gateway.daemon.test_picker_asks import Asked, accept_reply
from tests.gateway.daemon.test_process import daemon_gone
from tests.gateway.hosts import MODES, cancel_a_waiting_call
from tests.gateway.http.test_endpoint import http_host
from tests.gateway.http.test_shared import shared_gateway
from tests.gateway.picker.test_remote_source import picker_source, until_model
from tests.gateway.stdio.test_serve import text_of
from tests.helpers import stdio_entry
from tests.servers import asking_argv

pytestmark = pytest.mark.anyio

TIMEOUT = 60.0

SERVERS = ("old", "ask")
"""One server of each era under the bridge."""


@pytest.fixture
def config(write_config: WriteConfig) -> Path:
    return write_config(
        {"old": stdio_entry(asking_argv("--legacy")), "ask": stdio_entry(asking_argv())}
    )


def ready(model: object) -> bool:
    servers = getattr(model, "servers", ())
    return sorted((s.name, s.status) for s in servers) == [
        ("ask", "connected"),
        ("old", "connected"),
    ]


@pytest.mark.parametrize("mode", MODES)
async def test_a_form_during_an_http_hosts_call_is_asked_of_the_attached_picker(
    mode: str, config: Path, runtime: Path, tmp_path: Path
) -> None:
    """The HTTP host declared no elicitation: ``confirm``'s form during its call goes to the
    picker attached for the workspace, told which host's call asks (every host's view, the
    project), and the server gets the picker's answer, which the host's call returns."""
    asked = Asked(accept_reply)
    with anyio.fail_after(TIMEOUT * 2):
        async with (
            shared_gateway(config, runtime) as served,
            http_host(served, mode) as host,
            picker_source(config, runtime, tmp_path / "picker") as source,
        ):
            source.set_daemon_asks(asked, asked.completed)
            await until_model(source, ready)
            for server in SERVERS:
                result = await host.call_tool(f"{server}__confirm", {})
                assert text_of(result) == 'accept {"note": "ok", "proceed": true}', server
            assert [by for by, _params in asked.seen] == [
                AskedBy(server, "confirm", by_host=True, host=None, project=str(config))
                for server in SERVERS
            ]
            assert [params.message for _by, params in asked.seen] == ["Proceed with the thing?"] * 2
    await daemon_gone(runtime)


@pytest.mark.parametrize("mode", MODES)
async def test_without_an_attached_picker_the_http_hosts_form_is_declined(
    mode: str, config: Path, runtime: Path
) -> None:
    with anyio.fail_after(TIMEOUT):
        async with shared_gateway(config, runtime) as served, http_host(served, mode) as host:
            for server in SERVERS:
                assert text_of(await host.call_tool(f"{server}__confirm", {})) == "decline null"
    await daemon_gone(runtime)


@pytest.mark.parametrize("mode", MODES)
async def test_an_http_host_cancelling_its_call_cancels_the_servers_request(
    mode: str, config: Path, runtime: Path, tmp_path: Path
) -> None:
    """A 2025 session's ``notifications/cancelled``, a 2026-07-28 request's closed response
    stream: either way the server hears ``notifications/cancelled`` from the daemon."""
    async with shared_gateway(config, runtime) as served, http_host(served, mode) as host:
        for server in SERVERS:
            await cancel_a_waiting_call(host, server, tmp_path / f"{server}-cancelled.txt")
    await daemon_gone(runtime)
