"""Who is subscribed to which resource of which server, so that each is subscribed once.

Several consumers share one bridge's servers (the daemon's attached hosts; each of a host's
2026-07-28 listen streams), and each may subscribe to a resource (``resources/subscribe`` in
the 2025 handshake era, a ``subscriptions/listen`` filter in 2026-07-28). A server is
subscribed to a resource once, however many consumers want it: ``ResourceSubscriptions``
counts the owners of each (server, URI), says when the first one came (subscribe the server)
and when the last one went (unsubscribe it), and names the URIs of a server, which a session
that (re)connects subscribes again. A server's ``notifications/resources/updated`` is a
``ResourceUpdate``, which the bridge hands to its listeners.

Bounded: at most ``MAX_SERVER_SUBSCRIPTIONS`` URIs of one server (each consumer bounds its
own, the gateway's hosts ``MAX_HOST_SUBSCRIPTIONS``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "MAX_SERVER_SUBSCRIPTIONS",
    "ResourceSubscriptions",
    "ResourceUpdate",
    "ResourceUpdateListener",
]

MAX_SERVER_SUBSCRIPTIONS = 1024
"""The most resources of one server that are subscribed at once (each is a listen stream of
its own on a 2026-07-28 server, whose SDK allows 1024 streams by default)."""


@dataclass(frozen=True, slots=True)
class ResourceUpdate:
    """A server's ``notifications/resources/updated``: one of its resources changed."""

    server: str
    """The server's config key."""
    uri: str
    """The resource's own URI, as the server gave it (may be a sub-resource of the one
    subscribed to)."""


ResourceUpdateListener = Callable[[ResourceUpdate], None]
"""A synchronous callback run on every ``ResourceUpdate``, in the session's task."""


class ResourceSubscriptions:
    """The owners of each subscribed (server, URI); owners are compared by identity."""

    def __init__(self) -> None:
        self._owners: dict[tuple[str, str], dict[int, object]] = {}

    def held(self, server: str, uri: str) -> bool:
        """Whether somebody is subscribed to ``uri`` of ``server`` (so the server is)."""
        return (server, uri) in self._owners

    def room(self, server: str) -> bool:
        """Whether one more URI of ``server`` may be subscribed."""
        return len(self.uris(server)) < MAX_SERVER_SUBSCRIPTIONS

    def add(self, owner: object, server: str, uri: str) -> None:
        """Record ``owner``'s subscription (once however often it subscribes)."""
        self._owners.setdefault((server, uri), {})[id(owner)] = owner

    def remove(self, owner: object, server: str, uri: str) -> bool:
        """Forget ``owner``'s subscription; whether it was the last one of that URI (so the
        server is to be unsubscribed)."""
        owners = self._owners.get((server, uri))
        if owners is None or owners.pop(id(owner), None) is None:
            return False
        if owners:
            return False
        del self._owners[(server, uri)]
        return True

    def drop(self, owner: object) -> tuple[tuple[str, str], ...]:
        """Forget every subscription of ``owner``; the (server, URI) whose last owner it was."""
        left = [key for key, owners in self._owners.items() if id(owner) in owners]
        return tuple(key for key in left if self.remove(owner, *key))

    def uris(self, server: str) -> tuple[str, ...]:
        """The subscribed URIs of ``server``, in the order they were first subscribed."""
        return tuple(uri for name, uri in self._owners if name == server)
