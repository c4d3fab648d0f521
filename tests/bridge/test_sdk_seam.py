"""Each private part of the mcp SDK that ``agentty_tui/bridge/_sdk.py`` uses still does its job.

An SDK upgrade that renames or reworks one of them fails here, naming the installed version
and the seam function to adapt, instead of failing a listing or a call somewhere in a session.
Each test checks the effect we rely on, through the SDK's public API where one shows it.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientMetadata
from pydantic import AnyUrl

from agentty_tui.bridge import _sdk
from agentty_tui.bridge.auth.storage import FileVault, ServerTokenStorage
from agentty_tui.bridge.logs import ServerLog
from agentty_tui.bridge.stdio import StdioTransport
from agentty_tui.model import StdioSpec
from tests.servers import asking_argv, plain_sdk_argv, python_server_argv

pytestmark = pytest.mark.anyio


@contextmanager
def seam(name: str) -> Iterator[None]:
    """Turn any failure of the seam function ``name`` into one loud, named message."""
    try:
        yield
    except Exception as exc:
        pytest.fail(
            f"mcp {_sdk.SDK_VERSION} changed the private part behind _sdk.{name} "
            f"({type(exc).__name__}: {exc}); adapt agentty_tui/bridge/_sdk.py",
            pytrace=False,
        )


@asynccontextmanager
async def plain_client(log_dir: Path, argv: list[str] | None = None) -> AsyncIterator[Client]:
    """A client connected to a real ``plain_server.py`` (or ``argv``'s server) over our own
    stdio transport."""
    argv = argv or plain_sdk_argv()
    spec = StdioSpec(command=argv[0], args=tuple(argv[1:]))
    transport = StdioTransport(spec, ServerLog(log_dir, "plain", None))
    async with Client(transport, mode="auto", read_timeout_seconds=30) as client:
        yield client


async def test_send_raw_request_returns_the_result_unvalidated(log_dir: Path) -> None:
    async with plain_client(log_dir) as client:
        with seam("send_raw_request"):
            raw = await _sdk.send_raw_request(client, "tools/list", None, 30)
            assert isinstance(raw, dict), raw
            names = {tool["name"] for tool in raw["tools"]}
            assert names == {"echo", "add", "pid", "sleep"}, raw


async def test_absorbed_tools_are_what_a_call_is_checked_against(log_dir: Path) -> None:
    # ``add`` returns ``{"result": 5}``; once a stricter schema is absorbed for it, the SDK
    # must check the call's result against that schema (and refuse it), not list afresh.
    stricter = types.Tool(
        name="add",
        input_schema={"type": "object"},
        output_schema={
            "type": "object",
            "properties": {"never": {"type": "string"}},
            "required": ["never"],
        },
    )
    async with plain_client(log_dir) as client:
        assert (await client.call_tool("add", {"a": 2, "b": 3})).structured_content == {"result": 5}
        with seam("absorb_tool_listing"):
            _sdk.absorb_tool_listing(client, [stricter])
        with seam("absorb_tool_listing"), pytest.raises(Exception, match="never"):
            await client.call_tool("add", {"a": 2, "b": 3})


def test_create_http_client_sends_our_headers_and_auth() -> None:
    timeout = httpx2.Timeout(7.0)
    auth = httpx2.BasicAuth("user", "secret")
    with seam("create_http_client"):
        client = _sdk.create_http_client({"X-Probe": "1"}, timeout, auth)
        assert isinstance(client, httpx2.AsyncClient)
        assert client.headers["X-Probe"] == "1"
        assert client.timeout == timeout
        assert client.auth is auth
        assert not client.follow_redirects


async def test_create_http_client_sends_through_a_given_transport() -> None:
    seen: list[str] = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        seen.append(request.headers["X-Probe"])
        return httpx2.Response(204)

    with seam("create_http_client"):
        default = _sdk.create_http_client(None, None, None).timeout
        client = _sdk.create_http_client({"X-Probe": "2"}, None, None, httpx2.MockTransport(answer))
        async with client:
            response = await client.get("http://127.0.0.1/mcp")
        assert response.status_code == 204
        assert seen == ["2"]
        assert client.timeout == default  # the SDK's own defaults, as without a transport
        assert not client.follow_redirects


def test_lowlevel_server_takes_the_initialization_options() -> None:
    server = MCPServer("seam")
    with seam("lowlevel_server"):
        options = _sdk.lowlevel_server(server).create_initialization_options(
            NotificationOptions(tools_changed=True)
        )
        assert options.capabilities.tools is not None
        assert options.capabilities.tools.list_changed is True


async def test_the_code_grant_runs_through_our_hooks(tmp_path: Path) -> None:
    # The SDK calls its private grant hook when a login needs a code; the base must route that
    # through ``before_code_grant`` and then ``run_code_grant``, handing it the SDK's own grant.
    seen: list[object] = []

    class Probe(_sdk.OAuthProviderBase):
        async def before_code_grant(self) -> None:
            seen.append("before")

        async def run_code_grant(
            self, grant: Callable[[], Awaitable[tuple[str, str]]]
        ) -> tuple[str, str]:
            seen.append(grant)
            return "code", "verifier"

    metadata = OAuthClientMetadata(redirect_uris=[AnyUrl("http://127.0.0.1/callback")])
    provider = Probe(
        "http://127.0.0.1/mcp",
        metadata,
        ServerTokenStorage("http://127.0.0.1/mcp", FileVault(tmp_path)),
    )
    with seam("OAuthProviderBase.run_code_grant"):
        hook = OAuthClientProvider._perform_authorization_code_grant  # what the SDK calls
        assert inspect.iscoroutinefunction(hook)
        assert await provider._perform_authorization_code_grant() == ("code", "verifier")
        assert seen[0] == "before", seen
        grant = seen[1]
        assert inspect.ismethod(grant) and grant.__func__ is hook, grant


async def test_a_result_that_breaks_its_output_schema_is_kept(log_dir: Path) -> None:
    # ``measure`` answers ``{"size": "big"}`` where its output schema wants an integer: the SDK
    # raises (and the result is lost) until its check is turned off for the client.
    argv = python_server_argv("light_server.py", "--tools", "1", "--hinted")
    async with plain_client(log_dir, argv) as client:
        await client.list_tools()
        with pytest.raises(RuntimeError, match="Invalid structured content"):
            await client.call_tool("measure", {})
        with seam("keep_mismatched_results"):
            _sdk.keep_mismatched_results(client)
            result = await client.call_tool("measure", {})
            assert result.structured_content == {"size": "big"}, result


async def test_sampling_is_refused_with_our_words_and_not_declared(log_dir: Path) -> None:
    asked: list[str] = []

    def refusal() -> types.ErrorData:
        asked.append("sampling")
        return types.ErrorData(code=types.METHOD_NOT_FOUND, message="not offered here")

    async with plain_client(log_dir, asking_argv("--legacy")) as client:
        with seam("refuse_sampling"):
            _sdk.refuse_sampling(client, refusal)
            result = await client.call_tool("sample", {})
            first = result.content[0]
            assert isinstance(first, types.TextContent)
            assert first.text == "refused -32601: not offered here", first.text
            assert asked == ["sampling"]
