"""Transports for servers reached by URL: Streamable HTTP and the legacy SSE transport.

The SDK turns an HTTP error status into a generic protocol error; the transport keeps the last
error status it saw, so that a failed server can say "answered HTTP 401" instead.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from agentty_tui.bridge.transport import ManagedTransport
from agentty_tui.model import HttpSpec

__all__ = ["HttpTransport"]


class HttpTransport(ManagedTransport):
    """An mcp ``Transport`` for ``spec``, sending its headers with every request."""

    def __init__(self, spec: HttpSpec, request_timeout: float) -> None:
        self.spec = spec
        self.request_timeout = request_timeout
        self.error_status: int | None = None
        """The last HTTP status of 400 or more the server answered with, if any."""

    async def _record(self, response: httpx2.Response) -> None:
        if response.status_code >= 400:
            self.error_status = response.status_code

    def _client_factory(
        self,
        headers: dict[str, str] | None = None,
        timeout: httpx2.Timeout | None = None,
        auth: httpx2.Auth | None = None,
    ) -> httpx2.AsyncClient:
        client = create_mcp_http_client(headers=headers, timeout=timeout, auth=auth)
        client.event_hooks["response"].append(self._record)
        return client

    @asynccontextmanager
    async def _connect(self) -> AsyncIterator[Any]:
        headers = dict(self.spec.headers)
        if self.spec.transport == "sse":
            async with sse_client(
                self.spec.url,
                headers=headers,
                timeout=self.request_timeout,
                httpx_client_factory=self._client_factory,
            ) as streams:
                yield streams
            return
        timeout = httpx2.Timeout(self.request_timeout, read=max(self.request_timeout, 300.0))
        async with (
            self._client_factory(headers=headers, timeout=timeout) as http,
            streamable_http_client(self.spec.url, http_client=http) as streams,
        ):
            yield streams
