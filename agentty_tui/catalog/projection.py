"""The projection: a model snapshot onto the exact tool list the model sees, purely.

``project_catalog(model)`` takes a :class:`~agentty_tui.model.PluginModel`, the host's native
tools and a tool budget, and returns a frozen :class:`WireCatalog`:

* **Native tools always ship**, first, in the order given, even when they alone exceed the
  budget.
* **Then the MCP tools, in priority order, until the budget is reached.** Only tools that are
  ``enabled`` on servers whose status is ``"connected"`` are requested at all; disabled tools and
  the tools of connecting, failed or disabled servers are neither shipped nor counted as trimmed.
* **Priority** is deterministic: first every **pinned** tool (one in its server's ``tools.pin``,
  or any tool of a server whose ``priority`` is above 0), then every other tool; within each of
  the two, servers by ``priority``, highest first, servers of equal priority in config order
  (the order of ``model.servers``), and within a server its tools in the order the server
  advertised them. Without pins or priorities: config order, then advertised order. A pinned
  tool is trimmed only after every unpinned one.
* **Trimming** drops the lowest-priority tools first (from the end of that order); they are
  listed in ``trimmed``, in priority order, and counted in ``over_by`` and ``warning``.
* **A token budget**, when given, cuts the same order too: the MCP tools ship while their
  tokens (:mod:`.tokens`), added to the natives', fit in it; the first that does not fit and
  every tool after it are trimmed. The tighter of the two budgets decides, and the warning
  names each budget exceeded and by how much.

Wire names (see :mod:`.names` and :mod:`.allocation`) are allocated over *all* requested MCP
tools, shipped or trimmed, with the native names reserved, so a tool's wire name does not change
when the budget does. A name can still change when the set of requested tools changes *and*
that change creates or removes a collision involving it.

Linear in the number of tools; 50,000 tools project in a small fraction of a second. A
:class:`CatalogProjector` gives the same result for a stream of snapshots and redoes only the
servers whose revision changed since its previous snapshot, which is what a toggle changes.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import accumulate
from typing import Literal

from agentty_tui.catalog.allocation import allocate_distinct, plain_names
from agentty_tui.catalog.names import ToolRef, qualified_name
from agentty_tui.catalog.native_tools import DEFAULT_NATIVE_TOOLS
from agentty_tui.catalog.tokens import DEFAULT_FAMILY, TOKEN_COUNTER, FamilyName, TokenCounter
from agentty_tui.catalog.values import WireCatalog, WireTool, assemble_catalog, budget_warning
from agentty_tui.model import NativeTool, PluginModel, ServerState, ToolState

__all__ = ["CatalogProjector", "project_catalog"]


def project_catalog(
    model: PluginModel,
    *,
    native_tools: Sequence[NativeTool] | None = None,
    budget: int | None = None,
    token_budget: int | Literal["model"] | None = "model",
    family: FamilyName = DEFAULT_FAMILY,
) -> WireCatalog:
    """Project a model snapshot onto the wire (see the module docstring for the rules).

    ``native_tools`` defaults to ``model.native_tools`` when that is non-empty, else
    :data:`~agentty_tui.catalog.native_tools.DEFAULT_NATIVE_TOOLS`; ``budget`` defaults to
    ``model.tool_budget`` and ``token_budget`` to ``model.tool_token_budget`` (``None``: no
    token budget), counted in the model ``family`` of the host that is served.
    """
    return CatalogProjector(family=family).project(
        model, native_tools=native_tools, budget=budget, token_budget=token_budget
    )


@dataclass(slots=True)
class _ServerPart:
    """What one connected server contributes, computed once per distinct tool list."""

    revision: int
    """The revision of the server state this part was computed from."""
    refs: tuple[ToolRef, ...]
    """Its enabled tools, in advertised order, each once (the first of a repeated name)."""
    states: tuple[ToolState, ...]
    """The state behind each of ``refs``."""
    by_ref: dict[ToolRef, str]
    """Each of ``refs`` to its qualified name, in the same order."""
    by_base: dict[str, ToolRef]
    """Qualified names back to ``refs`` (shorter than ``refs`` when two sanitize alike)."""
    longest: int
    """Length of the longest qualified name."""
    wire_tools: tuple[WireTool, ...] | None = None
    """``WireTool`` values under the plain qualified names, built on first need."""
    bares: frozenset[str] | None = None
    """The bare names of ``refs``, built on first need (when the whole server is trimmed)."""
    cut: tuple[int, frozenset[str]] | None = None
    """Where the budget last cut this part in two (the index of its first trimmed tool) and
    the bare names from there on: kept while the cut point does not move."""
    tokens: tuple[tuple[WireTool, ...], tuple[int, ...], int] | None = None
    """The token counts of one ``_wire_tools`` result (kept while it is the same object), and
    their sum: a toggle elsewhere adds this server's tokens without a look-up per tool."""
    needs_tasks: tuple[ToolRef, ...] = ()
    """Its enabled tools that run only as tasks: not requested, listed apart."""
    pinned: bool = False
    """Whether these are the server's pinned tools (a server with pins and other tools has a
    part of each)."""
    inherited: tuple[tuple[ToolState, ...], dict[int, int]] | None = None
    """The previous part of the same server: its states and their counts under plain names by
    the id of each state. Holding those states keeps their ids from being reused, so an id
    found here is the very state counted: a toggle's new part looks its unchanged tools up in
    one pass made in C instead of one count look-up per tool."""
    by_state: tuple[tuple[ToolState, ...], dict[int, int]] | None = None
    """This part's states and their counts under plain names by id (what the next part of the
    server inherits)."""


