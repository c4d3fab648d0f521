"""The wire catalog's values: ``WireTool`` and ``WireCatalog``, what a host's model is sent.

Built by :mod:`.projection`, read by the picker, the reports and the step runtimes, which need
the values without the projection's machinery.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, TypeVar, cast

from pydantic import Field

from agentty_tui.catalog.names import ToolRef, WireNames
from agentty_tui.errors import UnknownToolError
from agentty_tui.frozen import Frozen, FrozenJson

__all__ = ["WireCatalog", "WireTool", "assemble_catalog", "budget_warning", "group_trimmed"]

_T = TypeVar("_T")


class WireTool(Frozen):
    """One tool as it goes on the wire."""

    name: str
    """Provider-safe wire name."""
    server: str | None
    """Config name of the MCP server; ``None`` for a native tool."""
    tool: str
    """Bare name: as the server advertises it, or the native tool's name."""
    description: str = ""
    """What the model reads about the tool (empty when the server gave none)."""
    input_schema: FrozenJson = Field(
        default_factory=lambda: {"type": "object"}, validate_default=True
    )
    """JSON Schema of the arguments, untouched."""

    @property
    def kind(self) -> Literal["native", "mcp"]:
        """``"native"`` for a host tool, ``"mcp"`` for a server's tool."""
        return "native" if self.server is None else "mcp"

    @property
    def ref(self) -> ToolRef | None:
        """``(server, tool)`` of an MCP tool; ``None`` for a native tool."""
        return None if self.server is None else ToolRef(self.server, self.tool)


def budget_warning(
    over_by: int,
    budget: int,
    trimmed: int,
    native: int = 0,
    *,
    tokens_over_by: int = 0,
    token_budget: int | None = None,
    native_tokens: int = 0,
) -> str:
    """The status-bar text for a catalog over its budget (of tools, of tokens or of both).

    ``native`` is how many native tools ship (``native_tokens`` what they cost); they always
    do, so when they alone exceed a budget, dropping MCP tools cannot make room and the text
    says to raise that budget instead. ``tokens_over_by`` is by how many tokens the requested
    tools exceed ``token_budget``.
    """
    overs: list[str] = []
    if over_by:
        overs.append(f"{over_by} {_tools(over_by)} over the budget of {budget}")
    if tokens_over_by and token_budget is not None:
        overs.append(f"{tokens_over_by:,} tokens over the token budget of {token_budget:,}")
    over = " and ".join(overs)
    dropped = f"{trimmed} MCP {_tools(trimmed)} {'was' if trimmed == 1 else 'were'} dropped"
    dropped += " from this session"
    if native > budget:
        return (
            f"{over} — {dropped}, and the {native} native {_tools(native)}, which always ship, "
            "exceed it on their own; raise the budget"
        )
    if token_budget is not None and native_tokens > token_budget:
        return (
            f"{over} — {dropped}, and the native tools, which always ship, take "
            f"{native_tokens:,} tokens on their own; raise the token budget"
        )
    return f"{over} — {dropped}; disable some to make room"


def _tools(count: int) -> str:
    return "tool" if count == 1 else "tools"


