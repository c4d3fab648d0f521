"""A hand-written stdio MCP server that sends what the SDK would refuse to send.

The mcp SDK validates a server's results before they leave it, so a server built on it cannot
advertise a tool whose ``inputSchema`` is broken; servers built on other stacks can. This one
speaks just enough of the 2025 handshake (``initialize``, ``tools/list``, ``tools/call``,
``ping``) with plain JSON lines, and answers everything else with "method not found".

It advertises ``ok`` (valid), ``string_schema`` (root type "string"), ``no_schema`` (no
``inputSchema`` at all) and ``also_ok`` (valid).
Run: ``python tests/servers/raw_server.py``.
"""

from __future__ import annotations

import json
import sys
from typing import Any

OBJECT: dict[str, Any] = {"type": "object", "properties": {}}
TOOLS: list[dict[str, Any]] = [
    {"name": "ok", "inputSchema": OBJECT},
    {"name": "string_schema", "inputSchema": {"type": "string"}},
    {"name": "no_schema", "description": "has no inputSchema"},
    {"name": "also_ok", "inputSchema": OBJECT},
]


def answer(request: dict[str, Any]) -> dict[str, Any] | None:
    """The response to one request (``None`` for a notification)."""
    if "id" not in request:
        return None
    method = request.get("method")
    result: dict[str, Any]
    if method == "initialize":
        result = {
            "protocolVersion": request.get("params", {}).get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": "raw", "version": "0.0.1"},
        }
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "tools/call":
        name = request.get("params", {}).get("name")
        result = {"content": [{"type": "text", "text": f"called {name}"}]}
    elif method == "ping":
        result = {}
    else:
        error = {"code": -32601, "message": "Method not found"}
        return {"jsonrpc": "2.0", "id": request["id"], "error": error}
    return {"jsonrpc": "2.0", "id": request["id"], "result": result}


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        response = answer(json.loads(line))
        if response is not None:
            sys.stdout.write(json.dumps(response) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
