"""An MCP test server with a configurable number of tools and start-up delay (stdio).

For benchmarks and scale tests: ``--tools N`` advertises N tools ``tool_0000`` ..
(zero-padded to at least 4 digits), each with a description and a small input schema
(one optional integer ``x``), each returning its own name. ``--delay SECONDS`` sleeps
before the server reads stdin, to simulate a slow start. Built on the mcp 2.x low-level
``Server`` with a precomputed tool list, so even thousands of tools start fast; the whole
list is served in one page.

Run: ``python tests/servers/scalable_server.py [--tools N] [--delay SECONDS] [--name NAME]``.
Only protocol is written to stdout; logs go to stderr at WARNING.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time

import anyio
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    Tool,
)

_SCHEMA = {
    "type": "object",
    "properties": {"x": {"type": "integer", "description": "An ignored example argument."}},
    "additionalProperties": False,
}


def tool_names(count: int) -> list[str]:
    """The advertised tool names, in order: ``tool_0000``, ``tool_0001``, ..."""
    width = max(4, len(str(count - 1)))
    return [f"tool_{i:0{width}d}" for i in range(count)]


def build_server(name: str = "scalable", count: int = 10) -> Server:
    """Build a low-level server advertising ``count`` tools."""
    tools = [
        Tool(
            name=tool_name,
            description=f"Scale-test tool number {i}. Returns its own name.",
            input_schema=_SCHEMA,
        )
        for i, tool_name in enumerate(tool_names(count))
    ]
    known = frozenset(tool.name for tool in tools)
    listing = ListToolsResult(tools=tools)

    async def list_tools(
        ctx: ServerRequestContext, params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        return listing

    async def call_tool(ctx: ServerRequestContext, params: CallToolRequestParams) -> CallToolResult:
        if params.name not in known:
            raise MCPError(INVALID_PARAMS, f"unknown tool {params.name!r}")
        return CallToolResult(content=[TextContent(type="text", text=params.name)])

    return Server(name, version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def serve_stdio(server: Server) -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Scalable MCP test server.")
    parser.add_argument("--name", default="scalable", help="serverInfo name")
    parser.add_argument("--tools", type=int, default=10, help="number of tools (default 10)")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds to wait before serving")
    args = parser.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(name)s: %(message)s")
    server = build_server(args.name, args.tools)
    if args.delay > 0:
        time.sleep(args.delay)
    anyio.run(serve_stdio, server)


if __name__ == "__main__":
    main()
