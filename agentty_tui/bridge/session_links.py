"""What a server session connects through, made and read outside its state machine.

A URL server's transport and OAuth provider (and what they say about a login), and a stdio
transport that reports the moment its process runs. ``ServerSession`` holds the objects; the
helpers here only build them or read them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from agentty_tui.bridge.auth import AgenttyOAuthProvider, LoginUI, auth_state, connect_provider
from agentty_tui.bridge.http import HttpTransport
from agentty_tui.bridge.stdio import StdioTransport
from agentty_tui.model import AuthState, HttpSpec, ServerConfig

__all__ = ["http_connection", "login_needed", "oauth_state", "spawned"]


def http_connection(
    spec: HttpSpec, config: ServerConfig, login_ui: LoginUI | None
) -> tuple[HttpTransport, AgenttyOAuthProvider | None]:
    """The transport to URL server ``spec`` (expanded) and the OAuth provider it signs with
    (``None`` when it uses none); ``login_ui`` is where a step-up shows its browser login."""
    auth = connect_provider(spec, ui=login_ui)
    http = HttpTransport(spec, config.request_timeout, config.max_response_bytes, auth=auth)
    return http, auth


@asynccontextmanager
async def spawned(transport: StdioTransport, on_start: Callable[[], None]) -> AsyncIterator[Any]:
    """``transport``, calling ``on_start`` as soon as the process runs (to publish its pid)."""
    async with transport as streams:
        on_start()
        yield streams


def oauth_state(spec: HttpSpec | None, auth: AgenttyOAuthProvider | None) -> AuthState | None:
    """The OAuth login state as it is now (URL servers that use OAuth)."""
    if spec is not None and auth is not None:
        return auth_state(spec)
    return None


def login_needed(http: HttpTransport | None, auth: AgenttyOAuthProvider | None) -> bool:
    """Whether the server turned us away for want of an OAuth login."""
    if http is None or auth is None:
        return False
    return auth.login_required or (http.error_status == 401 and http.bearer_challenge)
