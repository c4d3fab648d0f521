"""A plain, static MCP test server (mcp 2.x ``MCPServer``, stdio).

The baseline for integration tests: a fixed tool set that never changes.

Tools:
    echo(text) -> text
    add(a, b) -> a + b
    pid() -> the server's PID, so a test can prove which process answered
             (e.g. that a reload kept the same process)
    sleep(seconds) -> sleeps, then returns ``"slept <seconds>"`` (slow or hung calls)

Run: ``python tests/servers/plain_server.py [--name NAME] [--transport T --port N]``;
``--transport streamable-http`` or ``sse`` serves on 127.0.0.1:N instead of stdio.
``--name`` sets the serverInfo name (default ``plain``). Only protocol is written to
stdout; logs go to stderr at WARNING. ``--echo-env VAR`` first writes ``VAR=<value> name=<name>``
to stderr, in two writes split inside the value (a server that echoes what it was given).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time

import anyio
from mcp.server.mcpserver import MCPServer


def build_server(name: str = "plain") -> MCPServer:
    """Build the server with its four static tools."""
    server: MCPServer = MCPServer(name, version="1.0.0", log_level="WARNING")

    @server.tool(description="Return the given text unchanged.")
    def echo(text: str) -> str:
        return text

    @server.tool(description="Add two integers.")
    def add(a: int, b: int) -> int:
        return a + b

    @server.tool(description="Return the PID of this server process.")
    def pid() -> int:
        return os.getpid()

    @server.tool(description="Sleep for the given number of seconds, then return.")
    async def sleep(seconds: float) -> str:
        await anyio.sleep(seconds)
        return f"slept {seconds}"

    return server


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--name", default="plain", help="serverInfo name")
    parser.add_argument("--transport", choices=("stdio", "streamable-http", "sse"), default="stdio")
    parser.add_argument("--port", type=int, default=0, help="loopback port for HTTP transports")
    parser.add_argument("--echo-env", metavar="VAR", help="write VAR's value to stderr first")
    args = parser.parse_args(argv)
    if args.echo_env:
        line = f"{args.echo_env}={os.environ.get(args.echo_env, '')} name={args.name}\n"
        half = len(args.echo_env) + 4
        sys.stderr.write(line[:half])
        sys.stderr.flush()
        time.sleep(0.05)  # so the reader likely gets the value in two pieces
        sys.stderr.write(line[half:])
        sys.stderr.flush()
    # Before MCPServer: its own logging setup is a no-op once the root logger has a handler.
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(name)s: %(message)s")
    server = build_server(args.name)
    if args.transport == "stdio":
        server.run("stdio")
    else:
        server.run(args.transport, host="127.0.0.1", port=args.port)


if __name__ == "__main__":
    main()
