"""One host's resources through the gateway: every server's, under gateway URIs.

A host has one server, agentty, so a resource's URI must say which server it is of, and two
servers may both have ``file:///README.md``. The gateway URI of a server's resource is

    agentty://<server>/<the resource's own URI, as the server gave it>

with the server's name percent-encoded (``urllib.parse.quote``, nothing kept: a ``/`` in it is
``%2F``), so that the first ``/`` after ``agentty://`` ends it. The resource's own URI follows
unchanged and stays readable; the form is deterministic, distinct for distinct (server, URI)
and read back by ``parse_gateway_uri``. A template is prefixed the same way
(``agentty://docs/file:///{path}``): what a host makes of it is a gateway URI again.

``resources/list`` and ``resources/templates/list`` ask every connected server of the host's
view that declares resources (``host.offers.offering``) at once and answer in one page, in
config order (a server whose listing fails is left out, and says so in agentty's log);
``resources/read`` reads from the one server the URI names, and the contents' URIs come back
in the gateway form. A URI of no served server, or not in the gateway form, is refused with a
protocol error that says why.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar
from urllib.parse import quote, unquote

import mcp_types as types
from mcp.server.context import ServerRequestContext

from agentty_tui.errors import AgenttyError
from agentty_tui.gateway.host.offers import (
    OfferSource,
    absent,
    listed_by_server,
    offering,
    refused,
)
from agentty_tui.terminal_text import clip, safe_message

__all__ = [
    "GATEWAY_URI_PREFIX",
    "RESOURCE_NOT_FOUND",
    "HostResources",
    "gateway_uri",
    "parse_gateway_uri",
]


_Item = TypeVar("_Item")

GATEWAY_URI_PREFIX = "agentty://"
"""What every resource URI the gateway gives a host starts with."""

RESOURCE_NOT_FOUND = -32002
"""The MCP error code of a resource that does not exist."""


def gateway_uri(server: str, uri: str) -> str:
    """The URI (or template) ``uri`` of ``server`` as the host gets it."""
    return f"{GATEWAY_URI_PREFIX}{quote(server, safe='')}/{uri}"


def parse_gateway_uri(uri: str) -> tuple[str, str] | None:
    """The server and its own URI that ``uri`` names; ``None`` when it is no gateway URI."""
    if not uri.startswith(GATEWAY_URI_PREFIX):
        return None
    server, slash, own = uri[len(GATEWAY_URI_PREFIX) :].partition("/")
    if not slash or not server or not own:
        return None
    return unquote(server), own


class HostResources:
    """The resource requests of one attached host."""

    def __init__(self, source: OfferSource, host: str | None) -> None:
        """``host``: whose view (``None``: every host's servers)."""
        self._source = source
        self._host = host

    async def _each(
        self, fetch: Callable[[str], Awaitable[tuple[_Item, ...]]]
    ) -> dict[str, tuple[_Item, ...]]:
        """``fetch(server)`` for every server offering resources, at once; by server."""
        return await listed_by_server(self._source, self._host, "resources", fetch)

    async def list_resources(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        """``resources/list``: every served server's resources, under gateway URIs."""
        found = await self._each(self._source.list_resources)
        resources = [
            resource.model_copy(update={"uri": gateway_uri(server, resource.uri)})
            for server, listed in found.items()
            for resource in listed
        ]
        return types.ListResourcesResult(resources=resources)

    async def list_templates(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        """``resources/templates/list``: every served server's templates, prefixed."""
        found = await self._each(self._source.list_resource_templates)
        templates = [
            template.model_copy(update={"uri_template": gateway_uri(server, template.uri_template)})
            for server, listed in found.items()
            for template in listed
        ]
        return types.ListResourceTemplatesResult(resource_templates=templates)

    async def read(
        self, ctx: ServerRequestContext[Any, Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        """``resources/read`` of a gateway URI: read from its server, contents under gateway
        URIs; refused (``RESOURCE_NOT_FOUND``) when the URI names no served server."""
        parsed = parse_gateway_uri(params.uri)
        if parsed is None:
            shown = safe_message(clip(params.uri, 200))
            raise refused(
                f"{shown} is not a resource of agentty: its resources are named "
                f"{GATEWAY_URI_PREFIX}<server>/<uri>; list the resources again",
                RESOURCE_NOT_FOUND,
            )
        server, uri = parsed
        if server not in offering(self._source, self._host, "resources"):
            raise refused(absent(self._source, self._host, server, "resources"), RESOURCE_NOT_FOUND)
        try:
            result = await self._source.read_resource(server, uri)
        except AgenttyError as exc:  # the server went down meanwhile: said, not raised
            raise refused(safe_message(str(exc)), types.INTERNAL_ERROR) from exc
        contents = [
            content.model_copy(update={"uri": gateway_uri(server, content.uri)})
            for content in result.contents
        ]
        return types.ReadResourceResult(contents=contents)
