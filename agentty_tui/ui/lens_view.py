"""What the picker shows through a host's lens: that host's model, its wire catalog counted in
its model family, and the tools' token counts.

``LensView`` holds the lens (``h`` cycles every host, then each host found), one
``CatalogProjector`` a model family (a host's lens cuts the token budget as its model counts,
and each re-projects only the servers that changed), whether the token encoding is being loaded,
and, when tokens are counted, the ``CostBook``. It decides what the status bar counts and what
the details say a tool costs; the app renders them and runs the workers (loading the encoding,
counting) that it asks for.

Textual-free: the encoding's load and the counts are started by the app, off the UI thread.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial

from agentty_tui.catalog import FAMILIES, TOKEN_COUNTER, CatalogProjector, WireCatalog
from agentty_tui.catalog.host_lens import host_lens, hosts_of
from agentty_tui.catalog.host_limits import host_limits
from agentty_tui.catalog.tokens import DEFAULT_FAMILY, CountNotKept, FamilyName
from agentty_tui.catalog.tool_costs import CostBook, ServerCost
from agentty_tui.config.hosts.switches import HOST_NAMES
from agentty_tui.model import PluginModel, ServerState, ToolState
from agentty_tui.ui.status_bar import summarize

__all__ = ["LensView"]


class LensView:
    """The lens the rows are seen through, with the catalog and token counts that follow it."""

    def __init__(self, *, count_tokens: bool = False) -> None:
        """``count_tokens``: keep each server's token counts (a ``CostBook``; counted by the
        app's worker thread, ``count``); off, nothing is counted but the token budget's."""
        self.host: str | None = None
        """The host whose model the rows show; ``None``: every host."""
        self._projectors: dict[FamilyName, CatalogProjector] = {}
        self._warming = False  # whether the load of the encoding was started
        # Each server's token counts, counted off the UI thread (None: not shown).
        self.costs = CostBook(TOKEN_COUNTER) if count_tokens else None
        """Each server's token counts (``None``: tokens are not counted)."""

    @property
    def family(self) -> FamilyName:
        """The model family tokens are counted in: the lens's host's, else the default."""
        limits = host_limits(self.host)
        return DEFAULT_FAMILY if limits is None else limits.family

    def look(self, whole: PluginModel) -> PluginModel:
        """``whole`` (every host's snapshot) as the lens's host's model gets it; a host whose
        files are gone gives way to every host again."""
        if self.host is not None and self.host not in hosts_of(whole):
            self.host = None
        return host_lens(whole, self.host)

    def next_host(self, whole: PluginModel) -> bool:
        """Look through the next host's lens: every host, then each host of ``whole``; False
        (and no change) when ``whole`` has no hosts to look through."""
        hosts = hosts_of(whole)
        if not hosts:
            return False
        order: list[str | None] = [None, *hosts]
        self.host = order[(order.index(self.host) + 1) % len(order)]
        return True

    @property
    def host_name(self) -> str | None:
        """The lens's host as the user knows it (``Codex``), or ``None`` for every host."""
        return None if self.host is None else HOST_NAMES.get(self.host, self.host)

    def project(
        self, model: PluginModel, load_encoding: Callable[[], object] | None
    ) -> WireCatalog:
        """The wire catalog of ``model``; with a token budget once its counts are known.

        The counts kept by an earlier run (``catalog/token_cache.py``) apply the token budget
        at once, without the encoding. A count not kept needs it loaded, which holds the
        interpreter's lock for about 2 s, in whichever thread: the first frame does not wait
        for it. Until ``load_encoding`` (the app's worker thread; ``None`` while the app cannot
        start one) has loaded it, the count budget alone applies; then the app projects again.
        Without a token budget nothing is counted or loaded.
        """
        family = self.family
        projector = self._projectors.get(family)
        if projector is None:
            projector = self._projectors[family] = CatalogProjector(TOKEN_COUNTER, family=family)
        if model.tool_token_budget is None or TOKEN_COUNTER.ready:
            return projector.project(model)
        if not self._warming:
            try:
                return projector.project(model, may_load=False)
            except CountNotKept:
                pass  # a definition not counted before: the encoding is needed
        if not self._warming and load_encoding is not None:
            self._warming = True
            load_encoding()
        return projector.project(model, token_budget=None)

    @staticmethod
    def load_encoding() -> None:
        """Load the token encoding (blocking, about 2 s: a worker thread's job)."""
        TOKEN_COUNTER.warm()

    def to_count(self, model: PluginModel) -> bool:
        """Whether some server of ``model`` is not counted in the lens's family yet."""
        return self.costs is not None and self.costs.missing(model, self.family)

    def count(self, model: PluginModel, family: FamilyName) -> None:
        """Count every server of ``model`` not counted yet in ``family`` (blocking: a worker
        thread's job). The first count not kept from an earlier run loads the encoding."""
        if self.costs is not None:
            self.costs.count(model, family)

    def row_costs(self, model: PluginModel) -> Callable[[ServerState], ServerCost | None] | None:
        """Each server's counts in the lens's family, for the rows (``None``: not counted); a
        toggled server's figures are carried over at once, so they never blink."""
        if self.costs is None:
            return None
        self.costs.carry(model, self.family)
        return partial(self.costs.of, family=self.family)

    def status(self, model: PluginModel, catalog: WireCatalog, *, by_cost: bool) -> str:
        """The status line of ``model`` on screen: the counts, the tokens in the lens's family
        (counted, else the token budget's), the host's own limits, whether sorted by cost."""
        summary = summarize(model, catalog)
        limits = host_limits(self.host)
        tokens = summary.tokens
        if self.costs is not None:
            counted = self.costs.total(model, catalog, self.family)
            tokens = counted if counted is not None else tokens
        family = rules = None
        if limits is not None:
            spec = FAMILIES[limits.family]
            family = spec.label + ("" if spec.exact and not limits.family_estimate else " est.")
            mcp = sum(tool.server is not None for tool in catalog.tools)
            mcp_tokens = None
            if self.costs is not None:
                mcp_tokens = self.costs.total(model, catalog, limits.family, natives=False)
            rules = limits.rules()
            if limits.defers(mcp, mcp_tokens):
                rules = (*rules, "deferring them now")
        summary = replace(
            summary, tokens=tokens, family=family, host_rules=rules or (), by_cost=by_cost
        )
        lens = f"{self.host_name}'s view · " if self.host else ""
        return lens + summary.text

    def tokens_text(self, server: ServerState, tool: ToolState | None) -> str | None:
        """The details' token line: the tool's tokens, or the server's tools' that are on, in
        the lens's family, and under it the family's per-request overhead, apart (``None``
        while not counted)."""
        cost = None if self.costs is None else self.costs.of(server, self.family)
        if cost is None:
            return None
        spec = FAMILIES[self.family]
        how = "exact" if spec.exact else "an o200k estimate"
        if tool is None:
            text = f"{cost.enabled:,} for its tools that are on ({spec.label}, {how})"
            if spec.request_overhead is None:
                return text
            # The tool-use prompt is paid once a request, whatever the tools: kept apart.
            overhead = f"+ {spec.request_overhead:,} once a request, for tool use (not per tool)"
            return f"{text}\n           {overhead}"
        count = cost.tools.get(tool.bare)
        return None if count is None else f"{count:,} ({spec.label}, {how})"
