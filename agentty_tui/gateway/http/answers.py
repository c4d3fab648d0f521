"""How a 2025-era session's request is answered over HTTP: one JSON body when nothing but its
answer can go back, else an SSE stream.

The SDK's session transport answers every request POST of a session on an SSE stream of its
own (or every one as JSON: a flag of the transport). The stream is what carries, before the
answer, what is tied to the request: the progress the host asked for with a ``progressToken``,
and the forms and ``roots/list`` relayed to the host during its call (``host.requests``). A
request that can have none of them is answered as one JSON body instead, which costs the
gateway 1.5 ms of CPU less a call (``bench/bench_gateway_http.py``: no SSE response, no task
group of its own, no stream pair): a request without ``progressToken`` of a host whose
``initialize`` declared neither elicitation nor roots (``asks_nothing``, ``answered_alone``).

``AnswerChoosingTransport`` is the SDK's transport whose JSON flag is read from
``ANSWER_ALONE``, a context variable that ``HttpGateway`` sets around the handling of one
request (each request is a task of its own, and what the transport starts for it inherits its
context). The transport's own reader task started with the session, which drops what is tied to
a request answered as JSON, sees the default (``False``): there is nothing such to drop.
"""

from __future__ import annotations

import json
from contextvars import ContextVar
from typing import Any

from mcp.server.streamable_http import StreamableHTTPServerTransport
from starlette.types import Message, Receive

__all__ = [
    "ANSWER_ALONE",
    "AnswerChoosingTransport",
    "answered_alone",
    "asks_nothing",
    "replaying",
]

ANSWER_ALONE: ContextVar[bool] = ContextVar("agentty_answer_alone", default=False)
"""Whether the request being handled is answered as one JSON body (``False``: an SSE
stream)."""


class AnswerChoosingTransport(StreamableHTTPServerTransport):
    """The SDK's session transport, answering each request as ``ANSWER_ALONE`` says."""

    @property  # the SDK's attribute, read where it answers a request
    def is_json_response_enabled(self) -> bool:
        """Whether the request being handled is answered as one JSON body."""
        return ANSWER_ALONE.get()

    @is_json_response_enabled.setter
    def is_json_response_enabled(self, value: bool) -> None:
        """Set once by the SDK's constructor; the request decides instead."""


def _object(body: bytes) -> dict[str, Any] | None:
    """The JSON object ``body`` holds, or ``None``."""
    try:
        value = json.loads(body)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def asks_nothing(initialize: bytes) -> bool:
    """Whether the host whose ``initialize`` request is ``initialize`` declared neither
    elicitation nor roots: then nothing is ever relayed to it during a call."""
    message = _object(initialize)
    params = message.get("params") if message is not None else None
    capabilities = params.get("capabilities") if isinstance(params, dict) else None
    return isinstance(capabilities, dict) and not {"elicitation", "roots"} & capabilities.keys()


def answered_alone(body: bytes) -> bool:
    """Whether ``body`` is one request (of a host that ``asks_nothing``) whose answer is all
    that can go back: it asks for no progress. Anything else (a notification, an answer, a
    batch, what does not parse) keeps the SDK's way."""
    message = _object(body)
    if message is None or not isinstance(message.get("method"), str) or "id" not in message:
        return False
    params = message.get("params", {})
    if not isinstance(params, dict):
        return False
    meta = params.get("_meta", {})
    return isinstance(meta, dict) and "progressToken" not in meta


def replaying(first: Message, receive: Receive) -> Receive:
    """``receive`` with ``first`` (already received) given back first."""
    pending = [first]

    async def replay() -> Message:
        if pending:
            return pending.pop()
        return await receive()

    return replay
