"""Every use of a private part of the mcp SDK, in this one module.

The SDK offers no public way to do these few things, and a minor release may rename or rework
anything private. Keeping each use here, as one small function with a test of its own
(``tests/bridge/test_sdk_seam.py``, which names the installed SDK version when it fails), means
an upgrade breaks one file in a known way instead of a listing in the middle of a session. No
other module may touch a private name of mcp (``tests/test_private_names.py`` checks).

- ``absorb_tool_listing``: the client checks a called tool's result against the output schema
  of its own cached listing; a listing we screened ourselves has to be handed to that cache.
- ``send_raw_request``: the typed requests validate a whole result, so one malformed tool would
  fail a whole ``tools/list`` page; the raw request returns the page unvalidated (stamped with
  the session's protocol envelope, which only the session's private stamp knows how to make).
- ``create_http_client``: the HTTP client with the MCP transports' own default timeouts (also
  when it sends through a transport of ours, which the SDK's factory cannot take).
- ``OAuthProviderBase``: the SDK's OAuth provider is extended (``bridge/auth/provider.py``) at
  three private hooks (after stored tokens load, around the auth flow, before and around the
  authorization code grant); the base class gives each a public name of ours.
- ``keep_mismatched_results``: the client raises on a result whose structured content does not
  match the tool's output schema, and the result is lost; we check it ourselves
  (``call_result.output_mismatch``) and show the result with the mismatch stated.
- ``refuse_sampling``: sampling is not offered (no capability declared, which only the SDK's
  own default callback achieves); a server that asks anyway gets our refusal and we note it.
- ``lowlevel_server``: the demo servers advertise ``tools.listChanged`` on 2025 connections,
  which only the low-level server's initialization options can say.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable
from importlib.metadata import version
from typing import TYPE_CHECKING, Any

import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.session import ClientRequestContext
from mcp.shared._httpx_utils import (
    MCP_DEFAULT_SSE_READ_TIMEOUT,
    MCP_DEFAULT_TIMEOUT,
    create_mcp_http_client,
)

if TYPE_CHECKING:  # the client side must not pay for the server's import
    from mcp.server.lowlevel.server import Server
    from mcp.server.mcpserver import MCPServer

__all__ = [
    "SDK_VERSION",
    "OAuthProviderBase",
    "absorb_tool_listing",
    "create_http_client",
    "keep_mismatched_results",
    "lowlevel_server",
    "refuse_sampling",
    "send_raw_request",
]

SDK_VERSION = version("mcp")
"""The installed mcp SDK's version, named by the seam's tests when a private part moved."""


def absorb_tool_listing(client: Client, tools: list[types.Tool]) -> None:
    """Add ``tools`` (one partial page) to the connected ``client``'s own listing cache."""
    client.session._absorb_tool_listing(types.ListToolsResult(tools=tools), complete=False)


def keep_mismatched_results(client: Client) -> None:
    """Stop the entered ``client`` from checking call results against output schemas (it
    raises, and loses the result): the caller checks them instead, and shows what came back."""

    async def keep(name: str, result: types.CallToolResult) -> None:
        return None

    # The check is the session's public method, called through the instance: one of our own
    # in its place is seen by every call (and skips the re-list it does for unknown tools).
    setattr(client.session, "validate_tool_result", keep)  # noqa: B010


def refuse_sampling(client: Client, refusal: Callable[[], types.ErrorData]) -> None:
    """Answer every ``sampling/createMessage`` the entered ``client`` gets with ``refusal()``.

    The SDK declares the sampling capability whenever a sampling callback of ours is given, so
    none is: its own default refuses, and this wraps the one dispatch every input request
    passes (a request of its own up to 2025-11-25, an ``input_required`` round after), to
    answer with our words and let the caller note that the server asked.
    """
    session = client.session
    dispatch = session.dispatch_input_request

    async def screened(
        context: ClientRequestContext, request: types.InputRequest
    ) -> types.InputResponse | types.ErrorData:
        if isinstance(request, types.CreateMessageRequest):
            return refusal()
        return await dispatch(context, request)

    setattr(session, "dispatch_input_request", screened)  # noqa: B010


async def send_raw_request(
    client: Client, method: str, params: dict[str, Any] | None, timeout: float
) -> dict[str, Any]:
    """Send one request on ``client``'s connection and return the result as sent, unvalidated.

    The session's own stamp goes on first, as on its typed requests: a 2026-07-28 server
    refuses a request without the protocol envelope in ``_meta`` (and its HTTP headers).
    """
    session = client.session
    data: dict[str, Any] = {"method": method}
    if params is not None:
        data["params"] = dict(params)
    options: Any = {"timeout": timeout}
    session._stamp(data, options)
    return await session._dispatcher.send_raw_request(method, data.get("params"), options)


def create_http_client(
    headers: dict[str, str] | None,
    timeout: httpx2.Timeout | None,
    auth: httpx2.Auth | None,
    transport: httpx2.AsyncBaseTransport | None = None,
) -> httpx2.AsyncClient:
    """An HTTP client as the SDK's own transports make it (their timeouts, no redirects),
    sending through ``transport`` when one is given."""
    if transport is None:
        return create_mcp_http_client(headers=headers, timeout=timeout, auth=auth)
    # The SDK's factory takes no transport: the same client, with the SDK's default timeouts.
    return httpx2.AsyncClient(
        headers=headers,
        timeout=timeout or httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT),
        auth=auth,
        transport=transport,
    )


class OAuthProviderBase(OAuthClientProvider):
    """The SDK's ``OAuthClientProvider`` with its private hooks under public names of ours.

    Override ``after_initialize``, ``before_code_grant``, ``run_code_grant`` and
    ``wrap_auth_flow``; never the SDK's private methods themselves.
    """

    @property
    def initialized(self) -> bool:
        """Whether the provider has loaded its stored tokens and client registration."""
        return self._initialized

    async def _initialize(self) -> None:
        await super()._initialize()
        await self.after_initialize()

    async def after_initialize(self) -> None:
        """Runs once the SDK has loaded the stored tokens (before the first request)."""

    async def _perform_authorization_code_grant(self) -> tuple[str, str]:
        await self.before_code_grant()
        return await self.run_code_grant(super()._perform_authorization_code_grant)

    async def before_code_grant(self) -> None:
        """Runs before a login's authorization code grant; raise to refuse the login."""

    async def run_code_grant(
        self, grant: Callable[[], Awaitable[tuple[str, str]]]
    ) -> tuple[str, str]:
        """Run ``grant``, the SDK's authorization code grant (it returns the code and the PKCE
        verifier); a subclass may run it elsewhere (through a browser of its own)."""
        return await grant()

    def _auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        return self.wrap_auth_flow(request)

    def sdk_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        """The SDK's own auth flow for ``request`` (what ``wrap_auth_flow`` wraps)."""
        return super()._auth_flow(request)

    def wrap_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        """The auth flow of ``request``: the SDK's, unless a subclass wraps it."""
        return self.sdk_auth_flow(request)


def lowlevel_server(server: MCPServer) -> Server[Any]:
    """The low-level ``Server`` an ``MCPServer`` runs on (for its initialization options)."""
    return server._lowlevel_server
