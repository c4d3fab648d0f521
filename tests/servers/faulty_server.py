"""An MCP test server that misbehaves in one chosen way (mcp 2.x low-level ``Server``, stdio).

Each ``--fault`` is one bad habit a real server may have; the tests check that the bridge
says what happened and that everything else keeps working:

- ``garbage``     writes lines that are not JSON-RPC to stdout before serving, from inside a
                  tool call (``noise``), and after its last answer; the mid-session lines go to
                  a duplicate of the protocol descriptor, because the SDK's ``stdio_server``
                  diverts fd 1 to stderr while it serves (a plain ``os.write(1, ...)`` there
                  would never reach the client);
- ``bad-tools``   advertises tools that break the MCP rules next to valid ones: a name with a
                  space, a 200-character name, a name advertised twice;
- ``grandchild``  forks a grandchild (``sleep 600``) that keeps running on its own;
                  ``grandchild_pid`` returns its PID;
- ``slow-list``   answers ``tools/list`` only after ``--delay`` seconds;
- ``hang-call``   has a tool ``hang`` that never returns.

Every mode also has ``ok`` (returns "ok") and ``pid`` (the server's own PID).
Run: ``python tests/servers/faulty_server.py --fault MODE [--delay S]``.
"""

from __future__ import annotations

import argparse
import logging
import os
import subprocess
import sys
from typing import Any

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

FAULTS = ("garbage", "bad-tools", "grandchild", "slow-list", "hang-call")
EMPTY: dict[str, Any] = {"type": "object", "properties": {}}
WIRE_FD: int | None = None
"""A duplicate of the real stdout, taken before the SDK diverts fd 1 (``garbage`` only)."""
BAD_TOOL_NAMES = ("bad name!", "x" * 200, "dup")
"""Tools of ``bad-tools`` that a client must drop (``dup`` only its second advertisement)."""


def _tools(fault: str) -> list[Tool]:
    tools = [Tool(name="ok", input_schema=EMPTY), Tool(name="pid", input_schema=EMPTY)]
    if fault == "garbage":
        tools.append(Tool(name="noise", input_schema=EMPTY))
    elif fault == "bad-tools":
        tools += [
            Tool(name="bad name!", input_schema=EMPTY),
            Tool(name="x" * 200, input_schema=EMPTY),
            Tool(name="dup", description="first", input_schema=EMPTY),
            Tool(name="dup", description="second", input_schema=EMPTY),
            Tool(name="fine.dotted-name_2", input_schema=EMPTY),
        ]
    elif fault == "grandchild":
        tools.append(Tool(name="grandchild_pid", input_schema=EMPTY))
    elif fault == "hang-call":
        tools.append(Tool(name="hang", input_schema=EMPTY))
    return tools


def build_server(fault: str, delay: float, grandchild: int | None) -> Server:
    """A low-level server with the tools and the bad habit of ``fault``."""
    tools = _tools(fault)

    async def list_tools(
        ctx: ServerRequestContext, params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        if fault == "slow-list":
            await anyio.sleep(delay)
        return ListToolsResult(tools=tools)

    async def call_tool(ctx: ServerRequestContext, params: CallToolRequestParams) -> CallToolResult:
        name = params.name
        if name == "ok":
            text = "ok"
        elif name == "pid":
            text = str(os.getpid())
        elif name == "noise" and fault == "garbage":
            assert WIRE_FD is not None
            os.write(WIRE_FD, b'this line is not JSON-RPC\n{"jsonrpc": broken\n')
            text = "noisy"
        elif name == "grandchild_pid" and grandchild is not None:
            text = str(grandchild)
        elif name == "hang" and fault == "hang-call":
            # Said on stderr (the server's log) so a test can wait for the call to be in flight.
            print("hang: call received", file=sys.stderr, flush=True)
            await anyio.sleep_forever()
            text = "never"
        else:
            raise MCPError(INVALID_PARAMS, f"unknown tool {name!r}")
        return CallToolResult(content=[TextContent(type="text", text=text)])

    return Server("faulty", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def serve(server: Server) -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="An MCP test server that misbehaves.")
    parser.add_argument("--fault", choices=FAULTS, required=True)
    parser.add_argument("--delay", type=float, default=20.0, help="seconds, for slow-list")
    args = parser.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(name)s: %(message)s")
    grandchild: int | None = None
    if args.fault == "grandchild":
        # Not waited for, and its stdio detached: it outlives this process unless killed.
        child = subprocess.Popen(
            ["sleep", "600"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        grandchild = child.pid
    if args.fault == "garbage":
        global WIRE_FD
        WIRE_FD = os.dup(1)
        os.write(1, b"starting up... (not JSON-RPC)\n\n")
    anyio.run(serve, build_server(args.fault, args.delay, grandchild))
    if args.fault == "garbage":
        os.write(1, b"goodbye (not JSON-RPC)\n")


if __name__ == "__main__":
    main()