class CatalogProjector:
    """``project_catalog`` for a stream of snapshots, reusing each server's unchanged share.

    Owned by one consumer (the picker keeps one; the gateway one per attached host, counting
    in that host's model ``family``): a server's enabled tools, their qualified
    names and their ``WireTool`` values are kept from the previous snapshot while the server's
    ``(name, revision)`` is the same, so a toggle re-projects one server instead of all of them.
    The result always equals ``project_catalog`` of the same snapshot; only the servers of the
    latest snapshot are kept. Not thread-safe.
    """

    __slots__ = (
        "_counter",
        "_family",
        "_grouped",
        "_native_tokens",
        "_natives",
        "_parts",
        "_trimmed",
    )

    def __init__(
        self, counter: TokenCounter = TOKEN_COUNTER, *, family: FamilyName = DEFAULT_FAMILY
    ) -> None:
        # One family for the projector's life: the counts its parts keep are that family's.
        self._counter = counter
        self._family: FamilyName = family
        self._native_tokens: tuple[tuple[WireTool, ...], int] | None = None
        self._parts: dict[str, tuple[_ServerPart, ...]] = {}
        self._natives: tuple[tuple[NativeTool, ...], tuple[WireTool, ...]] | None = None
        self._trimmed: tuple[ToolRef, ...] = ()
        self._grouped: dict[str, frozenset[str]] = {}

    @property
    def counter(self) -> TokenCounter:
        """What counts the tools' tokens for a token budget."""
        return self._counter

    @property
    def family(self) -> FamilyName:
        """The model family the token budget is counted in."""
        return self._family

    def project(
        self,
        model: PluginModel,
        *,
        native_tools: Sequence[NativeTool] | None = None,
        budget: int | None = None,
        token_budget: int | Literal["model"] | None = "model",
        may_load: bool = True,
    ) -> WireCatalog:
        """The wire catalog of ``model``; arguments as for :func:`project_catalog`.

        With a token budget the tools are counted (:mod:`.tokens`): the counts kept by an
        earlier process are read, and the first count of a definition not kept loads the
        encoding, about 1.5 s. A caller that must not wait passes ``may_load=False``: the
        projection then raises :class:`~.tokens.CountNotKept` instead of loading it (and the
        caller can project with ``token_budget=None`` until :attr:`TokenCounter.ready`).
        """
        if native_tools is None:
            native_tools = model.native_tools or DEFAULT_NATIVE_TOOLS
        if budget is None:
            budget = model.tool_budget
        if token_budget == "model":
            token_budget = model.tool_token_budget
        if budget < 0:
            raise ValueError(f"tool budget must be at least 0, not {budget}")
        if token_budget is not None and token_budget < 0:
            raise ValueError(f"token budget must be at least 0, not {token_budget}")
        natives = self._native_wire_tools(tuple(native_tools))

        parts = self._server_parts(model)
        refs = [ref for part in parts for ref in part.refs]
        reserved = frozenset(native.name for native in natives)
        names = plain_names(((p.by_ref, p.by_base, p.longest) for p in parts), reserved)
        plain = names is not None
        if names is None:
            bases = [base for part in parts for base in part.by_ref.values()]
            names = allocate_distinct(refs, reserved, bases)

        room = max(0, budget - len(natives))
        tools = list(natives)
        wire_of = names.by_identity
        tokens: _TokenFit | None = None
        if token_budget is not None:
            count = partial(self._counter.count_tool, family=self._family, may_load=may_load)
            native = self._natives_tokens(natives, may_load)
            tokens = _fit_tokens(count, native, parts, wire_of, plain, token_budget, room)
            room = tokens.room
        for part in parts:
            if len(tools) - len(natives) >= room:
                break
            tools += _wire_tools(part, wire_of, plain)
        del tools[len(natives) + room :]
        trimmed = tuple(refs[room:])
        if trimmed == self._trimmed:
            # The same object as last time, so consumers' caches keyed on it stay valid.
            trimmed = self._trimmed
        else:
            self._trimmed = trimmed
            self._grouped = _group_parts(parts, room, self._grouped)
        total_requested = len(natives) + len(refs)
        over_by = max(0, total_requested - budget)
        tokens_over_by = 0 if tokens is None else max(0, tokens.requested - tokens.budget)
        over = over_by > 0 or tokens_over_by > 0
        warning = None
        if over:
            warning = budget_warning(
                over_by,
                budget,
                len(trimmed),
                len(natives),
                tokens_over_by=tokens_over_by,
                token_budget=token_budget,
                native_tokens=0 if tokens is None else tokens.native,
            )
        return assemble_catalog(
            self._grouped,
            tools=tuple(tools),
            budget=budget,
            total_requested=total_requested,
            trimmed=trimmed,
            over_budget=over,
            over_by=over_by,
            token_budget=token_budget,
            tokens_requested=None if tokens is None else tokens.requested,
            tokens_shipped=None if tokens is None else tokens.shipped,
            tokens_over_by=tokens_over_by,
            names=names,
            warning=warning,
            needs_tasks=tuple(ref for part in parts for ref in part.needs_tasks),
        )

    def _native_wire_tools(self, native_tools: tuple[NativeTool, ...]) -> tuple[WireTool, ...]:
        cached = self._natives
        if cached is None or cached[0] != native_tools:
            wire = tuple(
                WireTool(
                    name=native.name,
                    server=None,
                    tool=native.name,
                    description=native.description,
                    input_schema=native.input_schema,
                )
                for native in native_tools
            )
            cached = self._natives = (native_tools, wire)
        return cached[1]

    def _natives_tokens(self, natives: tuple[WireTool, ...], may_load: bool) -> int:
        kept = self._native_tokens
        if kept is None or kept[0] is not natives:
            total = self._counter.total(natives, self._family, may_load=may_load)
            kept = self._native_tokens = (natives, total)
        return kept[1]

    def _server_parts(self, model: PluginModel) -> list[_ServerPart]:
        """The connected servers' parts in priority order (see the module docstring)."""
        previous = self._parts
        current: dict[str, tuple[_ServerPart, ...]] = {}
        servers = [server for server in model.servers if server.status == "connected"]
        if any(server.priority for server in servers):
            servers.sort(key=_by_priority)  # stable: config order among equals
        for server in servers:
            parts = previous.get(server.name)
            if parts is None or parts[0].revision != server.revision:
                old = parts
                parts = _server_part(server)
                if old is not None:
                    inherited = _inherited(old)
                    for part in parts:
                        part.inherited = inherited
            current[server.name] = parts
        self._parts = current
        ordered = [part for parts in current.values() for part in parts]
        if any(part.pinned for part in ordered):
            ordered = [p for p in ordered if p.pinned] + [p for p in ordered if not p.pinned]
        return ordered


