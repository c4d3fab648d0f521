"""``plain_server.py``'s four tools without the SDK: the same answers, started in tens of ms.

Most tests that start a plain server test the client, not the server; each start of the SDK
server costs one to two seconds of CPU (importing ``mcp``), which made the suite CPU-bound.
This one speaks plain JSON lines on stdio, as ``plain_server.py`` does under mcp 2.x: the
2026-07-28 era (``server/discover``; ``subscriptions/listen`` acknowledged and held open; a
``_meta`` with the server's info on every result) and the 2025 handshake (``initialize``).

Tools, as ``plain_server.py`` advertises and answers them (input and output schemas, text and
structured content; arguments that do not validate give an ``isError`` result naming them):
    echo(text) -> text
    add(a, b) -> a + b
    pid() -> the server's PID
    sleep(seconds) -> ``"slept <seconds>"``, answered from a thread of its own (other requests
             are served meanwhile; a cancelled sleep is never answered)

Run: ``python tests/servers/light_plain_server.py [--name NAME] [--echo-env VAR]``. Only
protocol is written to stdout. ``--echo-env VAR`` first writes ``VAR=<value> name=<name>`` to
stderr in two writes, as ``plain_server.py`` does. HTTP transports are ``plain_server.py``'s
(``--transport`` and ``--port`` are parsed as it parses them, but only stdio is served).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from typing import Any

MODERN = "2026-07-28"
VERSION = "1.0.0"


def _schema(title: str, properties: dict[str, str]) -> dict[str, Any]:
    """An input schema as the SDK derives it from a function's typed parameters."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            name: {"title": name.capitalize(), "type": kind} for name, kind in properties.items()
        },
        "title": f"{title}Arguments",
    }
    if properties:
        schema["required"] = list(properties)
    return schema


def _output(title: str, kind: str) -> dict[str, Any]:
    """The output schema the SDK derives from a function's return type."""
    return {
        "properties": {"result": {"title": "Result", "type": kind}},
        "required": ["result"],
        "title": f"{title}Output",
        "type": "object",
    }


TOOLS: list[dict[str, Any]] = [
    {
        "description": "Return the given text unchanged.",
        "inputSchema": _schema("echo", {"text": "string"}),
        "name": "echo",
        "outputSchema": _output("echo", "string"),
    },
    {
        "description": "Add two integers.",
        "inputSchema": _schema("add", {"a": "integer", "b": "integer"}),
        "name": "add",
        "outputSchema": _output("add", "integer"),
    },
    {
        "description": "Return the PID of this server process.",
        "inputSchema": _schema("pid", {}),
        "name": "pid",
        "outputSchema": _output("pid", "integer"),
    },
    {
        "description": "Sleep for the given number of seconds, then return.",
        "inputSchema": _schema("sleep", {"seconds": "number"}),
        "name": "sleep",
        "outputSchema": _output("sleep", "string"),
    },
]
_KINDS: dict[str, tuple[type, ...]] = {"string": (str,), "integer": (int,), "number": (int, float)}


