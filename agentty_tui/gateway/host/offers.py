"""What the gateway needs of the bridge besides tools, and which servers a host is offered.

``OfferSource`` is the bridge's side of resources, prompts and log messages (``Bridge`` has
it): what a server declared, its listings, a read, a prompt, the changes of its sets and its
log messages, the log level a consumer wants, and the resources a consumer subscribes to
(each subscribed once upstream, however many consumers hold it) with their updates.
``offering`` names the servers of a host's view (``host.tools.served_lens``: the same servers
as its tools) that are connected and offer a kind; ``refused`` is the protocol error a host
gets for what it may not have.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Literal, Protocol, TypeVar

import anyio
import mcp_types as types
from mcp.shared.exceptions import MCPError

from agentty_tui.bridge.offers import OfferListener, ServerOffers
from agentty_tui.bridge.resource_subscriptions import ResourceUpdateListener
from agentty_tui.bridge.server_logging import LogListener
from agentty_tui.gateway.host.tools import served_lens, why_down
from agentty_tui.model import PluginModel
from agentty_tui.terminal_text import clip, safe_message

__all__ = ["OfferSource", "absent", "listed_by_server", "offering", "refused"]

_log = logging.getLogger(__name__)

Item = TypeVar("Item")


class OfferSource(Protocol):
    """The bridge's resources, prompts and log messages, server by server."""

    @property
    def snapshot(self) -> PluginModel:
        """The current model."""
        ...

    def updates(self) -> AsyncIterator[PluginModel]:
        """The current model, then every newer one (a slow reader skips to the latest)."""
        ...

    def offers(self, server: str) -> ServerOffers | None:
        """What ``server`` declared besides tools; ``None`` while it is not connected."""
        ...

    async def list_resources(self, server: str) -> tuple[types.Resource, ...]:
        """Every resource of ``server``."""
        ...

    async def list_resource_templates(self, server: str) -> tuple[types.ResourceTemplate, ...]:
        """Every resource template of ``server``."""
        ...

    async def read_resource(self, server: str, uri: str) -> types.ReadResourceResult:
        """One resource of ``server``."""
        ...

    async def list_prompts(self, server: str) -> tuple[types.Prompt, ...]:
        """Every prompt of ``server``."""
        ...

    async def get_prompt(
        self, server: str, name: str, arguments: dict[str, str] | None = None
    ) -> types.GetPromptResult:
        """One prompt of ``server``, filled in."""
        ...

    def add_offer_listener(self, listener: OfferListener) -> Callable[[], None]:
        """Hear every change of what a server offers; returns a remover."""
        ...

    def add_log_listener(self, listener: LogListener) -> Callable[[], None]:
        """Hear every log message of a server; returns a remover."""
        ...

    async def set_log_level(self, owner: object, level: types.LoggingLevel | None) -> None:
        """The log level ``owner`` wants (``None``: none any more)."""
        ...

    async def subscribe_resource(self, owner: object, server: str, uri: str) -> None:
        """Subscribe ``owner`` to the resource ``uri`` of ``server`` (an ``AgenttyError`` or
        the server's ``MCPError`` says why not)."""
        ...

    async def unsubscribe_resource(self, owner: object, server: str, uri: str) -> None:
        """``owner`` no longer wants the updates of ``uri`` of ``server``."""
        ...

    async def release_subscriptions(self, owner: object) -> None:
        """Drop every subscription of ``owner``."""
        ...

    def add_resource_update_listener(self, listener: ResourceUpdateListener) -> Callable[[], None]:
        """Hear every update of a subscribed resource; returns a remover."""
        ...


def offering(
    source: OfferSource, host: str | None, kind: Literal["resources", "prompts"]
) -> tuple[str, ...]:
    """The servers of ``host``'s view that are connected and offer ``kind``, in config order."""
    names: list[str] = []
    for state in served_lens(source.snapshot, host).servers:
        offers = source.offers(state.name) if state.status == "connected" else None
        if offers is not None and getattr(offers, kind):
            names.append(state.name)
    return tuple(names)


async def listed_by_server(
    source: OfferSource,
    host: str | None,
    kind: Literal["resources", "prompts"],
    fetch: Callable[[str], Awaitable[tuple[Item, ...]]],
) -> dict[str, tuple[Item, ...]]:
    """``fetch(server)`` for every server of ``host``'s view offering ``kind``, all at once; by
    server, in config order. A server whose listing fails is left out (and logged): one
    server's failure costs only its own listing."""
    found: dict[str, tuple[Item, ...]] = {}

    async def one(server: str) -> None:
        try:
            found[server] = await fetch(server)
        except Exception as exc:
            _log.warning("listing the %s of %s failed: %r", kind, server, exc)

    servers = offering(source, host, kind)
    async with anyio.create_task_group() as group:
        for server in servers:
            group.start_soon(one, server)
    return {server: found[server] for server in servers if server in found}


def absent(source: OfferSource, host: str | None, server: str, what: str) -> str:
    """Why ``host`` cannot have ``what`` of ``server`` now (it is not in its view, is down,
    or offers no such thing), and what to do."""
    state = served_lens(source.snapshot, host).server(server)
    name = safe_message(clip(server, 200))
    if state is None:
        return f"agentty serves no server {name} here; list the {what} again"
    if state.status != "connected":
        return f"{what} of server {name} cannot be reached: {why_down(state, host)}"
    return f"server {name} offers no {what}; list the {what} again"


def refused(message: str, code: int = types.INVALID_PARAMS) -> MCPError:
    """The protocol error a host gets, saying ``message``."""
    return MCPError(code, message)
