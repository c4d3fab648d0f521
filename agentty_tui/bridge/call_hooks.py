"""What a tool call's caller answers while the call runs, and which call a server's request is for.

A caller may pass ``CallHooks`` with a tool call: where the server's progress for that call
goes, who answers a form (elicitation) it asks meanwhile, and whose roots it gets when it asks
for them then. Progress is the call's own (the SDK hands the callback to that one request).
Elicitation and ``roots/list`` are requests the server sends on its own, and the wire does not
say which call they serve, so each session ties them with a ``CallRouter``:

- From 2026-07-28 a server asks inside the call's result (an ``input_required`` round); the
  SDK answers it in the calling task itself, where a context variable set around the call
  names the call exactly.
- Up to 2025-11-25 the request arrives on the connection, in the SDK's receiving task, which
  knows no call. It belongs to a call in flight on that session: the one call, or, with
  several, the newest call of their one owner (the same host) when they all have the same.
  Calls of different owners in flight at once leave it ambiguous: nobody's hooks answer it
  (no form goes to a host whose call may not have asked), and the session's fallback does,
  which can read whose calls were in flight then (``calls_during``).

A URL request that a call's hooks (or the session's fallback) accepted, or that the server's
``-32042`` error (URL elicitation required) named to a call with hooks, is remembered by its
id: the server's ``notifications/elicitation/complete`` for it goes to those hooks (or to the
fallback's completion), even after the call ended.

Without hooks (or without the matching hook), a form is answered by the session's fallback
(``--accept-defaults``, or a decline) and roots by the bridge's offer (``bridge/roots.py``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import mcp_types as types
from mcp.client.session import ClientRequestContext, ElicitationFnT, ListRootsFnT
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError
from pydantic import ValidationError

__all__ = [
    "MAX_URLS",
    "CallHooks",
    "CallRouter",
    "answer_elicitation",
    "answer_roots",
    "calls_during",
    "decline",
    "url_elicitations",
]


@dataclass(frozen=True, eq=False)
class CallHooks:
    """One tool call's answers to what its server sends or asks while it runs."""

    progress: ProgressFnT | None = None
    """Receives the call's ``notifications/progress`` (progress, total, message)."""
    elicitation: ElicitationFnT | None = None
    """Answers a form or URL request the server makes during the call; ``None``: the
    session's fallback answers (a decline through the bridge)."""
    roots: ListRootsFnT | None = None
    """Answers ``roots/list`` during the call; ``None``: the bridge's roots."""
    elicitation_complete: Callable[[str], Awaitable[None]] | None = None
    """Told the id of a URL request this call's ``elicitation`` accepted once the server says
    it completed (``notifications/elicitation/complete``, which may come after the call)."""
    owner: object = None
    """Who made the call (e.g. one host's connection): ties a 2025 request made while several
    calls of the same owner are in flight."""


MAX_URLS = 64
"""URL requests a session remembers (by id) until the server says each completed."""

# The call whose task is running: set around each call, read by a request answered in that
# task (a 2026-07-28 ``input_required`` round).
_CURRENT: ContextVar[CallHooks | None] = ContextVar("agentty_call_hooks", default=None)

# The owners of the calls in flight when a request no call owns came: set around the session's
# fallback, read by it (``calls_during``).
_DURING: ContextVar[tuple[object, ...]] = ContextVar("agentty_calls_during", default=())


def calls_during() -> tuple[object, ...]:
    """Inside a session's fallback answering a server's request: the owners (``CallHooks.owner``)
    of the calls in flight on that session when it came, each once, oldest first, none of which
    owned it (calls of several owners at once: ambiguous); ``()`` when no call was in flight,
    and anywhere else."""
    return _DURING.get()