def _by_priority(server: ServerState) -> int:
    return -server.priority


def _inherited(
    old: tuple[_ServerPart, ...],
) -> tuple[tuple[ToolState, ...], dict[int, int]] | None:
    """What a server's new parts inherit from its previous ones (their counts by state)."""
    kept = [part.by_state for part in old if part.by_state is not None]
    if len(kept) == 1:
        return kept[0]
    if not kept:
        return None
    states = tuple(state for part in kept for state in part[0])
    return states, {key: count for part in kept for key, count in part[1].items()}


@dataclass(frozen=True, slots=True)
class _TokenFit:
    """What the token budget leaves room for."""

    budget: int
    """The token budget applied."""
    room: int
    """How many MCP tools, from the highest priority down, ship: those that fit in the token
    budget after the natives, at most the count budget's room."""
    shipped: int
    """Tokens of the natives and of those ``room`` tools."""
    requested: int
    """Tokens of the natives and every requested MCP tool."""
    native: int
    """Tokens of the natives alone."""


def _fit_tokens(
    count: Callable[[WireTool], int],
    native: int,
    parts: Sequence[_ServerPart],
    wire_of: Mapping[ToolRef, str],
    plain: bool,
    budget: int,
    count_room: int,
) -> _TokenFit:
    """The longest run of MCP tools in priority order, at most ``count_room`` of them, whose
    tokens fit beside the natives' (``native`` tokens).

    Every requested tool is counted (the warning says by how much the whole is over); each
    count after a definition's first is a dictionary look-up, and a server that fits whole is
    added as one sum.
    """
    requested = shipped_tokens = native
    room = 0
    cut = False  # whether the run has ended (a tool did not fit, or the count budget is full)
    for part in parts:
        kept = part.tokens
        if plain and kept is not None and kept[0] is part.wire_tools:
            # An unchanged server under plain names: its counts and sum as last time, without
            # the two calls that would find them (most servers, on a toggle's re-projection).
            counts, total = kept[1], kept[2]
        else:
            counts, total = _part_tokens(count, part, _wire_tools(part, wire_of, plain))
        requested += total
        if cut:
            continue
        if shipped_tokens + total <= budget and room + len(counts) <= count_room:
            shipped_tokens += total
            room += len(counts)
            continue
        # The run ends inside this server: after the last of its tools that still fits.
        cut = True
        # Running sums (made in C): the tools that fit are those whose sum stays in budget.
        sums = list(accumulate(counts[: max(0, count_room - room)]))
        fit = bisect_right(sums, budget - shipped_tokens)
        if fit:
            shipped_tokens += sums[fit - 1]
            room += fit
    return _TokenFit(
        budget=budget, room=room, shipped=shipped_tokens, requested=requested, native=native
    )


