"""A hand-written stdio MCP server that attacks its client's resources (raw JSON-RPC lines).

It speaks the 2025 handshake like ``raw_server.py`` and advertises ``ok`` and ``echo``; each
option adds one hostile habit (they combine):

- ``--stderr BYTES``   writes that much to stderr before it serves (``-1``: without end, from
                       a thread, while it serves);
- ``--garbage LINES``  writes that many lines that are not JSON-RPC to stdout before it serves
                       (``-1``: without end, from a thread);
- ``--notify-loop``    sends ``notifications/tools/list_changed`` in a tight loop (a thread);
                       with ``--notify-every S``, one every S seconds, each a little different;
- ``--deep-schema N``  also advertises ``deep``, whose ``inputSchema`` is nested N levels;
- ``--deep-output-schema N`` also advertises ``deep_output``, whose ``outputSchema`` is nested
                       N levels (its input schema is plain);
- ``--endless-pages``  answers every ``tools/list`` page with one more tool and a next cursor;
- ``--long-line BYTES`` has a tool ``long_line`` that answers with one line of that many bytes;
- ``--name NAME``      its ``serverInfo`` name (benchmarks tag their processes with it).

``--transport streamable-http --port N`` answers the same requests over Streamable HTTP on
127.0.0.1:N instead (stateless: each POST gets its answer as ``application/json``, or with
``--event-answers`` as one event of an event stream; no GET stream), for the answers' habits
(``--deep-schema``, ``--endless-pages``).

Run: ``python tests/servers/flood_server.py [options]``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

OBJECT: dict[str, Any] = {"type": "object", "properties": {}}
WRITE_LOCK = threading.Lock()
"""Lines from the threads and from the answers must not interleave on stdout."""


def write_out(data: bytes) -> None:
    """Write all of ``data`` to stdout (fd 1) as one unit."""
    with WRITE_LOCK:
        view = memoryview(data)
        while view:
            view = view[os.write(1, view) :]


def deep_schema(depth: int) -> str:
    """The JSON text of an object schema nested ``depth`` levels (built without recursion)."""
    return '{"type": "object", "properties": {"a": ' * depth + "{}" + "}}" * depth


def tools_page(args: argparse.Namespace, cursor: str | None) -> str:
    """The ``result`` of one ``tools/list`` answer, as JSON text."""
    if args.endless_pages:
        page = int(cursor or "0")
        tool = {"name": f"page_{page:05d}", "inputSchema": OBJECT}
        return json.dumps({"tools": [tool], "nextCursor": str(page + 1)})
    tools = [json.dumps({"name": "ok", "inputSchema": OBJECT})]
    if args.deep_schema:
        tools.append('{"name": "deep", "inputSchema": ' + deep_schema(args.deep_schema) + "}")
    if args.deep_output_schema:
        output = deep_schema(args.deep_output_schema)
        tools.append(
            '{"name": "deep_output", "inputSchema": {"type": "object"}, "outputSchema": '
            + output
            + "}"
        )
    tools.append(json.dumps({"name": "echo", "inputSchema": OBJECT}))
    if args.long_line:
        tools.append(json.dumps({"name": "long_line", "inputSchema": OBJECT}))
    return '{"tools": [' + ", ".join(tools) + "]}"


def answer(args: argparse.Namespace, request: dict[str, Any]) -> bytes | None:
    """The response line to one request (``None`` for a notification)."""
    if "id" not in request:
        return None
    method = request.get("method")
    params = request.get("params") or {}
    ident = json.dumps(request["id"])
    if method == "initialize":
        result = json.dumps(
            {
                "protocolVersion": params.get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": args.name, "version": "0.0.1"},
            }
        )
    elif method == "tools/list":
        result = tools_page(args, params.get("cursor"))
    elif method == "tools/call":
        name = params.get("name")
        if name == "long_line":
            text = "x" * args.long_line
        elif name == "echo":
            text = str((params.get("arguments") or {}).get("text", ""))
        else:
            text = "ok"
        result = json.dumps({"content": [{"type": "text", "text": text}]})
    elif method == "ping":
        result = "{}"
    else:
        error = {"code": -32601, "message": "Method not found"}
        return json.dumps({"jsonrpc": "2.0", "id": request["id"], "error": error}).encode() + b"\n"
    return f'{{"jsonrpc": "2.0", "id": {ident}, "result": {result}}}\n'.encode()


def flood_stderr(total: int) -> None:
    """Write ``total`` bytes of stderr lines (``-1``: for ever)."""
    line = b"stderr flood " + b"e" * 1010 + b"\n"
    chunk = line * 64
    written = 0
    while total < 0 or written < total:
        os.write(2, chunk)
        written += len(chunk)


def flood_garbage(count: int) -> None:
    """Write ``count`` lines that are not JSON-RPC to stdout (``-1``: for ever)."""
    done = 0
    while count < 0 or done < count:
        batch = min(1000, count - done) if count >= 0 else 1000
        write_out(b"".join(b"garbage line %d\n" % (done + i) for i in range(batch)))
        done += batch


def notify_loop(every: float) -> None:
    """Announce a tool change, again and again: without pause (``every`` 0), or one notice
    each ``every`` seconds, each unlike the one before (a ``_meta`` counter)."""
    if every <= 0:
        notice = b'{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}\n'
        while True:
            write_out(notice * 100)
    count = 0
    while True:
        count += 1
        meta = json.dumps({"_meta": {"n": count}})
        line = '{"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": '
        write_out((line + meta + "}\n").encode())
        time.sleep(every)


class HttpHandler(BaseHTTPRequestHandler):
    """Streamable HTTP, stateless: a POST is answered at once, nothing else is offered."""

    def __init__(self, args: argparse.Namespace, *rest: Any) -> None:
        self.args = args
        super().__init__(*rest)

    def do_POST(self) -> None:
        """Answer one JSON-RPC message (202 for a notification)."""
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        response = answer(self.args, json.loads(body))
        if response is None:
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if self.args.event_answers:
            kind, data = "text/event-stream", b"event: message\r\ndata: " + response + b"\r\n"
        else:
            kind, data = "application/json", response
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        """No stream of server messages: a client must do without it."""
        self.send_error(405)

    def do_DELETE(self) -> None:
        """No session to end."""
        self.send_error(405)

    def log_message(self, format: str, *values: Any) -> None:  # noqa: A002 - the base's name
        """Quiet: the test's output is not the place for an access log."""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--stderr", type=int, default=0)
    parser.add_argument("--garbage", type=int, default=0)
    parser.add_argument("--notify-loop", action="store_true")
    parser.add_argument("--notify-every", type=float, default=0.0)
    parser.add_argument("--deep-schema", type=int, default=0)
    parser.add_argument("--deep-output-schema", type=int, default=0)
    parser.add_argument("--endless-pages", action="store_true")
    parser.add_argument("--long-line", type=int, default=0)
    parser.add_argument("--name", default="flood", help="its serverInfo name")
    parser.add_argument("--transport", choices=("stdio", "streamable-http"), default="stdio")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--event-answers", action="store_true")
    args = parser.parse_args()
    if args.transport == "streamable-http":
        ThreadingHTTPServer(("127.0.0.1", args.port), partial(HttpHandler, args)).serve_forever()
        return
    if args.stderr > 0:
        flood_stderr(args.stderr)
        os.write(2, b"stderr flood done\n")
    if args.garbage > 0:
        flood_garbage(args.garbage)
    background = []
    if args.stderr < 0:
        background.append(threading.Thread(target=flood_stderr, args=(-1,), daemon=True))
    if args.garbage < 0:
        background.append(threading.Thread(target=flood_garbage, args=(-1,), daemon=True))
    started = False
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        if request.get("method") == "notifications/initialized" and not started:
            started = True
            if args.notify_loop:
                loop = threading.Thread(target=notify_loop, args=(args.notify_every,), daemon=True)
                background.append(loop)
            for thread in background:
                thread.start()
        response = answer(args, request)
        if response is not None:
            write_out(response)


if __name__ == "__main__":
    main()
