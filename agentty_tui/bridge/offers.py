"""What a server offers besides tools: its resources, resource templates and prompts.

A connected session lists them on demand (every page, bounded: ``MAX_OFFER_PAGES`` pages and
``MAX_OFFERS`` items of each kind), reads a resource and gets a prompt; nothing of them is
kept in the model (a host asks for them now and then, the picker never). What a server
declared in its handshake (``ServerOffers``) says which of them it has at all; a change of a
set is an ``OfferChange``, which the bridge hands to its offer listeners: a server's own
``notifications/resources/list_changed`` or ``notifications/prompts/list_changed`` (2025
handshake) or the same events on its ``subscriptions/listen`` stream (2026-07-28), and a
session that connects or ends (its whole set comes or goes).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal, TypeVar

import mcp_types as types

__all__ = [
    "MAX_OFFERS",
    "MAX_OFFER_PAGES",
    "OfferChange",
    "OfferKind",
    "OfferListener",
    "ServerOffers",
    "all_pages",
    "offers_of",
]

MAX_OFFER_PAGES = 100
"""A paginator that never ends must not hang a listing of resources or prompts."""

MAX_OFFERS = 5000
"""The most resources (templates, prompts) of one server that a listing keeps."""

OfferKind = Literal["resources", "prompts", "connection"]
"""What changed: a server's resources (and templates), its prompts, or its connection (it
connected or ended, so everything it offers came or went)."""


@dataclass(frozen=True, slots=True)
class OfferChange:
    """One change of what a server offers."""

    server: str
    """The server's config key."""
    kind: OfferKind
    """What changed."""


OfferListener = Callable[[OfferChange], None]
"""A synchronous callback run on every ``OfferChange``, in the session's task."""


@dataclass(frozen=True, slots=True)
class ServerOffers:
    """What a connected server declared in its handshake, besides tools."""

    resources: bool = False
    """It serves ``resources/list`` and ``resources/read`` (and maybe templates)."""
    prompts: bool = False
    """It serves ``prompts/list`` and ``prompts/get``."""
    logging: bool = False
    """It takes ``logging/setLevel`` (2025 handshake era)."""
    subscribe: bool = False
    """Its resources may be subscribed to (``resources/subscribe`` in the 2025 handshake era,
    a ``subscriptions/listen`` filter in 2026-07-28)."""


def offers_of(capabilities: types.ServerCapabilities | None) -> ServerOffers:
    """``ServerOffers`` from a server's declared capabilities."""
    if capabilities is None:
        return ServerOffers()
    return ServerOffers(
        resources=capabilities.resources is not None,
        prompts=capabilities.prompts is not None,
        logging=capabilities.logging is not None,
        subscribe=capabilities.resources is not None and bool(capabilities.resources.subscribe),
    )


Item = TypeVar("Item")


async def all_pages(
    fetch: Callable[[str | None], Awaitable[tuple[list[Item], str | None]]],
) -> tuple[Item, ...]:
    """Every item of a paginated listing: ``fetch(cursor)`` returns a page's items and the next
    cursor; at most ``MAX_OFFER_PAGES`` pages and ``MAX_OFFERS`` items."""
    items: list[Item] = []
    cursor: str | None = None
    for _ in range(MAX_OFFER_PAGES):
        page, cursor = await fetch(cursor)
        items.extend(page[: MAX_OFFERS - len(items)])
        if not cursor or len(items) >= MAX_OFFERS:
            break
    return tuple(items)