def _part_tokens(
    count: Callable[[WireTool], int], part: _ServerPart, tools: tuple[WireTool, ...]
) -> tuple[tuple[int, ...], int]:
    """The counts of ``tools`` (the part's wire tools, each counted by ``count``) and their
    sum, kept on the part."""
    kept = part.tokens
    if kept is not None and kept[0] is tools:
        return kept[1], kept[2]
    plain = tools is part.wire_tools  # each tool under its qualified name: counts carry over
    inherited = part.inherited if plain else None
    if inherited is not None:
        # A toggle's re-projection: the server's other tools are the very states counted
        # before, each found by a dictionary look-up made in C.
        found = list(map(inherited[1].get, map(id, part.states)))
        if None in found:
            for i, tokens in enumerate(found):
                if tokens is None:
                    found[i] = count(tools[i])
        counts: tuple[int, ...] = tuple(found)  # type: ignore[arg-type]
    else:
        counts = tuple(map(count, tools))
    # Counted (a count not kept raises before this): the previous part's states may go now.
    part.inherited = None
    if plain:
        part.by_state = (part.states, dict(zip(map(id, part.states), counts, strict=True)))
    total = sum(counts)
    part.tokens = (tools, counts, total)
    return counts, total


def _group_parts(
    parts: Sequence[_ServerPart], room: int, previous: Mapping[str, frozenset[str]]
) -> dict[str, frozenset[str]]:
    """``_group`` of the tools past ``room``, reusing each server's set where it is unchanged.

    A server trimmed whole gets its part's set (the same object while its tools are); the one
    server cut in two gets a new set unless it equals the previous one. Keeping the objects lets
    the picker's row memo compare a server's trimmed set by identity.
    """
    grouped: dict[str, frozenset[str]] = {}
    seen = 0
    for part in parts:
        count = len(part.refs)
        if seen + count > room and count:
            server = part.refs[0].server
            cut = max(0, room - seen)
            if cut == 0:
                if part.bares is None:
                    part.bares = frozenset(ref.tool for ref in part.refs)
                bares = part.bares
            elif part.cut is not None and part.cut[0] == cut:
                bares = part.cut[1]  # cut where it was last time: the same set
            else:
                bares = frozenset(ref.tool for ref in part.refs[cut:])
                part.cut = (cut, bares)
            if server in grouped:  # its pinned part was trimmed too: one set of both
                bares = grouped[server] | bares
            old = previous.get(server)
            # Identity first: a set kept from last time is not compared member by member.
            grouped[server] = old if old is bares or old == bares else bares
        seen += count
    return grouped


