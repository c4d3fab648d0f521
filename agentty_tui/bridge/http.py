"""Transports for servers reached by URL: Streamable HTTP and the legacy SSE transport."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from agentty_tui.model import HttpSpec

__all__ = ["http_transport"]


@asynccontextmanager
async def http_transport(spec: HttpSpec, request_timeout: float) -> AsyncIterator[Any]:
    """Open the transport ``spec`` names, sending its headers with every request."""
    headers = dict(spec.headers)
    if spec.transport == "sse":
        async with sse_client(spec.url, headers=headers, timeout=request_timeout) as streams:
            yield streams
        return
    timeout = httpx2.Timeout(request_timeout, read=max(request_timeout, 300.0))
    async with (
        create_mcp_http_client(headers=headers, timeout=timeout) as http,
        streamable_http_client(spec.url, http_client=http) as streams,
    ):
        yield streams
