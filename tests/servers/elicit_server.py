"""A stdio MCP server that asks its client for forms and pages, in the 2025 handshake era; no SDK.

Plain JSON lines (it starts in tens of milliseconds); ``server/discover`` and anything else it
does not know get "method not found", so a client in auto mode speaks the 2025 handshake, where
a server may send ``elicitation/create`` mid-call or on its own. Tools:

    fields()       -> asks mid-call for a form with every kind of field (see ``FIELDS``):
                      text with formats and length limits, an integer and a number with
                      bounds, a boolean, a plain enum, a titled ``oneOf`` choice, a
                      multi-select array; some with defaults, some required. Returns
                      ``"<action> <JSON of the content, keys sorted>"``.
    visit()        -> asks mid-call to open ``https://example.com/sign-in`` (URL mode, id
                      ``visit-1``); once accepted, sends ``notifications/elicitation/complete``
                      for it. Returns ``"<action>"``.
    authorize()    -> fails with ``-32042`` (URL elicitation required) naming
                      ``https://example.com/authorize`` (id ``auth-1``).
    finish()       -> sends ``notifications/elicitation/complete`` for ``auth-1``.
    later(count)   -> answers ``"asked <count>"`` at once, then sends ``count`` form requests
                      outside any call (ids ``bg-1``...), each a one-field form
                      ``"Question <i> of <count>"``, all at once without waiting.
    answers()      -> what the requests of the last ``later`` got so far, one a line:
                      ``"<id> <action> <JSON of the content>"``.
    later_page()   -> answers ``"asked a page"`` at once, then asks outside any call to open
                      ``https://login.example.org/later`` (URL mode, id ``page-1``); once
                      accepted, sends ``notifications/elicitation/complete`` for it.

Run: ``python tests/servers/elicit_server.py``. Only protocol is written to stdout.
"""

from __future__ import annotations

import json
import sys
from typing import Any

FIELDS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {
            "type": "string",
            "title": "Name",
            "description": "what to call you",
            "minLength": 2,
            "maxLength": 20,
            "default": "Ada",
        },
        "email": {"type": "string", "format": "email", "title": "Email"},
        "site": {"type": "string", "format": "uri", "title": "Web site"},
        "born": {"type": "string", "format": "date", "title": "Born on"},
        "meet": {"type": "string", "format": "date-time", "title": "Meet at"},
        "age": {"type": "integer", "minimum": 0, "maximum": 150, "title": "Age", "default": 36},
        "score": {"type": "number", "minimum": 0, "maximum": 1, "title": "Score"},
        "agree": {"type": "boolean", "title": "Agree to the terms", "default": False},
        "color": {"type": "string", "enum": ["red", "green", "blue"], "title": "Color"},
        "size": {
            "type": "string",
            "title": "Size",
            "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}],
            "default": "l",
        },
        "tags": {
            "type": "array",
            "title": "Tags",
            "items": {"type": "string", "enum": ["alpha", "beta", "gamma"]},
            "minItems": 1,
            "maxItems": 2,
            "default": ["alpha"],
        },
    },
    "required": ["name", "email", "age", "color", "tags"],
}
"""The form ``fields`` asks for."""

_TOOLS: list[dict[str, Any]] = [
    {"name": "fields", "description": "Ask for a form of every kind of field."},
    {"name": "visit", "description": "Ask to open a sign-in page."},
    {"name": "authorize", "description": "Refuse until a page was visited (-32042)."},
    {"name": "finish", "description": "Say that the page of authorize was visited."},
    {
        "name": "later",
        "description": "Ask forms outside any call, after answering.",
        "inputSchema": {
            "type": "object",
            "properties": {"count": {"type": "integer", "default": 1}},
        },
    },
    {"name": "answers", "description": "What the forms of later got."},
    {"name": "later_page", "description": "Ask to open a page outside any call, after answering."},
]
for _tool in _TOOLS:
    _tool.setdefault("inputSchema", {"type": "object", "properties": {}})


