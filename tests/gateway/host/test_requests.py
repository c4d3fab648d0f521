"""What a server sends or asks during a host's call, through ``agentty-tui serve``: progress,
cancellation, forms (form and URL mode) and roots; and the host's roots outside calls.

The host is the mcp SDK's client over stdio (a 2025 handshake host, ``legacy``, and a
2026-07-28 one, ``auto``); the servers are ``asking_server.py`` processes under the gateway,
one of each era (``ask`` speaks 2026-07-28 to the bridge, ``old`` the 2025 handshake).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.session import (
    ClientRequestContext,
    ElicitationFnT,
    IncomingMessage,
    ListRootsFnT,
    MessageHandlerFnT,
)
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError

from agentty_tui.gateway.rendezvous import rendezvous
from tests.conftest import WriteConfig
from tests.gateway.hosts import MODES
from tests.gateway.stdio.test_serve import environment, serve_argv, text_of
from tests.helpers import stdio_entry
from tests.servers import asking_argv

pytestmark = pytest.mark.anyio

SERVERS = ("ask", "old")
"""The asking server in the 2026-07-28 era, and in the 2025 handshake era."""

HOST_ROOT = types.Root(uri="file:///host/project", name="project")


@pytest.fixture
def config(write_config: WriteConfig) -> Path:
    return write_config(
        {"ask": stdio_entry(asking_argv()), "old": stdio_entry(asking_argv("--legacy"))}
    )


class Host:
    """What the host answers, and what it was asked."""

    def __init__(self, roots: list[types.Root] | None = None) -> None:
        self.forms: list[types.ElicitRequestParams] = []
        self.roots = roots
        self.asked_roots = 0
        self.completions: list[str] = []
        self.completed = anyio.Event()

    async def handler(self, message: IncomingMessage) -> None:
        """The client's message handler: counts URL completions."""
        if isinstance(message, types.ElicitCompleteNotification):
            self.completions.append(message.params.elicitation_id)
            self.completed.set()

    async def elicit(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        self.forms.append(params)
        if isinstance(params, types.ElicitRequestURLParams):
            return types.ElicitResult(action="accept")
        return types.ElicitResult(action="accept", content={"proceed": True, "note": "host"})

    async def list_roots(self, context: ClientRequestContext) -> types.ListRootsResult:
        self.asked_roots += 1
        return types.ListRootsResult(roots=list(self.roots or ()))


@asynccontextmanager
async def attached(
    config: Path,
    tmp_path: Path,
    mode: str,
    *,
    elicitation: ElicitationFnT | None = None,
    roots: ListRootsFnT | None = None,
    handler: MessageHandlerFnT | None = None,
    shared: bool = False,
) -> AsyncIterator[Client]:
    """``serve`` started as a host starts it (``shared``: ``serve --shared``, through the
    daemon, which leaves 1 s after the host), its servers connected; its stderr stays empty."""
    errors = tmp_path / "serve-stderr.txt"
    # A long --wait: the first listing must hold both servers, even on a loaded machine.
    argv = serve_argv(config, "--wait", "30", shared=shared)
    env = {**environment(), "AGENTTY_GATEWAY_IDLE": "1"}
    params = StdioServerParameters(command=sys.executable, args=argv[1:], env=env, cwd=tmp_path)
    with errors.open("w") as errlog:
        client = Client(
            stdio_client(params, errlog=errlog),
            mode=mode,
            elicitation_callback=elicitation,
            list_roots_callback=roots,
            message_handler=handler,
            cache=None,
        )
        async with client:
            listed = {tool.name for tool in (await client.list_tools()).tools}
            assert {f"{server}__confirm" for server in SERVERS} <= listed
            yield client
    assert errors.read_text() == ""


def form_answer(result: types.CallToolResult) -> tuple[str, object]:
    action, content = text_of(result).split(" ", 1)
    return action, json.loads(content)


@pytest.mark.parametrize("mode", MODES)
async def test_progress_reaches_the_host_under_its_token(
    mode: str, config: Path, tmp_path: Path
) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    with anyio.fail_after(60):
        async with attached(config, tmp_path, mode) as client:
            for server in SERVERS:
                result = await client.call_tool(
                    f"{server}__count", {"steps": 2}, progress_callback=progress
                )
                assert text_of(result) == "counted 2"
            # A call without a token gets none.
            assert text_of(await client.call_tool("ask__count", {"steps": 2})) == "counted 2"
    steps = [(1, 2, "step 1"), (2, 2, "step 2")]
    assert seen == steps + steps


async def test_a_form_and_a_url_go_to_a_host_that_declared_elicitation(
    config: Path, tmp_path: Path
) -> None:
    host = Host()
    with anyio.fail_after(60):
        async with attached(
            config, tmp_path, "legacy", elicitation=host.elicit, handler=host.handler
        ) as client:
            for server in SERVERS:
                answer = form_answer(await client.call_tool(f"{server}__confirm", {}))
                assert answer == ("accept", {"note": "host", "proceed": True})
            visited = await client.call_tool("old__visit", {})
            await host.completed.wait()  # the server's completion of the URL it accepted
    assert text_of(visited) == "accept"
    assert host.completions == ["visit-1"]
    messages = [form.message for form in host.forms]
    assert messages == ["Proceed with the thing?"] * 2 + ["Sign in to the thing"]
    url = host.forms[-1]
    assert isinstance(url, types.ElicitRequestURLParams)
    assert url.url == "https://example.com/sign-in"


async def test_a_url_required_error_reaches_a_host_that_declared_url_mode_with_its_completion(
    config: Path, tmp_path: Path
) -> None:
    host = Host()
    with anyio.fail_after(60):
        async with attached(
            config, tmp_path, "legacy", elicitation=host.elicit, handler=host.handler
        ) as client:
            for server in SERVERS:
                with pytest.raises(MCPError) as refused:
                    await client.call_tool(f"{server}__authorize", {})
                assert refused.value.code == types.URL_ELICITATION_REQUIRED
                urls = UrlElicitationRequiredError.from_error(refused.value.error).elicitations
                assert [(url.url, url.elicitation_id) for url in urls] == [
                    ("https://example.com/authorize", "auth-1")
                ]
            # The 2025 server says the page was visited, outside any call: the host hears it.
            assert text_of(await client.call_tool("old__finish", {})) == "finished"
            await host.completed.wait()
        assert host.completions == ["auth-1"]
        # A host without URL mode gets the failure as an isError result that says so.
        async with attached(config, tmp_path, "legacy") as client:
            result = await client.call_tool("old__authorize", {})
            assert result.is_error and "URL elicitation required" in text_of(result)


@pytest.mark.parametrize("mode", MODES)
async def test_a_host_that_cannot_be_asked_makes_the_server_hear_a_decline(
    mode: str, config: Path, tmp_path: Path
) -> None:
    with anyio.fail_after(60):
        async with attached(config, tmp_path, mode) as client:
            for server in SERVERS:
                declined = await client.call_tool(f"{server}__confirm", {})
                assert not declined.is_error
                assert form_answer(declined) == ("decline", None)
            assert text_of(await client.call_tool("old__visit", {})) == "decline"


async def test_a_2026_host_answers_forms_and_roots_in_input_required_rounds(
    config: Path, tmp_path: Path
) -> None:
    host = Host([HOST_ROOT])
    with anyio.fail_after(60):
        async with attached(
            config, tmp_path, "auto", elicitation=host.elicit, roots=host.list_roots
        ) as client:
            assert client.protocol_version == "2026-07-28"
            for server in SERVERS:
                answer = form_answer(await client.call_tool(f"{server}__confirm", {}))
                assert answer == ("accept", {"note": "host", "proceed": True})
                roots = await client.call_tool(f"{server}__roots", {})
                assert text_of(roots) == str(HOST_ROOT.uri)
            # A round whose token nobody waits for is refused, saying to call again.
            stale = await client.session.call_tool(
                "ask__confirm",
                {},
                input_responses={"agentty": types.ElicitResult(action="decline")},
                request_state="not-a-token",
            )
            assert isinstance(stale, types.CallToolResult) and stale.is_error
            assert "call the tool again" in text_of(stale)
    assert [form.message for form in host.forms] == ["Proceed with the thing?"] * 2
    assert host.asked_roots == 2


async def test_the_hosts_roots_answer_during_its_calls_and_else_the_project(
    config: Path, tmp_path: Path
) -> None:
    host = Host([HOST_ROOT])
    project = tmp_path.as_uri()  # ``--config``: the file's folder (tmp_path is absolute)
    with anyio.fail_after(60):
        async with attached(config, tmp_path, "legacy", roots=host.list_roots) as client:
            for server in SERVERS:
                assert text_of(await client.call_tool(f"{server}__roots", {})) == str(HOST_ROOT.uri)
        async with attached(config, tmp_path, "legacy") as client:
            for server in SERVERS:
                assert text_of(await client.call_tool(f"{server}__roots", {})) == project


async def test_the_hosts_roots_and_their_changes_reach_a_server_asking_outside_calls(
    config: Path, tmp_path: Path
) -> None:
    host = Host([HOST_ROOT])
    with anyio.fail_after(60):
        async with attached(config, tmp_path, "legacy", roots=host.list_roots) as client:
            # Once attached, the gateway asked the host's roots, offered them to the bridge and
            # told the servers, and the 2025 server asked again outside any call.
            seen = await until_seen(client, "1")
            assert seen == ["1", str(HOST_ROOT.uri)]
            host.roots = [types.Root(uri="file:///host/elsewhere")]
            await client.session.send_notification(types.RootsListChangedNotification())
            assert await until_seen(client, "2") == ["2", "file:///host/elsewhere"]


async def until_seen(client: Client, changes: str) -> list[str]:
    """``old__roots_seen`` once the server counted ``changes`` and asked after the last one."""
    while True:
        lines = text_of(await client.call_tool("old__roots_seen", {})).split("\n")
        if lines[0] == changes and len(lines) > 1:
            return lines
        await anyio.sleep(0.05)  # the server asks in a task of its own; nothing to wait on


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("server", SERVERS)
async def test_a_host_cancelling_its_call_cancels_the_servers_request(
    mode: str, server: str, config: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "cancelled.txt"
    started = anyio.Event()

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        started.set()

    with anyio.fail_after(60):
        async with attached(config, tmp_path, mode) as client:
            async with anyio.create_task_group() as group:

                async def call() -> None:
                    arguments = {"marker": str(marker)}
                    await client.call_tool(f"{server}__wait", arguments, progress_callback=progress)

                group.start_soon(call)
                await started.wait()
                group.cancel_scope.cancel()  # the SDK sends notifications/cancelled
            # The server heard the gateway's notifications/cancelled: its handler was
            # cancelled, which it says in a file (no event to wait on: polled).
            while not marker.exists():  # noqa: ASYNC110
                await anyio.sleep(0.02)
            assert marker.read_text() == "cancelled"
            # The host's connection serves on.
            assert text_of(await client.call_tool(f"{server}__count", {"steps": 1})) == "counted 1"


async def test_the_shared_daemon_relays_progress_forms_and_roots_too(
    config: Path, tmp_path: Path
) -> None:
    host = Host([HOST_ROOT])
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    with anyio.fail_after(60):
        async with attached(
            config, tmp_path, "legacy", elicitation=host.elicit, roots=host.list_roots, shared=True
        ) as client:
            for server in SERVERS:
                counted = await client.call_tool(
                    f"{server}__count", {"steps": 1}, progress_callback=progress
                )
                assert text_of(counted) == "counted 1"
                answer = form_answer(await client.call_tool(f"{server}__confirm", {}))
                assert answer == ("accept", {"note": "host", "proceed": True})
                roots = await client.call_tool(f"{server}__roots", {})
                assert text_of(roots) == str(HOST_ROOT.uri)
    assert seen == [(1, 1, "step 1")] * 2
    assert [form.message for form in host.forms] == ["Proceed with the thing?"] * 2
    # No daemon (nor server) outlives the test: it leaves once idle.
    socket = rendezvous(os.environ).socket
    with anyio.fail_after(30):
        while socket.exists():  # noqa: ASYNC110 (no event for a file another process removes)
            await anyio.sleep(0.05)
