"""One host's prompts through the gateway: every server's, named as its tools are.

A prompt of a server is named ``<server>__<prompt>`` by the tools' rule
(``host.naming.gateway_names``: fitted under the host's prefix, a hash suffix on a clash or a cut,
deterministic for the set of prompts), since a host shows prompts under its own prefix as it
does tools (Claude Code: ``/mcp__agentty__<name>``). ``prompts/list`` asks every connected
server of the host's view that declares prompts (``host.offers.offering``) at once and
answers in one page, in config order; ``prompts/get`` looks the name up in the names of the
last listing (kept until ``forget``: the host's prompts changed; without one, listed now)
and gets it from its server, whose embedded resources come back under gateway URIs. A name
that is no prompt of a served server is refused with a protocol error that says why.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext

from agentty_tui.catalog.names import ToolRef, WireNames
from agentty_tui.errors import AgenttyError
from agentty_tui.gateway.host.naming import gateway_names
from agentty_tui.gateway.host.offers import (
    OfferSource,
    absent,
    listed_by_server,
    offering,
    refused,
)
from agentty_tui.gateway.host.resources import gateway_uri
from agentty_tui.terminal_text import clip, safe_message

__all__ = ["HostPrompts"]


class HostPrompts:
    """The prompt requests of one attached host."""

    def __init__(self, source: OfferSource, host: str | None) -> None:
        """``host``: whose view (``None``: every host's servers)."""
        self._source = source
        self._host = host
        self._given: dict[str, ToolRef] = {}
        """Every prompt name this host was given, for the refusals."""
        self._names: WireNames | None = None
        """The names of the last listing, until the prompts change."""
        self._changes = 0  # a listing under way when they change is not kept

    def forget(self) -> None:
        """The host's prompts changed: the next ``prompts/get`` lists them again."""
        self._names = None
        self._changes += 1

    async def _current(self) -> tuple[list[tuple[ToolRef, types.Prompt]], WireNames]:
        """Every served server's prompts now, and their gateway names."""
        changes = self._changes
        found = await listed_by_server(
            self._source, self._host, "prompts", self._source.list_prompts
        )
        prompts = [
            (ToolRef(server, prompt.name), prompt)
            for server, listed in found.items()
            for prompt in listed
        ]
        names = gateway_names(ref for ref, _prompt in prompts)
        if changes == self._changes:
            self._names = names
        return prompts, names

    async def list_prompts(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        """``prompts/list``: every served server's prompts, under gateway names."""
        prompts, names = await self._current()
        self._given.update(names.by_wire)
        return types.ListPromptsResult(
            prompts=[
                prompt.model_copy(update={"name": names.wire(ref.server, ref.tool)})
                for ref, prompt in prompts
            ]
        )

    async def get(
        self, ctx: ServerRequestContext[Any, Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        """``prompts/get`` of a gateway name: from its server, refused when it is none."""
        names = self._names
        if names is None:
            _prompts, names = await self._current()
        ref = names.by_wire.get(params.name)
        if ref is None or ref.server not in offering(self._source, self._host, "prompts"):
            raise refused(self._why_not(params.name))
        try:
            result = await self._source.get_prompt(ref.server, ref.tool, params.arguments)
        except AgenttyError as exc:  # the server went down meanwhile: said, not raised
            raise refused(safe_message(str(exc)), types.INTERNAL_ERROR) from exc
        messages = [_message(ref.server, message) for message in result.messages]
        return types.GetPromptResult(description=result.description, messages=messages)

    def _why_not(self, name: str) -> str:
        """Why there is no prompt ``name`` now, and what to do."""
        given = self._given.get(name)
        if given is None:
            shown = safe_message(clip(name, 200))
            return f"agentty has no prompt named {shown}; list the prompts again"
        if given.server in offering(self._source, self._host, "prompts"):
            server, prompt = safe_message(given.server), safe_message(clip(given.tool, 200))
            return f"server {server} no longer offers the prompt {prompt}; list the prompts again"
        return absent(self._source, self._host, given.server, "prompts")


def _message(server: str, message: types.PromptMessage) -> types.PromptMessage:
    """``message`` with any resource it embeds or links under its gateway URI."""
    content = message.content
    if isinstance(content, types.EmbeddedResource):
        inner = content.resource.model_copy(
            update={"uri": gateway_uri(server, content.resource.uri)}
        )
        return message.model_copy(
            update={"content": content.model_copy(update={"resource": inner})}
        )
    if isinstance(content, types.ResourceLink):
        linked = content.model_copy(update={"uri": gateway_uri(server, content.uri)})
        return message.model_copy(update={"content": linked})
    return message
