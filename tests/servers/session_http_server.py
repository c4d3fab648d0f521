"""A Streamable HTTP server of the 2025 era, with sessions, that records how they end.

The mcp SDK's server speaks both protocol eras; this one answers ``server/discover`` with
"method not found", so a client falls back to the ``initialize`` handshake and gets an
``Mcp-Session-Id``, as from the many hosted servers of that era. Every ``DELETE`` (a client
ending its session) and every ``initialize`` is appended to ``--events`` as ``delete ID`` /
``initialize``, so a test can tell whether a session was closed, and whether a client
re-established one after the server restarted (a restart forgets every session: the old ID
answers 404). With ``--headers FILE`` each request's headers are appended to it as one JSON
object a line (names lowercased), so a test can see what a client sent.

Tools: ``add(a, b)``, ``pid()``. Run: ``python tests/servers/session_http_server.py --port N
--events FILE``. Only protocol goes to stdout; logs go to stderr at WARNING.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

import uvicorn
from mcp.server.mcpserver import MCPServer


def build_server() -> MCPServer:
    """The MCP server with its two tools."""
    server: MCPServer = MCPServer("sessions", version="1.0.0", log_level="WARNING")

    @server.tool(description="Add two integers.")
    def add(a: int, b: int) -> int:
        return a + b

    @server.tool(description="The PID of this server process.")
    def pid() -> int:
        return os.getpid()

    return server


class Recorder:
    """ASGI middleware: the 2025 era only, and a line per session begun or ended."""

    def __init__(self, app: Any, events: Path, headers: Path | None = None) -> None:
        self.app = app
        self.events = events
        self.headers = headers

    def _note(self, line: str) -> None:
        with self.events.open("a") as handle:
            handle.write(line + "\n")

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        if self.headers is not None:
            seen = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in headers.items()}
            with self.headers.open("a") as handle:
                handle.write(json.dumps(seen) + "\n")
        if scope["method"] == "DELETE":
            self._note("delete " + headers.get(b"mcp-session-id", b"-").decode())
            await self.app(scope, receive, send)
            return
        if scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        more = True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(chunks)
        try:
            request = json.loads(body)
        except ValueError:
            request = None
        method = request.get("method") if isinstance(request, dict) else None
        if method == "server/discover":
            answer = {
                "jsonrpc": "2.0",
                "id": request.get("id") if isinstance(request, dict) else None,
                "error": {"code": -32601, "message": "Method not found"},
            }
            data = json.dumps(answer).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [(b"content-type", b"application/json")],
                }
            )
            await send({"type": "http.response.body", "body": data})
            return
        if method == "initialize":
            self._note("initialize")
        replayed = False

        async def replay() -> dict[str, Any]:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return dict(await receive())

        await self.app(scope, replay, send)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--events", type=Path, required=True)
    parser.add_argument("--headers", type=Path, default=None)
    args = parser.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(name)s: %(message)s")
    app = build_server().streamable_http_app(host="127.0.0.1")
    recorder = Recorder(app, args.events, args.headers)
    uvicorn.run(recorder, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
