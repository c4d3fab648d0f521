"""Each server's token counts (``catalog/tool_costs.py``): per tool, per server, kept by the
server's revision, a toggle counting only the toggled tool."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agentty_tui.catalog import (
    DEFAULT_FAMILY,
    TOKEN_COUNTER,
    FamilyName,
    TokenCounter,
    project_catalog,
)
from agentty_tui.catalog.token_cache import TokenCache
from agentty_tui.catalog.tool_costs import CostBook
from agentty_tui.model import NativeTool, PluginModel, ServerState, StdioSpec, ToolState

SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}}


def _server(name: str, *tools: tuple[str, str, bool]) -> ServerState:
    return ServerState(
        name=name,
        spec=StdioSpec(command="x"),
        status="connected",
        tools=tuple(
            ToolState(bare=bare, enabled=on, description=text, input_schema=SCHEMA)
            for bare, text, on in tools
        ),
    )


def _model(*servers: ServerState) -> PluginModel:
    return PluginModel(servers=servers, native_tools=(NativeTool(name="read"),))


def test_each_tool_is_its_definitions_count_and_a_server_the_sum_of_those_on() -> None:
    model = _model(_server("notes", ("add", "adds a note", True), ("drop", "word " * 30, False)))
    book = CostBook()
    assert book.of(model.servers[0]) is None and book.missing(model)
    assert book.count(model) and not book.missing(model)
    cost = book.of(model.servers[0])
    assert cost is not None
    add = TOKEN_COUNTER.count("mcp__notes__add", "adds a note", SCHEMA)
    drop = TOKEN_COUNTER.count("mcp__notes__drop", "word " * 30, SCHEMA)
    assert dict(cost.tools) == {"add": add, "drop": drop}
    assert cost.enabled == add
    openai = CostBook()
    openai.count(model, "openai")
    assert openai.of(model.servers[0]) is None  # counted in another family only
    other = openai.of(model.servers[0], "openai")
    assert other is not None
    assert other.tools["add"] == TOKEN_COUNTER.count(
        "mcp__notes__add", "adds a note", SCHEMA, "openai"
    )


def test_the_total_of_a_catalog_is_its_token_budgets_figure() -> None:
    """What the status bar shows from the counts equals what the projection counts for a
    token budget (natives included)."""
    model = _model(
        _server("a", ("one", "first", True), ("two", "second " * 9, True)),
        _server("b", ("three", "third", True), ("off", "never", False)),
    )
    catalog = project_catalog(model, token_budget=1_000_000)
    book = CostBook()
    assert book.total(model, catalog) is None  # nothing counted yet
    book.count(model)
    assert book.total(model, catalog) == catalog.tokens_shipped
    tight = project_catalog(model, budget=3, token_budget=1_000_000)  # b's tool trimmed
    assert book.total(model, tight) == tight.tokens_shipped
    natives = TOKEN_COUNTER.total(t for t in tight.tools if t.server is None)
    assert book.total(model, tight, natives=False) == (tight.tokens_shipped or 0) - natives


class _Spy(TokenCounter):
    def __init__(self) -> None:
        super().__init__()
        self.asked: list[str] = []

    def count(
        self,
        name: str,
        description: str,
        input_schema: Mapping[str, Any],
        family: FamilyName = DEFAULT_FAMILY,
        *,
        may_load: bool = True,
    ) -> int:
        self.asked.append(name)
        return super().count(name, description, input_schema, family, may_load=may_load)


def test_a_toggle_counts_only_the_toggled_tool_and_gone_servers_are_forgotten() -> None:
    spy = _Spy()
    book = CostBook(spy)
    server = _server("s", *((f"t{i}", f"tool {i}", True) for i in range(30)))
    book.count(_model(server))
    assert len(spy.asked) == 30
    spy.asked.clear()
    first = server.tools[0].model_copy(update={"enabled": False})
    toggled = server.model_copy(update={"tools": (first, *server.tools[1:])})
    assert book.of(toggled) is None  # a new revision: not counted yet
    book.count(_model(toggled))
    assert spy.asked == ["mcp__s__t0"]
    cost = book.of(toggled)
    before = TOKEN_COUNTER.count("mcp__s__t0", "tool 0", SCHEMA)
    assert cost is not None and cost.enabled == sum(cost.tools.values()) - before
    book.count(_model())
    assert book.of(toggled) is None


def test_a_server_not_counted_leaves_the_total_unknown() -> None:
    model = _model(_server("a", ("one", "first", True)))
    book = CostBook()
    book.count(model)
    later = _model(*model.servers, _server("b", ("x", "y", True)))
    assert book.total(later, project_catalog(later)) is None


def test_carry_counts_a_toggled_server_at_once_and_a_new_one_never() -> None:
    """``carry`` (the UI thread's) brings a toggled server's counts up to date with one
    look-up; a server never counted is left to ``count`` (the worker's)."""
    spy = _Spy()
    spy.warm()
    book = CostBook(spy)
    server = _server("s", *((f"t{i}", f"tool {i}", True) for i in range(10)))
    book.count(_model(server))
    first = server.tools[0].model_copy(update={"enabled": False})
    toggled = server.model_copy(update={"tools": (first, *server.tools[1:])})
    fresh = _server("new", ("x", "y", True))
    spy.asked.clear()
    book.carry(_model(toggled, fresh))
    assert spy.asked == ["mcp__s__t0"]
    assert book.of(toggled) is not None and book.of(fresh) is None


def test_what_a_book_counts_is_kept_and_another_process_counts_it_without_the_encoding(
    tmp_path: Path,
) -> None:
    """The picker's counts go to the counts kept across processes (``token_cache.py``), the
    same as ``list --json``'s: a later picker's book counts the same servers from them."""
    model = _model(_server("notes", ("add", "adds a note", True), ("drop", "word " * 30, False)))
    path = tmp_path / "counts.bin"
    first = CostBook(TokenCounter(TokenCache(path)))
    assert first.count(model)
    assert path.is_file()
    later = CostBook(TokenCounter(TokenCache(path)))
    assert later.count(model)
    assert not later.counter.ready  # every count was kept: no encoding loaded
    before, after = first.of(model.servers[0]), later.of(model.servers[0])
    assert before is not None and after is not None
    assert dict(after.tools) == dict(before.tools) and after.enabled == before.enabled
