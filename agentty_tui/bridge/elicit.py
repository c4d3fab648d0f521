"""Answering a server's elicitation (a form it asks the user to fill) where no call's hooks do.

A request that no call's hooks answer (``bridge/call_hooks.py``: none in flight, several of
different owners, or a call without an ``elicitation`` hook) goes to the bridge's
``ServerElicitation``: a handler told which server asks, that a host embedding the bridge passes
(``Bridge(..., elicitation=...)``) or sets later (``Bridge.set_elicitation``; the picker's queue
of dialogs does), else a decline. A URL request that handler accepted is remembered by its id
(as a call's hooks' are): the server's ``notifications/elicitation/complete`` for it goes to the
``ServerElicitationComplete`` set beside the handler, told which server says it.

A headless ``call --accept-defaults`` answers every form with the defaults its own schema
gives, and nothing else: a field without a usable default stays out of the answer. A URL-mode
request (open a page, sign in, pay) is declined, since agreeing to it unseen could authorize
anything. Everything in the request comes from the server, so a schema of the wrong shape
yields an empty answer, never an error.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import mcp_types as types
from mcp.client.session import ClientRequestContext

__all__ = ["ServerElicitation", "ServerElicitationComplete", "accept_defaults", "form_defaults"]

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


async def accept_defaults(
    context: ClientRequestContext, params: types.ElicitRequestParams
) -> types.ElicitResult:
    """An elicitation callback: accept a form with its schema's defaults, decline a URL."""
    if isinstance(params, types.ElicitRequestURLParams):
        return types.ElicitResult(action="decline")
    return types.ElicitResult(action="accept", content=form_defaults(params.requested_schema))
