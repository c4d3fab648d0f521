"""An MCP test server whose ``tools/list`` is paginated (mcp 2.x low-level ``Server``, stdio).

``MCPServer`` always answers ``tools/list`` in one page, so this server uses the low-level
API with its own ``on_list_tools`` handler, which reads the request's cursor and returns
``nextCursor`` until the last page. A client that reads only the first page misses tools.

Defaults: 25 tools ``paged_00`` .. ``paged_24``, page size 10, so 3 pages (10, 10, 5).
Each tool takes no arguments and returns its own name. The cursor is opaque to clients
(``"page:<offset>"``); an unknown cursor is a JSON-RPC invalid-params error.

Run: ``python tests/servers/paged_server.py [--tools N] [--page-size K] [--name NAME]``.
Only protocol is written to stdout; logs go to stderr at WARNING.
"""

from __future__ import annotations

import argparse
import logging
import sys

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

_CURSOR_PREFIX = "page:"


def tool_names(count: int) -> list[str]:
    """The advertised tool names, in order."""
    width = max(2, len(str(count - 1)))
    return [f"paged_{i:0{width}d}" for i in range(count)]


def build_server(name: str = "paged", count: int = 25, page_size: int = 10) -> Server:
    """Build a low-level server with ``count`` tools served ``page_size`` per page."""
    if page_size < 1:
        raise ValueError("page size must be at least 1")
    tools = [
        Tool(
            name=tool_name,
            description=f"Paged test tool #{i}; returns its own name.",
            input_schema={"type": "object", "properties": {}, "additionalProperties": False},
        )
        for i, tool_name in enumerate(tool_names(count))
    ]
    known = {tool.name for tool in tools}

    async def list_tools(
        ctx: ServerRequestContext, params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        cursor = params.cursor if params is not None else None
        offset = 0
        if cursor is not None:
            digits = cursor.removeprefix(_CURSOR_PREFIX)
            if not cursor.startswith(_CURSOR_PREFIX) or not digits.isdigit():
                raise MCPError(INVALID_PARAMS, f"invalid cursor {cursor!r}")
            offset = int(digits)
        end = offset + page_size
        next_cursor = f"{_CURSOR_PREFIX}{end}" if end < len(tools) else None
        return ListToolsResult(tools=tools[offset:end], next_cursor=next_cursor)

    async def call_tool(ctx: ServerRequestContext, params: CallToolRequestParams) -> CallToolResult:
        if params.name not in known:
            raise MCPError(INVALID_PARAMS, f"unknown tool {params.name!r}")
        return CallToolResult(content=[TextContent(type="text", text=params.name)])

    return Server(name, version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def serve_stdio(server: Server) -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Paginated MCP test server.")
    parser.add_argument("--name", default="paged", help="serverInfo name")
    parser.add_argument("--tools", type=int, default=25, help="number of tools (default 25)")
    parser.add_argument("--page-size", type=int, default=10, help="tools per page (default 10)")
    args = parser.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(name)s: %(message)s")
    anyio.run(serve_stdio, build_server(args.name, args.tools, args.page_size))


if __name__ == "__main__":
    main()
