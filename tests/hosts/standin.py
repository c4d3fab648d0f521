"""Loopback stand-ins for the model APIs a host program calls, which record what it sends.

A host decides which MCP tools its model gets; the only place that decision is visible from
outside is the request it sends to its model's API. ``ModelStandIn`` is a tiny HTTP server on
127.0.0.1 (a random port, nothing else is ever reached) that records the JSON body of every
POST and answers with one short assistant turn in the dialect asked for:

- ``anthropic``: ``POST /v1/messages`` (Claude Code adds ``?beta=true``). A plain JSON message,
  or, when the body says ``"stream": true``, the smallest event stream the Messages API sends
  for one text block (message_start, content_block_start, one text delta, content_block_stop,
  message_delta with ``end_turn``, message_stop).
- ``gemini``: ``POST /v1beta/models/MODEL:generateContent`` or ``:streamGenerateContent``
  (``?alt=sse``): one candidate with one text part, as JSON or as one ``data:`` event.
- ``openai``: ``POST /v1/responses`` (Codex's Responses API, always streamed): the smallest
  event stream Codex accepts (response.created, one output_item.done holding the assistant
  message, response.completed with the usage).

Anything else is answered 404 and recorded too (``ModelStandIn.other``), so a test can see a
host asking for something the stand-in does not serve.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

Dialect = Literal["anthropic", "gemini", "openai"]

ANSWER_TEXT = "ok"
"""What the stand-in's assistant says."""

MAX_BODY = 64 * 1024 * 1024
"""A request body past this is refused (a host's tool list is well under it)."""


def anthropic_message(model: str) -> dict[str, Any]:
    """One complete assistant message of the Messages API (the non-streaming answer)."""
    return {
        "id": "msg_standin",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": ANSWER_TEXT}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def anthropic_events(model: str) -> list[tuple[str, dict[str, Any]]]:
    """The smallest valid event stream for one text block: (event name, data) in order."""
    start = anthropic_message(model)
    start.update(content=[], stop_reason=None)
    return [
        ("message_start", {"type": "message_start", "message": start}),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": ANSWER_TEXT},
            },
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": 1},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]


def gemini_response() -> dict[str, Any]:
    """One generateContent answer: a single candidate with one text part."""
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": ANSWER_TEXT}]},
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
    }


def openai_events() -> list[tuple[str, dict[str, Any]]]:
    """The smallest Responses API event stream Codex takes as one assistant message."""
    message = {
        "type": "message",
        "role": "assistant",
        "id": "msg_standin",
        "content": [{"type": "output_text", "text": ANSWER_TEXT, "annotations": []}],
    }
    usage = {
        "input_tokens": 1,
        "input_tokens_details": None,
        "output_tokens": 1,
        "output_tokens_details": None,
        "total_tokens": 2,
    }
    return [
        ("response.created", {"type": "response.created", "response": {"id": "resp_standin"}}),
        (
            "response.output_item.done",
            {"type": "response.output_item.done", "output_index": 0, "item": message},
        ),
        (
            "response.completed",
            {"type": "response.completed", "response": {"id": "resp_standin", "usage": usage}},
        ),
    ]


def _event_stream(events: list[tuple[str, dict[str, Any]]]) -> bytes:
    """Server-sent events, each with its name and its JSON data."""
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()


@dataclass
class Recorded:
    """One request the stand-in received."""

    method: str
    path: str
    body: Any
    """The parsed JSON body (None when there was none or it was not JSON)."""


