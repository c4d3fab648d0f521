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
- ``hang-call``   has a tool ``hang`` that never returns;
- ``setsid-grandchild`` forks a grandchild that calls ``setsid()`` (leaving the server's
                  process group and session) and ignores SIGTERM; ``grandchild_pid`` returns its
                  PID and ``hang`` never returns;
- ``daemon``      double-forks: a child starts such a grandchild and exits at once, so the
                  grandchild is re-parented away from the server before it ever stops;
                  ``grandchild_pid`` returns its PID.

The grandchild modes serve only once their grandchild has left the session, and write
``grandchild pid N`` to stderr (the server's log). ``--stubborn`` makes any mode ignore SIGTERM
and keep running after its stdin ends (only SIGKILL stops it); ``--linger`` only the latter
(SIGTERM still ends it).
Every mode also has ``ok`` (returns "ok") and ``pid`` (the server's own PID).
Run: ``python tests/servers/faulty_server.py --fault MODE [--delay S] [--stubborn | --linger]``.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import subprocess
import sys
import time
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

FAULTS = (
    "garbage",
    "bad-tools",
    "grandchild",
    "slow-list",
    "hang-call",
    "setsid-grandchild",
    "daemon",
)
ESCAPED = (
    "import os, signal, sys, time\n"
    "os.setsid()\n"
    "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "print('escaped', flush=True)\n"
    "time.sleep(600)\n"
)
"""A grandchild that leaves the server's session and ignores SIGTERM; says so on stdout."""
DOUBLE_FORK = (
    "import subprocess, sys\n"
    "child = subprocess.Popen([sys.executable, '-c', sys.argv[1]], stdin=subprocess.DEVNULL,\n"
    "    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)\n"
    "child.stdout.readline()\n"
    "print(child.pid, flush=True)\n"
)
"""The middle process of ``daemon``: starts ``ESCAPED`` (argv[1]), prints its PID, exits."""
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
    elif fault in ("grandchild", "daemon"):
        tools.append(Tool(name="grandchild_pid", input_schema=EMPTY))
    elif fault == "setsid-grandchild":
        tools.append(Tool(name="grandchild_pid", input_schema=EMPTY))
        tools.append(Tool(name="hang", input_schema=EMPTY))
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
        elif name == "hang" and fault in ("hang-call", "setsid-grandchild"):
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
    parser.add_argument("--stubborn", action="store_true", help="ignore SIGTERM and stdin's end")
    parser.add_argument("--linger", action="store_true", help="ignore stdin's end only")
    args = parser.parse_args(argv)
    if args.stubborn:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
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
    elif args.fault in ("setsid-grandchild", "daemon"):
        grandchild = _escaped_grandchild(double_fork=args.fault == "daemon")
        print(f"grandchild pid {grandchild}", file=sys.stderr, flush=True)
    if args.fault == "garbage":
        global WIRE_FD
        WIRE_FD = os.dup(1)
        os.write(1, b"starting up... (not JSON-RPC)\n\n")
    try:
        anyio.run(serve, build_server(args.fault, args.delay, grandchild))
    except BaseException:
        # Its client gone (its pipes broken), a server that lingers does not care: it stays.
        if not args.linger:
            raise
    if args.fault == "garbage":
        os.write(1, b"goodbye (not JSON-RPC)\n")
    if args.stubborn or args.linger:
        time.sleep(600)


def _escaped_grandchild(*, double_fork: bool) -> int:
    """Start ``ESCAPED`` (through a middle process that exits, for a daemon); its PID.

    Returns once it has left the session, so a test never races its ``setsid()``.
    """
    argv = (
        [sys.executable, "-c", DOUBLE_FORK, ESCAPED]
        if double_fork
        else [
            sys.executable,
            "-c",
            ESCAPED,
        ]
    )
    child = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert child.stdout is not None
    line = child.stdout.readline().decode()
    if double_fork:
        child.wait()  # the middle process is gone: the grandchild is an orphan now
        return int(line)
    child.stdout.close()
    return child.pid


if __name__ == "__main__":
    main()
