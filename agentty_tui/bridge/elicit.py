"""Answering a server's elicitation (a form it asks the user to fill) where no call's hooks do.

A request that no call's hooks answer (``bridge/call_hooks.py``: none in flight, several of
different owners, or a call without an ``elicitation`` hook) goes to the bridge's
``ServerElicitation``: a handler told which server asks, that a host embedding the bridge passes
(``Bridge(..., elicitation=...)``) or sets later (``Bridge.set_elicitation``; the picker's queue
of dialogs does), else a decline. A URL request that handler accepted is remembered by its id
(as a call's hooks' are): the server's ``notifications/elicitation/complete`` for it goes to the
``ServerElicitationComplete`` set beside the handler, told which server says it.

A headless ``call --accept-defaults`` answers every form with the defaults its own schema
gives, and nothing else: a field without a usable default stays out of the answer, and a form
that requires such a field is declined (an answer without it would break the form; nobody is
there to fill it in). A URL-mode
request (open a page, sign in, pay) is declined, since agreeing to it unseen could authorize
anything. Everything in the request comes from the server, so a schema of the wrong shape
yields an empty answer, never an error.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import mcp_types as types
from mcp.client.session import ClientRequestContext

__all__ = [
    "ServerElicitation",
    "ServerElicitationComplete",
    "accept_defaults",
    "form_defaults",
    "required_without_default",
]

ServerElicitation = Callable[
    [str, ClientRequestContext, types.ElicitRequestParams],
    Awaitable[types.ElicitResult | types.ErrorData],
]
"""Answers a form or URL request of the server named first, one that no call's hooks answer
(the SDK's elicitation callback, told which server asks)."""

ServerElicitationComplete = Callable[[str, str], Awaitable[None]]
"""Told the server (named first) and the id of a URL request the ``ServerElicitation``
accepted, once that server says it completed (``notifications/elicitation/complete``)."""

Answer = str | int | float | bool | list[str] | None
"""A value a form answer may carry (the protocol's primitive field types)."""


def _usable(value: object) -> bool:
    if isinstance(value, str | int | float | bool):
        return True
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def form_defaults(schema: Mapping[str, Any]) -> dict[str, Answer]:
    """The ``default`` of each top-level property of a requested schema that has a usable one."""
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return {}
    answer: dict[str, Answer] = {}
    for name, prop in properties.items():
        if isinstance(name, str) and isinstance(prop, Mapping) and "default" in prop:
            value = prop["default"]
            if _usable(value):
                answer[name] = value
    return answer


def required_without_default(schema: Mapping[str, Any]) -> list[str]:
    """The fields a requested schema requires that ``form_defaults`` has no value for, in the
    schema's order (a ``required`` that is not a list of names requires nothing)."""
    required = schema.get("required")
    if not isinstance(required, list):
        return []
    answered = form_defaults(schema)
    return [name for name in required if isinstance(name, str) and name not in answered]


async def accept_defaults(
    context: ClientRequestContext, params: types.ElicitRequestParams
) -> types.ElicitResult:
    """An elicitation callback: accept a form with its schema's defaults, unless it requires a
    field without one; decline a URL."""
    if isinstance(params, types.ElicitRequestURLParams):
        return types.ElicitResult(action="decline")
    if required_without_default(params.requested_schema):
        return types.ElicitResult(action="decline")
    return types.ElicitResult(action="accept", content=form_defaults(params.requested_schema))