class WireCatalog(Frozen):
    """What goes on the wire for one snapshot, and what did not fit."""

    tools: tuple[WireTool, ...] = ()
    """Native tools, then the shipped MCP tools in priority order."""
    budget: int
    """How many tools (native + MCP) may go on the wire."""
    total_requested: int
    """Native tools plus every enabled tool of every connected server."""
    trimmed: tuple[ToolRef, ...] = ()
    """Enabled MCP tools that did not fit, in priority order (the last is the least wanted)."""
    over_budget: bool = False
    """``total_requested > budget``, or the requested tools' tokens over ``token_budget``."""
    over_by: int = 0
    """``total_requested - budget`` when over budget, else 0."""
    token_budget: int | None = None
    """How many tokens the shipped tools' definitions may take (counted in
    :data:`~agentty_tui.catalog.tokens.DEFAULT_FAMILY`); ``None``: no token budget applied."""
    tokens_requested: int | None = None
    """Tokens of the native tools plus every requested MCP tool, when a token budget was
    applied (``None`` otherwise: the projection counted nothing)."""
    tokens_shipped: int | None = None
    """Tokens of the shipped tools (natives included), when a token budget was applied."""
    tokens_over_by: int = 0
    """``tokens_requested - token_budget`` when that is over, else 0."""
    names: WireNames = Field(default_factory=WireNames)
    """Wire names of every requested MCP tool, shipped or trimmed."""
    warning: str | None = None
    """Status-bar text when over budget, else ``None``."""
    needs_tasks: tuple[ToolRef, ...] = ()
    """Enabled tools of connected servers that run only as tasks (``execution.taskSupport:
    "required"``): not on the wire, since every call of a client without task support fails;
    listed as trimmed tools are, never counted against a budget."""

    def _index(self, key: str, source: object, build: Callable[[], _T]) -> _T:
        # A lazily built lookup table, cached in the instance dict (which pydantic leaves out of
        # equality, repr and serialization) together with the field value it was built from, so
        # that a model_copy(update=...) never sees a stale table.
        entry = self.__dict__.get(key)
        if entry is None or entry[0] is not source:
            entry = (source, build())
            self.__dict__[key] = entry
        return cast("_T", entry[1])

    def _trimmed_set(self) -> frozenset[ToolRef]:
        return self._index("_trimmed_set_cache", self.trimmed, lambda: frozenset(self.trimmed))

    def _by_wire(self) -> dict[str, WireTool]:
        return self._index("_by_wire_cache", self.tools, lambda: {t.name: t for t in self.tools})

    def trimmed_by_server(self) -> Mapping[str, frozenset[str]]:
        """The trimmed tools grouped by server, ``{server: {bare, ...}}`` (built once)."""
        return self._index("_by_server_cache", self.trimmed, lambda: group_trimmed(self.trimmed))

    def trimmed_by(self) -> str:
        """Which budgets trimmed tools, in words: ``the tool budget of 128``, ``the token
        budget of 20,000``, or both joined by ``and`` (each one the requested tools are over)."""
        budgets = []
        if self.total_requested > self.budget:
            budgets.append(f"the tool budget of {self.budget:,}")
        if self.tokens_over_by > 0 and self.token_budget is not None:
            budgets.append(f"the token budget of {self.token_budget:,}")
        return " and ".join(budgets) or f"the tool budget of {self.budget:,}"

    def is_trimmed(self, server: str, tool: str) -> bool:
        """Whether this enabled tool was dropped for the budget (constant time)."""
        return ToolRef(server, tool) in self._trimmed_set()

    def resolve(self, wire_name: str) -> ToolRef:
        """``(server, tool)`` of an MCP wire name; ``UnknownToolError`` otherwise (natives too)."""
        return self.names.resolve(wire_name)

    def wire_name(self, server: str, tool: str) -> str:
        """The wire name of an enabled tool of a connected server; ``UnknownToolError`` if none."""
        return self.names.wire(server, tool)

    def tool(self, wire_name: str) -> WireTool:
        """The shipped tool (native or MCP) of this wire name; ``UnknownToolError`` if none."""
        try:
            return self._by_wire()[wire_name]
        except KeyError:
            raise UnknownToolError(None, wire_name) from None

    def is_native(self, wire_name: str) -> bool:
        """Whether ``wire_name`` is a shipped native tool."""
        found = self._by_wire().get(wire_name)
        return found is not None and found.server is None

    @property
    def shipped_mcp_count(self) -> int:
        """How many MCP tools are on the wire."""
        return len(self.names) - len(self.trimmed)


def assemble_catalog(grouped: Mapping[str, frozenset[str]], **fields: Any) -> WireCatalog:
    """A ``WireCatalog`` of trusted, already projected ``fields``, its trimmed tools already
    grouped by server (``grouped``, which must equal ``group_trimmed(fields["trimmed"])``).

    For the projector, which keeps each server's group from one snapshot to the next so that a
    consumer comparing them (the picker's row memo) finds the same objects.
    """
    catalog = WireCatalog.model_construct(**fields)
    catalog._index("_by_server_cache", catalog.trimmed, lambda: grouped)
    return catalog


def group_trimmed(trimmed: Sequence[ToolRef]) -> dict[str, frozenset[str]]:
    """Trimmed tools grouped by server: ``{server: {bare, ...}}``, in one pass."""
    grouped: dict[str, list[str]] = {}
    for server, bare in trimmed:
        grouped.setdefault(server, []).append(bare)
    return {server: frozenset(bares) for server, bares in grouped.items()}
