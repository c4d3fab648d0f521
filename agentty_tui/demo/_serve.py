"""Shared start-up for the demo servers: stderr-only logging and the stdio loop."""

from __future__ import annotations

import contextlib
import logging
import sys

import anyio
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.stdio import stdio_server
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from agentty_tui.bridge._sdk import lowlevel_server


def configure_logging(level: int = logging.WARNING) -> None:
    """Send logs to stderr only. Call before building an ``MCPServer``.

    ``MCPServer`` installs its own root handler only when the root logger has none, so
    configuring first keeps stdout for protocol alone.
    """
    logging.basicConfig(stream=sys.stderr, level=level, format="%(name)s: %(message)s")


async def _serve(server: MCPServer, tools_changed: bool) -> None:
    lowlevel = lowlevel_server(server)
    options = lowlevel.create_initialization_options(
        NotificationOptions(tools_changed=tools_changed)
    )
    async with stdio_server() as (read_stream, write_stream):
        await lowlevel.run(read_stream, write_stream, options)


def run_stdio(server: MCPServer, *, tools_changed: bool = False) -> None:
    """Serve ``server`` over stdio until stdin closes.

    ``tools_changed=True`` advertises ``tools.listChanged`` on 2025-handshake connections
    (on 2026-07-28 the SDK derives it from ``subscriptions/listen`` itself).
    """
    with contextlib.suppress(KeyboardInterrupt):
        anyio.run(_serve, server, tools_changed)


async def notify_tools_changed(ctx: Context) -> None:
    """Send ``notifications/tools/list_changed`` in the era this connection speaks.

    2026-07-28: published to ``subscriptions/listen`` streams. 2025 handshake: sent on the
    session, where the client's ``message_handler`` receives it.
    """
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        await ctx.notify_tools_changed()
    else:
        await ctx.request_context.session.send_tool_list_changed()