class Server:
    """One stdio connection: answers requests, writing each line whole."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.modern = False
        self.lock = threading.Lock()
        self.cancelled: set[object] = set()

    def send(self, message: dict[str, Any]) -> None:
        """Write one message as one line (threads share stdout)."""
        with self.lock:
            sys.stdout.write(json.dumps(message) + "\n")
            sys.stdout.flush()

    def result(self, request_id: object, result: dict[str, Any]) -> None:
        """Answer a request; in the 2026 era with the server's info in ``_meta``."""
        if self.modern:
            info = {"name": self.name, "version": VERSION}
            result = {**result, "_meta": {"io.modelcontextprotocol/serverInfo": info}}
        self.send({"jsonrpc": "2.0", "id": request_id, "result": result})

    def error(self, request_id: object, code: int, message: str) -> None:
        """Answer a request with a JSON-RPC error."""
        self.send({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})

    def handle(self, message: dict[str, Any]) -> None:
        """Serve one message from the client."""
        method = message.get("method")
        params = message.get("params") or {}
        if "id" not in message:
            if method == "notifications/cancelled":
                self.cancelled.add(params.get("requestId"))
            return
        request_id = message["id"]
        capabilities = {"tools": {"listChanged": True}}
        if method == "server/discover":
            self.modern = True
            self.result(
                request_id,
                {
                    "cacheScope": "private",
                    "capabilities": capabilities,
                    "resultType": "complete",
                    "supportedVersions": [MODERN],
                    "ttlMs": 0,
                },
            )
        elif method == "initialize":
            info = {"name": self.name, "version": VERSION}
            version = params.get("protocolVersion", "2025-11-25")
            self.result(
                request_id,
                {"protocolVersion": version, "capabilities": capabilities, "serverInfo": info},
            )
        elif method == "subscriptions/listen":
            # Acknowledged and held open: this server's tool list never changes.
            ack = {"_meta": {"io.modelcontextprotocol/subscriptionId": request_id}}
            notifications = params.get("notifications") or {}
            self.send(
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/subscriptions/acknowledged",
                    "params": {**ack, "notifications": notifications},
                }
            )
        elif method == "tools/list":
            listing: dict[str, Any] = {"tools": TOOLS}
            if self.modern:
                listing = {"cacheScope": "private", "resultType": "complete", **listing, "ttlMs": 0}
            self.result(request_id, listing)
        elif method == "tools/call":
            self.call(request_id, str(params.get("name")), params.get("arguments") or {})
        elif method == "ping":
            self.result(request_id, {})
        else:
            self.error(request_id, -32601, f"Method not found: {method}")

    def call(self, request_id: object, name: str, arguments: dict[str, Any]) -> None:
        """Run one tool (``sleep`` in a thread of its own)."""
        tool = next((t for t in TOOLS if t["name"] == name), None)
        if tool is None:
            self.error(request_id, -32602, f"Unknown tool: {name}")
            return
        problems = _invalid(tool["inputSchema"], arguments)
        if problems:
            text = f"Error executing tool {name}: {problems}"
            self.tool_result(request_id, text, None, error=True)
        elif name == "echo":
            self.tool_result(request_id, arguments["text"], arguments["text"])
        elif name == "add":
            total = arguments["a"] + arguments["b"]
            self.tool_result(request_id, str(total), total)
        elif name == "pid":
            self.tool_result(request_id, str(os.getpid()), os.getpid())
        else:
            seconds = arguments["seconds"]
            threading.Thread(target=self.sleep, args=(request_id, seconds), daemon=True).start()

    def sleep(self, request_id: object, seconds: float) -> None:
        """The ``sleep`` tool; no answer once the client cancelled the request."""
        time.sleep(seconds)
        if request_id not in self.cancelled:
            self.tool_result(request_id, f"slept {seconds}", f"slept {seconds}")

    def tool_result(
        self, request_id: object, text: str, value: object, *, error: bool = False
    ) -> None:
        """A ``tools/call`` result: the text, and the value as structured content."""
        result: dict[str, Any] = {"content": [{"text": text, "type": "text"}], "isError": error}
        if self.modern:
            result["resultType"] = "complete"
        if value is not None:
            result["structuredContent"] = {"result": value}
        self.result(request_id, result)


def _invalid(schema: dict[str, Any], arguments: dict[str, Any]) -> str:
    """What is wrong with ``arguments`` (empty when nothing): missing or mistyped fields."""
    problems: list[str] = []
    for field, spec in schema["properties"].items():
        if field not in arguments:
            problems.append(f"{field}\n  Field required")
        elif not isinstance(arguments[field], _KINDS[spec["type"]]) or isinstance(
            arguments[field], bool
        ):
            problems.append(f"{field}\n  Input should be a valid {spec['type']}")
    if not problems:
        return ""
    noun = "error" if len(problems) == 1 else "errors"
    return f"{len(problems)} validation {noun} for {schema['title']}\n" + "\n".join(problems)


def main() -> None:
    """Serve stdin until it closes."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--name", default="plain", help="serverInfo name")
    parser.add_argument("--echo-env", metavar="VAR", help="write VAR's value to stderr first")
    # plain_server.py's own options, so that a command line of it is refused the same way
    # (argparse's error quotes the value); stdio is all this server serves.
    parser.add_argument("--transport", choices=("stdio",), default="stdio")
    parser.add_argument("--port", type=int, default=0, help="unused: stdio only")
    args = parser.parse_args()
    if args.echo_env:
        line = f"{args.echo_env}={os.environ.get(args.echo_env, '')} name={args.name}\n"
        half = len(args.echo_env) + 4
        sys.stderr.write(line[:half])
        sys.stderr.flush()
        time.sleep(0.05)  # so the reader likely gets the value in two pieces
        sys.stderr.write(line[half:])
        sys.stderr.flush()
    server = Server(args.name)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict):
            server.handle(message)


if __name__ == "__main__":
    main()