@dataclass
class ModelStandIn:
    """What the running stand-in recorded; ``url`` is its base URL on loopback."""

    url: str
    dialect: Dialect
    requests: list[Recorded] = field(default_factory=list)
    other: list[Recorded] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def model_requests(self) -> list[dict[str, Any]]:
        """The bodies of the model calls received so far, in order."""
        with self._lock:
            return [r.body for r in self.requests if isinstance(r.body, dict)]

    def tool_names(self) -> list[list[str]]:
        """For each model call, the names of the tools it offered the model, in sent order.

        Codex groups each MCP server's tools in a ``namespace`` tool (named ``mcp__<server>``)
        holding its function tools: those come out as ``<namespace>__<tool>``.
        """
        names: list[list[str]] = []
        for body in self.model_requests():
            if self.dialect == "anthropic":
                names.append([str(t.get("name")) for t in body.get("tools") or []])
            elif self.dialect == "openai":
                flat: list[str] = []
                for tool in body.get("tools") or []:
                    if tool.get("type") == "namespace":
                        inner = tool.get("tools") or []
                        flat.extend(f"{tool.get('name')}__{t.get('name')}" for t in inner)
                    elif "name" in tool:
                        flat.append(str(tool["name"]))
                names.append(flat)
            else:
                declared = [
                    str(d.get("name"))
                    for group in body.get("tools") or []
                    for d in group.get("functionDeclarations") or []
                ]
                names.append(declared)
        return names


def _handler(standin: ModelStandIn) -> type[BaseHTTPRequestHandler]:
    """A request handler class bound to ``standin``."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base's name)
            """Quiet: the test reads what was recorded, not a log on stderr."""

        def _body(self) -> Any:
            length = int(self.headers.get("Content-Length") or 0)
            if length <= 0 or length > MAX_BODY:
                return None
            raw = self.rfile.read(length)
            try:
                return json.loads(raw)
            except ValueError:
                return None

        def _send(self, status: int, content_type: str, payload: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_GET(self) -> None:
            """Not served: recorded as other, answered 404."""
            with standin._lock:
                standin.other.append(Recorded("GET", self.path, None))
            self._send(404, "application/json", b'{"error": "not served by the stand-in"}')

        def do_HEAD(self) -> None:
            """Some clients probe the base URL first."""
            self._send(200, "text/plain", b"")

        def do_POST(self) -> None:
            """Record the body; answer one assistant turn when it is a model call."""
            body = self._body()
            path = self.path.split("?", 1)[0]
            record = Recorded("POST", self.path, body)
            if standin.dialect == "anthropic" and path.endswith("/v1/messages/count_tokens"):
                with standin._lock:
                    standin.other.append(record)
                self._send(200, "application/json", b'{"input_tokens": 1}')
                return
            if standin.dialect == "anthropic":
                model_call = path.endswith("/v1/messages")
            elif standin.dialect == "openai":
                model_call = path.endswith("/responses")
            else:
                model_call = path.endswith((":generateContent", ":streamGenerateContent"))
            with standin._lock:
                (standin.requests if model_call else standin.other).append(record)
            if not model_call:
                self._send(404, "application/json", b'{"error": "not served by the stand-in"}')
            elif standin.dialect == "anthropic":
                model = str(body.get("model", "stand-in")) if isinstance(body, dict) else "x"
                if isinstance(body, dict) and body.get("stream"):
                    self._send(200, "text/event-stream", _event_stream(anthropic_events(model)))
                else:
                    self._send(
                        200, "application/json", json.dumps(anthropic_message(model)).encode()
                    )
            elif standin.dialect == "openai":
                self._send(200, "text/event-stream", _event_stream(openai_events()))
            elif path.endswith(":streamGenerateContent"):
                event = f"data: {json.dumps(gemini_response())}\n\n"
                self._send(200, "text/event-stream", event.encode())
            else:
                self._send(200, "application/json", json.dumps(gemini_response()).encode())

    return Handler


@contextmanager
def model_standin(dialect: Dialect) -> Iterator[ModelStandIn]:
    """Serve a stand-in on 127.0.0.1 (random port) for the ``with`` block, in a thread."""
    standin = ModelStandIn(url="", dialect=dialect)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(standin))
    server.daemon_threads = True
    standin.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, name="model-standin", daemon=True)
    thread.start()
    try:
        yield standin
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
