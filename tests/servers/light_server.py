"""A stdio MCP server that starts in tens of milliseconds: N tools, no SDK imported.

The SDK servers here cost about a second of CPU each to start (importing mcp), so tens of them
started at once on a small machine take longer than the connect timeout, and a benchmark of
starting them measures the interpreter's imports. This one speaks plain JSON lines, enough of
the 2025 handshake (``initialize``, ``tools/list``, ``tools/call``, ``ping``), and answers any
other request with "method not found" (which the client takes as a server of that era).

``--modern`` also answers ``server/discover``: a 2026-07-28 server that does not offer
``subscriptions/listen`` ("method not found"), or answers it with the error ``--listen-error
CODE``.

``--tools N`` advertises the same tools as ``scalable_server.py`` (``tool_0000`` ..., each with
a description and one optional integer ``x``, each returning its own name), in one page.
``--task-tool`` adds a tool ``research`` that runs only as a task.
``--hinted`` adds tools with annotations (``lookup``: read-only, idempotent, closed world, with
a title; ``wipe``: destructive, open world) and ``measure``, whose output schema wants an integer
``size`` and whose result's structured content holds ``"big"`` (a mismatch), and ``ponder``, which
with ``--modern`` answers an ``input_required`` round asking for sampling (``"answered"`` once
called again with the round's responses).
``--exit-delay S`` makes it take S seconds to exit once its stdin ends (a server that saves
its state on the way out); ``--linger`` makes it ignore its stdin's end (it stays until
SIGTERM), so a client's shutdown has to escalate.

Run: ``python tests/servers/light_server.py [--tools N] [--name NAME] [--modern
[--listen-error CODE]] [--exit-delay S | --linger]``. Only protocol is written to stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"x": {"type": "integer", "description": "An ignored example argument."}},
    "additionalProperties": False,
}


def tools(count: int) -> list[dict[str, Any]]:
    """The advertised tools, in order (named as ``scalable_server.tool_names``)."""
    width = max(4, len(str(count - 1)))
    return [
        {
            "name": f"tool_{i:0{width}d}",
            "description": f"Scale-test tool number {i}. Returns its own name.",
            "inputSchema": _SCHEMA,
        }
        for i in range(count)
    ]


HINTED: list[dict[str, Any]] = [
    {
        "name": "lookup",
        "description": "Look a word up.",
        "inputSchema": _SCHEMA,
        "annotations": {
            "title": "Look it up",
            "readOnlyHint": True,
            "idempotentHint": True,
            "openWorldHint": False,
        },
    },
    {
        "name": "wipe",
        "description": "Wipe the disk.",
        "inputSchema": _SCHEMA,
        "annotations": {"readOnlyHint": False, "destructiveHint": True, "openWorldHint": True},
    },
    {
        "name": "ponder",
        "description": "Think it over (asks the client to sample).",
        "inputSchema": _SCHEMA,
    },
    {
        "name": "measure",
        "description": "Measure the thing.",
        "inputSchema": _SCHEMA,
        "outputSchema": {
            "type": "object",
            "properties": {"size": {"type": "integer"}},
            "required": ["size"],
        },
    },
]
"""The tools ``--hinted`` adds."""


def answer(
    request: dict[str, Any],
    name: str,
    listing: list[dict[str, Any]],
    modern: bool = False,
    listen_error: int | None = None,
) -> dict[str, Any]:
    """The response to one request."""
    method = request.get("method")
    params = request.get("params") or {}
    result: dict[str, Any]
    if method == "server/discover" and modern:
        result = {
            "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": name, "version": "0.0.1"},
            "resultType": "complete",
        }
    elif method == "initialize":
        result = {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": name, "version": "0.0.1"},
        }
    elif method == "tools/list":
        result = {"tools": listing}
    elif method == "tools/call" and params.get("name") == "ponder" and modern:
        if params.get("inputResponses"):
            result = {"content": [{"type": "text", "text": "answered"}]}
        else:
            message = {"role": "user", "content": {"type": "text", "text": "hi"}}
            sampling = {"messages": [message], "maxTokens": 5}
            result = {
                "resultType": "input_required",
                "inputRequests": {"s1": {"method": "sampling/createMessage", "params": sampling}},
                "requestState": "pondering",
            }
    elif method == "tools/call" and params.get("name") == "measure":
        result = {
            "content": [{"type": "text", "text": "it is big"}],
            "structuredContent": {"size": "big"},
        }
    elif method == "tools/call" and any(t["name"] == params.get("name") for t in listing):
        result = {"content": [{"type": "text", "text": str(params["name"])}]}
    elif method == "ping":
        result = {}
    elif method == "subscriptions/listen" and listen_error is not None:
        error = {"code": listen_error, "message": "the listen stream is broken here"}
        return {"jsonrpc": "2.0", "id": request["id"], "error": error}
    else:
        error = {"code": -32601, "message": f"Method not found: {method}"}
        return {"jsonrpc": "2.0", "id": request["id"], "error": error}
    return {"jsonrpc": "2.0", "id": request["id"], "result": result}


def main() -> None:
    """Serve stdin until it closes."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tools", type=int, default=10, help="how many tools to advertise")
    parser.add_argument("--name", default="light", help="the server's name (and a marker)")
    parser.add_argument(
        "--modern",
        action="store_true",
        help="answer server/discover: a 2026-07-28 server without subscriptions/listen",
    )
    parser.add_argument(
        "--listen-error", type=int, help="with --modern: answer subscriptions/listen this error"
    )
    parser.add_argument(
        "--exit-delay", type=float, default=0.0, help="seconds to exit once stdin has ended"
    )
    parser.add_argument("--linger", action="store_true", help="ignore stdin's end (until SIGTERM)")
    parser.add_argument(
        "--start-delay", type=float, default=0.0, help="seconds to sleep before reading stdin"
    )
    parser.add_argument(
        "--task-tool",
        action="store_true",
        help='also advertise "research", which runs only as a task (taskSupport "required")',
    )
    parser.add_argument(
        "--hinted",
        action="store_true",
        help="also advertise tools with annotations, and one whose output breaks its schema",
    )
    args = parser.parse_args()
    listing = tools(args.tools)
    if args.hinted:
        listing += HINTED
    if args.task_tool:
        listing.append(
            {
                "name": "research",
                "description": "A long study: only ever run as a task.",
                "inputSchema": _SCHEMA,
                "execution": {"taskSupport": "required"},
            }
        )
    time.sleep(args.start_delay)  # a server slow to start: its first answer comes this late
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        if not isinstance(request, dict) or "id" not in request:
            continue  # a notification, or a batch this server does not take
        response = answer(request, args.name, listing, args.modern, args.listen_error)
        sys.stdout.write(json.dumps(response) + "\n")
        sys.stdout.flush()
    # Sleeping, not reading: SIGTERM's default action still ends the process at once.
    time.sleep(600 if args.linger else args.exit_delay)


if __name__ == "__main__":
    main()