class CallRouter:
    """The calls in flight on one session, and which of them a server's request is for."""

    def __init__(self) -> None:
        self._in_flight: list[CallHooks] = []
        # The URL requests accepted through a call's hooks, by elicitation id, oldest first,
        # until the server says each completed (at most MAX_URLS kept).
        self._urls: OrderedDict[str, CallHooks] = OrderedDict()

    @contextmanager
    def calling(self, hooks: CallHooks | None) -> Iterator[None]:
        """Around one call: ``hooks`` is in flight (and the running task's call) inside. A
        call without hooks counts too (as hooks of nobody, answering nothing): a form its
        server asks must not go to another caller's call in flight beside it."""
        hooks = CallHooks() if hooks is None else hooks
        self._in_flight.append(hooks)
        token = _CURRENT.set(hooks)
        try:
            yield
        finally:
            _CURRENT.reset(token)
            self._in_flight.remove(hooks)

    def accepted_url(self, elicitation_id: str, hooks: CallHooks) -> None:
        """``hooks`` accepted the URL request ``elicitation_id``: its completion goes to them."""
        self._urls[elicitation_id] = hooks
        self._urls.move_to_end(elicitation_id)
        while len(self._urls) > MAX_URLS:  # a server that never completes keeps no memory
            self._urls.popitem(last=False)

    def completed(self, elicitation_id: str) -> CallHooks | None:
        """The hooks that accepted the URL request ``elicitation_id`` (once), or ``None``."""
        return self._urls.pop(elicitation_id, None)

    def refused_for_urls(self, error: BaseException, hooks: CallHooks | None) -> None:
        """A call of ``hooks`` failed with ``error``: when it is the server's ``-32042`` (URL
        elicitation required), the completion of each URL it names goes to ``hooks``."""
        urls = url_elicitations(error)
        if hooks is not None and urls is not None:
            for url in urls:
                if url.elicitation_id is not None:
                    self.accepted_url(url.elicitation_id, hooks)

    def owners(self) -> tuple[object, ...]:
        """The owners of the calls in flight, each once, oldest first (a call of nobody's,
        ``None``, left out)."""
        return tuple(dict.fromkeys(h.owner for h in self._in_flight if h.owner is not None))

    @property
    def in_flight(self) -> int:
        """How many calls are running (diagnostics, tests)."""
        return len(self._in_flight)

    def owner_of_request(self) -> CallHooks | None:
        """The hooks of the call a request arriving now belongs to, or ``None`` (no call, or
        calls of several owners: ambiguous)."""
        current = _CURRENT.get()
        if current is not None and current in self._in_flight:
            return current
        if not self._in_flight:
            return None
        newest = self._in_flight[-1]
        if all(hooks.owner is newest.owner for hooks in self._in_flight):
            # One owner (or one call): its newest call; the owner answers for all of them.
            return newest if len(self._in_flight) == 1 or newest.owner is not None else None
        return None


def url_elicitations(error: BaseException | None) -> list[types.ElicitRequestURLParams] | None:
    """The URL requests of a server's ``-32042`` error (URL elicitation required): what the
    caller must open before calling again; ``None`` for any other error (or a malformed one)."""
    if not isinstance(error, MCPError) or error.code != types.URL_ELICITATION_REQUIRED:
        return None
    try:
        return UrlElicitationRequiredError.from_error(error.error).elicitations
    except (ValidationError, ValueError, TypeError, KeyError):  # the server's data: untrusted
        return None


async def decline(
    context: ClientRequestContext, params: types.ElicitRequestParams
) -> types.ElicitResult:
    """An elicitation callback that declines: where nobody can be asked, the server hears a
    decline (never a protocol error)."""
    return types.ElicitResult(action="decline")


def answer_elicitation(
    router: CallRouter,
    fallback: ElicitationFnT,
    fallback_complete: Callable[[str], Awaitable[None]] | None = None,
) -> ElicitationFnT:
    """A session's elicitation callback: the owning call's hook, else ``fallback``. A URL
    request accepted by a call's hook is remembered for that call's hooks; one ``fallback``
    accepted, for ``fallback_complete`` (its completion is then told there)."""
    remembered = CallHooks(elicitation_complete=fallback_complete)

    async def answer(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        hooks = router.owner_of_request()
        if hooks is None or hooks.elicitation is None:
            during = _DURING.set(router.owners() if hooks is None else ())
            try:
                answer = await fallback(context, params)
            finally:
                _DURING.reset(during)
            hooks = remembered if fallback_complete is not None else None
        else:
            answer = await hooks.elicitation(context, params)
        accepted = isinstance(answer, types.ElicitResult) and answer.action == "accept"
        url = params.elicitation_id if isinstance(params, types.ElicitRequestURLParams) else None
        if accepted and url is not None and hooks is not None:
            router.accepted_url(url, hooks)
        return answer

    return answer


def answer_roots(
    router: CallRouter, offered: Callable[[], Awaitable[tuple[types.Root, ...]]]
) -> ListRootsFnT:
    """A session's ``roots/list`` callback: the owning call's hook, else ``offered()``."""

    async def answer(context: ClientRequestContext) -> types.ListRootsResult | types.ErrorData:
        hooks = router.owner_of_request()
        if hooks is not None and hooks.roots is not None:
            return await hooks.roots(context)
        return types.ListRootsResult(roots=list(await offered()))

    return answer