def _server_part(server: ServerState) -> tuple[_ServerPart, ...]:
    """The server's part, or two when some of its tools are pinned and some not (pinned
    first)."""
    requested: dict[ToolRef, ToolState] = {}
    name = server.name
    needs_tasks: list[ToolRef] = []
    for state in server.tools:
        if state.enabled:
            if state.needs_tasks:  # every call without task support fails: not requested
                needs_tasks.append(ToolRef(name, state.bare))
            else:
                requested.setdefault(ToolRef(name, state.bare), state)
    everything = server.priority > 0
    pinned = {ref: state for ref, state in requested.items() if everything or state.pinned}
    if not pinned or len(pinned) == len(requested):
        return (_part(server, requested, tuple(needs_tasks), pinned=bool(pinned)),)
    rest = {ref: state for ref, state in requested.items() if ref not in pinned}
    return (
        _part(server, pinned, tuple(needs_tasks), pinned=True),
        _part(server, rest, (), pinned=False),
    )


def _part(
    server: ServerState,
    requested: Mapping[ToolRef, ToolState],
    needs_tasks: tuple[ToolRef, ...],
    *,
    pinned: bool,
) -> _ServerPart:
    refs = tuple(requested)
    bases = tuple(qualified_name(server.name, ref.tool) for ref in refs)
    return _ServerPart(
        revision=server.revision,
        refs=refs,
        states=tuple(requested.values()),
        by_ref=dict(zip(refs, bases, strict=True)),
        by_base=dict(zip(bases, refs, strict=True)),
        longest=max(map(len, bases), default=0),
        needs_tasks=needs_tasks,
        pinned=pinned,
    )


def _wire_tools(
    part: _ServerPart, wire_of: Mapping[ToolRef, str], all_plain: bool
) -> tuple[WireTool, ...]:
    """The part's tools under the names of this allocation (cached while those are plain)."""
    plain = all_plain or all(wire_of[ref] is base for ref, base in part.by_ref.items())
    if plain and part.wire_tools is not None:
        return part.wire_tools
    # Trusted values straight from the model: skip validation in the one loop that can be long.
    construct = WireTool.model_construct
    built = tuple(
        construct(
            name=wire_of[ref],
            server=ref.server,
            tool=ref.tool,
            description=state.description or "",
            input_schema=state.input_schema,
        )
        for ref, state in zip(part.refs, part.states, strict=True)
    )
    if plain:
        part.wire_tools = built
    return built
