"""What each server's tools cost the model, per tool, kept by the server's revision.

The picker shows a token figure on every tool row and a total on every server row, whether the
tool is on or not (what switching it on would cost). :class:`CostBook` holds those figures:
each server's are counted once per ``(name, revision)`` in one model family, in a worker thread
(the first count of a process not kept from an earlier one loads the encoding, about 1 s), and
read from the UI thread by a dictionary look-up (:meth:`CostBook.of`), which answers ``None``
until they are counted. What it counts is kept for the next process (:mod:`.token_cache`).

A tool is counted as :mod:`.tokens` documents, under its plain wire name
(``mcp__<server>__<tool>``): a name the catalog shortened or tagged (:mod:`.allocation`) can
differ by a few tokens. A toggle gives the server a new revision but keeps its other tools'
states: their counts carry over by state (one look-up each), and only the toggled tool, a new
object, is looked up in the counter.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from agentty_tui.catalog.names import qualified_name
from agentty_tui.catalog.tokens import (
    DEFAULT_FAMILY,
    TOKEN_COUNTER,
    CountNotKept,
    FamilyName,
    TokenCounter,
)
from agentty_tui.catalog.values import WireCatalog
from agentty_tui.model import PluginModel, ServerState, ToolState

__all__ = ["CostBook", "ServerCost"]


@dataclass(frozen=True, slots=True, eq=False)
class ServerCost:
    """One server state's token counts in one family (compared by identity: one per state)."""

    revision: int
    """The revision of the server state counted."""
    family: FamilyName
    """The family counted in."""
    tools: Mapping[str, int]
    """Each advertised tool's tokens, by bare name (the first of a repeated name)."""
    enabled: int
    """Tokens of its tools that are on (those a task-only tool leaves off the wire aside): what
    the server costs the model while connected and not trimmed."""
    states: tuple[ToolState, ...]
    """The states counted, kept so that their ids stay theirs (``by_state``)."""
    by_state: Mapping[int, int]
    """Each of ``states``' tokens by the state's id: what the server's next state reuses."""


class CostBook:
    """Each server's :class:`ServerCost`, counted off the UI thread and read on it.

    :meth:`count` (a worker thread) counts every server of a snapshot not counted yet in the
    family; :meth:`of` (any thread) answers from what is counted. Servers no longer in the
    snapshot counted last are forgotten. Safe for one counting thread beside readers: an entry
    is replaced whole, by one dictionary assignment.
    """

    __slots__ = ("_costs", "_counter", "_lock")

    def __init__(self, counter: TokenCounter = TOKEN_COUNTER) -> None:
        self._counter = counter
        self._costs: dict[tuple[FamilyName, str], ServerCost] = {}
        self._lock = threading.Lock()  # one count at a time (two workers, one after the other)

    @property
    def counter(self) -> TokenCounter:
        """What counts the definitions."""
        return self._counter

    def of(self, server: ServerState, family: FamilyName = DEFAULT_FAMILY) -> ServerCost | None:
        """The server's counts in ``family``, if its current revision is counted."""
        cost = self._costs.get((family, server.name))
        return cost if cost is not None and cost.revision == server.revision else None

    def missing(self, model: PluginModel, family: FamilyName = DEFAULT_FAMILY) -> bool:
        """Whether some server of ``model`` is not counted in ``family`` yet."""
        return any(self.of(server, family) is None for server in model.servers)

    def count(self, model: PluginModel, family: FamilyName = DEFAULT_FAMILY) -> bool:
        """Count every server of ``model`` not counted yet in ``family`` (blocking: a worker
        thread's job); whether anything was counted."""
        with self._lock:
            counted = False
            for server in model.servers:
                if self.of(server, family) is None:
                    previous = self._costs.get((family, server.name))
                    self._costs[(family, server.name)] = self._server_cost(server, family, previous)
                    counted = True
            shown = {server.name for server in model.servers}
            for key in [key for key in self._costs if key[1] not in shown]:
                del self._costs[key]
            if counted:
                # The new counts are kept for the next process (``catalog/token_cache.py``),
                # which then shows them without loading the encoding.
                self._counter.save()
            return counted

    def carry(self, model: PluginModel, family: FamilyName = DEFAULT_FAMILY) -> None:
        """Count, now, each server of ``model`` whose previous state was counted, when that is
        cheap: the encoding loaded, its other tools' counts carried over (a toggle: one tool
        looked up). Meant for the UI thread, so that a toggled server's figures never blink;
        does nothing while a count runs (it is :meth:`count`'s job then)."""
        if not self._counter.ready or not self._lock.acquire(blocking=False):
            return
        try:
            for server in model.servers:
                key = (family, server.name)
                previous = self._costs.get(key)
                if previous is not None and previous.revision != server.revision:
                    self._costs[key] = self._server_cost(server, family, previous)
        finally:
            self._lock.release()

    def total(
        self,
        model: PluginModel,
        catalog: WireCatalog,
        family: FamilyName = DEFAULT_FAMILY,
        *,
        natives: bool = True,
    ) -> int | None:
        """Tokens of what ``catalog`` (``model``'s) ships: each connected server's tools that
        are on, less those trimmed, and the natives (``natives=False``: the MCP tools alone);
        ``None`` while a server is not counted, or a native's count is neither kept nor
        countable without loading the encoding (never loaded here: the UI thread asks). A
        look-up per server and per trimmed tool, not per tool: the status bar asks on every
        snapshot."""
        total = 0
        if natives:
            native_tools = [tool for tool in catalog.tools if tool.server is None]
            try:  # kept counts, or the loaded encoding: this thread never loads it
                total += self._counter.total(native_tools, family, may_load=False)
            except CountNotKept:
                return None
        trimmed = catalog.trimmed_by_server()
        for server in model.servers:
            if server.status != "connected":
                continue
            cost = self.of(server, family)
            if cost is None:
                return None
            total += cost.enabled
            for bare in trimmed.get(server.name, ()):
                total -= cost.tools.get(bare, 0)
        return total

    def _server_cost(
        self, server: ServerState, family: FamilyName, previous: ServerCost | None
    ) -> ServerCost:
        reuse = previous.by_state if previous is not None else {}
        count = self._counter.count
        name = server.name
        tools: dict[str, int] = {}
        by_state: dict[int, int] = {}
        enabled = 0
        for state in server.tools:
            tokens = reuse.get(id(state))
            if tokens is None:
                tokens = count(
                    qualified_name(name, state.bare),
                    state.description or "",
                    state.input_schema,
                    family,
                )
            by_state[id(state)] = tokens
            if state.bare in tools:
                continue  # a repeated name: the catalog requests the first
            tools[state.bare] = tokens
            if state.enabled and not state.needs_tasks:
                enabled += tokens
        return ServerCost(
            revision=server.revision,
            family=family,
            tools=MappingProxyType(tools),
            enabled=enabled,
            states=server.tools,
            by_state=MappingProxyType(by_state),
        )