class Server:
    """One connection's state: its pending requests of its own and what they got."""

    def __init__(self) -> None:
        self.background: dict[str, str] = {}  # id -> "<action> <content>" of later's requests

    def write(self, message: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self.write({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, request_id: str, params: dict[str, Any]) -> None:
        self.write(
            {"jsonrpc": "2.0", "id": request_id, "method": "elicitation/create", "params": params}
        )

    def wait_for(self, request_id: str) -> dict[str, Any]:
        """Serve what comes until the answer to our request ``request_id`` does."""
        for line in sys.stdin:
            message = json.loads(line)
            if "method" not in message and message.get("id") == request_id:
                result: dict[str, Any] = message.get("result") or {"action": "error"}
                return result
            self.handle(message)
        raise SystemExit(0)

    def handle(self, message: dict[str, Any]) -> None:
        """One message from the client."""
        if "method" not in message:  # the answer to one of later's requests
            result = message.get("result") or {"action": "error"}
            content = json.dumps(result.get("content"), sort_keys=True)
            self.background[str(message.get("id"))] = f"{result.get('action')} {content}"
            if message.get("id") == "bg-page" and result.get("action") == "accept":
                self.notify("notifications/elicitation/complete", {"elicitationId": "page-1"})
            return
        if "id" not in message:
            return  # a notification
        self.write({"jsonrpc": "2.0", "id": message["id"], **self.answer(message)})
        if message["method"] == "tools/call":
            name = message.get("params", {}).get("name")
            if name == "later_page":
                page = {
                    "mode": "url",
                    "message": "Sign in later",
                    "url": "https://login.example.org/later",
                    "elicitationId": "page-1",
                }
                self.request("bg-page", page)
            if name == "later":
                self.background.clear()  # answers() tells of this round only
                count = int(message["params"].get("arguments", {}).get("count", 1))
                for number in range(1, count + 1):
                    self.request(
                        f"bg-{number}",
                        {
                            "mode": "form",
                            "message": f"Question {number} of {count}",
                            "requestedSchema": {
                                "type": "object",
                                "properties": {"reply": {"type": "string", "title": "Reply"}},
                            },
                        },
                    )

    def answer(self, message: dict[str, Any]) -> dict[str, Any]:
        method = message["method"]
        params = message.get("params") or {}
        if method == "initialize":
            return {
                "result": {
                    "protocolVersion": params.get("protocolVersion", "2025-11-25"),
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "elicit", "version": "1.0.0"},
                }
            }
        if method == "ping":
            return {"result": {}}
        if method == "tools/list":
            return {"result": {"tools": _TOOLS}}
        if method == "tools/call":
            return self.call(str(params.get("name")), params.get("arguments") or {})
        return {"error": {"code": -32601, "message": f"Method not found: {method}"}}

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if name == "fields":
            form = {"mode": "form", "message": "Tell us about yourself", "requestedSchema": FIELDS}
            self.request("form-1", form)
            got = self.wait_for("form-1")
            content = json.dumps(got.get("content"), sort_keys=True)
            return _text(f"{got.get('action')} {content}")
        if name == "visit":
            self.request(
                "visit-1",
                {
                    "mode": "url",
                    "message": "Sign in to the thing",
                    "url": "https://example.com/sign-in",
                    "elicitationId": "visit-1",
                },
            )
            got = self.wait_for("visit-1")
            if got.get("action") == "accept":
                self.notify("notifications/elicitation/complete", {"elicitationId": "visit-1"})
            return _text(str(got.get("action")))
        if name == "authorize":
            page = {
                "mode": "url",
                "message": "Authorize the thing",
                "url": "https://example.com/authorize",
                "elicitationId": "auth-1",
            }
            return {
                "error": {
                    "code": -32042,
                    "message": "This request requires more information.",
                    "data": {"elicitations": [page]},
                }
            }
        if name == "finish":
            self.notify("notifications/elicitation/complete", {"elicitationId": "auth-1"})
            return _text("finished")
        if name == "later":
            return _text(f"asked {arguments.get('count', 1)}")
        if name == "later_page":
            return _text("asked a page")
        if name == "answers":
            seen = sorted(self.background.items())
            return _text("\n".join(f"{key} {value}" for key, value in seen))
        return {"error": {"code": -32602, "message": f"Unknown tool: {name}"}}


def _text(text: str) -> dict[str, Any]:
    return {"result": {"content": [{"type": "text", "text": text}], "isError": False}}


def main() -> None:
    server = Server()
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except json.JSONDecodeError:
            continue
        server.handle(message)


if __name__ == "__main__":
    main()
