"""Token counts of tool definitions: the documented serialisation, counted by the tokenizer,
each distinct definition once, and the token budget's trimming beside the count budget."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import quicktok

from agentty_tui.catalog import (
    DEFAULT_FAMILY,
    FAMILIES,
    TOKEN_COUNTER,
    CatalogProjector,
    CountNotKept,
    FamilyName,
    TokenCounter,
    WireTool,
    project_catalog,
    tool_definition,
)
from agentty_tui.catalog.token_cache import TokenCache
from agentty_tui.model import NativeTool, PluginModel, ServerState, StdioSpec, ToolState

SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string", "description": "Which file, é ünïcode"}},
    "required": ["path"],
}


def _o200k(text: str) -> int:
    return len(quicktok.get_encoding("o200k_base").encode(text))


def test_each_family_serialises_the_entry_its_api_receives() -> None:
    """Claude's entry is name, description, input_schema; OpenAI's a typed function with
    parameters; compact JSON, non-ASCII kept as it is."""
    claude = tool_definition(FAMILIES["claude"], "mcp__s__read", "Reads.", SCHEMA)
    openai = tool_definition(FAMILIES["openai"], "mcp__s__read", "Reads.", SCHEMA)
    assert json.loads(claude) == {
        "name": "mcp__s__read",
        "description": "Reads.",
        **{"input_schema": SCHEMA},
    }
    assert list(json.loads(openai)) == ["type", "name", "description", "parameters"]
    assert json.loads(openai)["parameters"] == SCHEMA
    assert " " not in claude.replace("Which file, é ünïcode", "")
    assert "ünïcode" in claude  # not \\u-escaped: the provider counts the characters


@pytest.mark.parametrize("family", ["claude", "openai"])
def test_count_is_the_tokenizers_count_of_the_serialisation(family: str) -> None:
    """A tool's count equals the o200k tokenizer's own count of its documented text."""
    counter = TokenCounter()
    tool = WireTool(
        name="mcp__s__read",
        server="s",
        tool="read",
        description="Reads a file.",
        input_schema=SCHEMA,
    )
    spec = FAMILIES[family]  # type: ignore[index]
    expected = _o200k(tool_definition(spec, tool.name, tool.description, SCHEMA))
    assert counter.count_tool(tool, spec.name) == expected
    assert counter.count(tool.name, tool.description, SCHEMA, spec.name) == expected


def test_a_lone_surrogate_is_counted_as_its_escape() -> None:
    """A description holding a lone surrogate (no UTF-8 form) is counted as the ``\\uXXXX``
    escape a request carries, instead of failing the count."""
    counter = TokenCounter()
    broken = counter.count("t", "a\ud800b", {"type": "object"}, "openai")
    escaped = counter.count("t", "a\\ud800b", {"type": "object"}, "openai")
    assert broken == escaped > 0


def test_a_definition_is_counted_once() -> None:
    """Counting the same definition again, as another object (a reload), asks the tokenizer
    nothing: a toggle or a reload recounts nothing that did not change."""
    counter = TokenCounter()
    first = WireTool(name="a", server="s", tool="a", description="x" * 50)
    counter.count_tool(first)
    calls: list[str] = []

    class Spy:
        def count(self, text: str) -> int:
            calls.append(text)
            return 0

    counter._encodings["o200k_base"] = Spy()
    again = WireTool(name="a", server="s", tool="a", description="x" * 50)
    assert counter.count_tool(first) == counter.count_tool(again) > 0
    assert calls == []
    changed = WireTool(name="a", server="s", tool="a", description="y" * 50)
    counter.count_tool(changed)
    assert len(calls) == 1


def _model(*tools: tuple[str, str], budget: int = 128, tokens: int | None = None) -> PluginModel:
    server = ServerState(
        name="s",
        spec=StdioSpec(command="x"),
        status="connected",
        tools=tuple(ToolState(bare=bare, enabled=True, description=text) for bare, text in tools),
    )
    return PluginModel(
        servers=(server,),
        tool_budget=budget,
        tool_token_budget=tokens,
        native_tools=(NativeTool(name="read"),),
    )


def _cost(name: str, description: str) -> int:
    return TOKEN_COUNTER.count(name, description, {"type": "object"})


TOOLS = (("a", "short"), ("b", "word " * 40), ("c", "word " * 40), ("d", "tiny"))


def test_token_budget_trims_lowest_priority_first_and_says_by_how_much() -> None:
    """The run of tools that fits in the token budget ships; the rest, from the first that
    does not fit, is trimmed (priority order kept: no later, smaller tool jumps the queue)."""
    native = _cost("read", "")
    a, b, c, d = (_cost(f"mcp__s__{bare}", text) for bare, text in TOOLS)
    budget = native + a + b + c - 1  # c does not fit; d would, but comes after it
    catalog = project_catalog(_model(*TOOLS, tokens=budget))
    assert [tool.tool for tool in catalog.tools] == ["read", "a", "b"]
    assert [ref.tool for ref in catalog.trimmed] == ["c", "d"]
    assert catalog.tokens_requested == native + a + b + c + d
    assert catalog.tokens_shipped == native + a + b
    over = native + a + b + c + d - budget
    assert catalog.over_budget and catalog.tokens_over_by == over and catalog.over_by == 0
    assert catalog.warning == (
        f"{over:,} tokens over the token budget of {budget:,} — 2 MCP tools were dropped "
        "from this session; disable some to make room"
    )
    assert catalog.trimmed_by() == f"the token budget of {budget:,}"  # not the tool budget


def test_both_budgets_the_tighter_one_wins_and_both_are_named() -> None:
    """Over the count budget and the token budget at once: the stricter cut applies, and the
    warning names both budgets with their excess, as ``trimmed_by`` does (a trimmed tool's
    details say it)."""
    native = _cost("read", "")
    a, b, c, d = (_cost(f"mcp__s__{bare}", text) for bare, text in TOOLS)
    by_count = project_catalog(_model(*TOOLS, budget=2, tokens=native + a + b + c + d - 1))
    assert [tool.tool for tool in by_count.tools] == ["read", "a"]
    assert by_count.warning is not None
    assert by_count.warning.startswith("3 tools over the budget of 2 and 1 tokens over the token")
    assert by_count.tokens_shipped == native + a  # the count budget's cut, not the tokens'
    assert by_count.trimmed_by() == "the tool budget of 2 and the token budget of " + (
        f"{native + a + b + c + d - 1:,}"
    )
    by_tokens = project_catalog(_model(*TOOLS, budget=4, tokens=native + a))
    assert [tool.tool for tool in by_tokens.tools] == ["read", "a"]
    assert by_tokens.over_by == 1 and by_tokens.tokens_over_by == b + c + d


def test_no_token_budget_counts_nothing_and_natives_alone_over_it_say_raise() -> None:
    """Without a token budget the projection leaves the counts alone; natives that exceed it
    on their own ship anyway and the warning says to raise the token budget."""
    plain = project_catalog(_model(*TOOLS))
    assert plain.tokens_requested is None and plain.token_budget is None
    catalog = project_catalog(_model(*TOOLS, tokens=1))
    assert [tool.tool for tool in catalog.tools] == ["read"]
    assert catalog.warning is not None and catalog.warning.endswith("raise the token budget")
    with pytest.raises(ValueError, match="token budget"):
        project_catalog(_model(*TOOLS), token_budget=-1)


def test_projector_with_token_budget_equals_a_fresh_projection() -> None:
    """The projector's reuse of unchanged servers gives the same catalog with a token budget."""
    projector = CatalogProjector()
    for tokens in (None, 10_000, 30, 120):
        model = _model(*TOOLS, tokens=tokens)
        assert projector.project(model) == project_catalog(model)


def test_a_projection_that_may_not_load_takes_kept_counts_or_raises(tmp_path: Path) -> None:
    """``may_load=False``: with every definition kept by an earlier counter the token budget
    applies as with the encoding, which stays unloaded; one definition not kept raises
    ``CountNotKept`` (nothing loaded), and the same projector then projects it in full."""
    path = tmp_path / "counts.bin"
    model = _model(*TOOLS, tokens=_cost("read", "") + _cost("mcp__s__a", "short"))
    earlier = TokenCounter(TokenCache(path))
    expected = CatalogProjector(earlier).project(model)
    assert expected.trimmed and earlier.save()
    counter = TokenCounter(TokenCache(path))
    projector = CatalogProjector(counter)
    assert projector.project(model, may_load=False) == expected
    assert not counter.ready  # every count was kept: the encoding was not loaded
    grown = _model(*TOOLS, ("e", "a definition never counted"), tokens=expected.token_budget)
    with pytest.raises(CountNotKept):
        projector.project(grown, may_load=False)
    assert not counter.ready
    assert projector.project(grown) == project_catalog(grown)
    assert counter.ready  # the missing count loaded it
    assert projector.project(grown, may_load=False) == project_catalog(grown)  # loaded: counts


@pytest.mark.parametrize("count_budget", [1, 3, 5, 128])
def test_every_token_budget_ships_the_longest_run_that_fits(count_budget: int) -> None:
    """For every token budget from nothing to everything, with several count budgets: the
    shipped tools' tokens fit (or only the natives ship), the next tool in priority order would
    not fit in one of the two budgets, and ``tokens_shipped`` is their sum."""
    native = _cost("read", "")
    costs = [_cost(f"mcp__s__{bare}", text) for bare, text in TOOLS]
    for budget in range(0, native + sum(costs) + 2):
        catalog = project_catalog(_model(*TOOLS, budget=count_budget, tokens=budget))
        shipped = len(catalog.tools) - 1
        assert catalog.tokens_shipped == native + sum(costs[:shipped])
        assert catalog.tokens_shipped <= budget or shipped == 0
        if shipped < len(costs):
            next_cost = costs[shipped]
            full = shipped + 1 >= count_budget
            assert full or catalog.tokens_shipped + next_cost > budget


class _CountingCounter(TokenCounter):
    """A counter that records which tools it was asked about one by one."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[str] = []

    def count_tool(
        self, tool: WireTool, family: FamilyName = DEFAULT_FAMILY, *, may_load: bool = True
    ) -> int:
        self.asked.append(tool.tool)
        return super().count_tool(tool, family, may_load=may_load)


def _toggled(model: PluginModel, bare: str) -> PluginModel:
    server = model.servers[0]
    tools = tuple(
        tool.model_copy(update={"enabled": not tool.enabled}) if tool.bare == bare else tool
        for tool in server.tools
    )
    return model.model_copy(update={"servers": (server.model_copy(update={"tools": tools}),)})


def test_a_toggle_asks_only_for_the_toggled_tool_and_equals_a_fresh_projection() -> None:
    """After a toggle the server's other tools' counts carry over from its previous share (no
    look-up per tool); the toggled tool alone is asked about, and the catalog is the one a
    fresh projection gives, for budgets that fit everything, cut the server and trim it all."""
    many = tuple((f"t{i}", f"tool {i} " * (i % 7 + 1)) for i in range(40))
    everything = sum(_cost(f"mcp__s__{bare}", text) for bare, text in many)
    for tokens in (everything * 2, everything // 2, 1):
        counter = _CountingCounter()
        projector = CatalogProjector(counter)
        model = _model(*many, tokens=tokens)
        projector.project(model)
        for step, bare in enumerate(("t3", "t3", "t17", "t39", "t0")):
            model = _toggled(model, bare)
            counter.asked.clear()
            assert projector.project(model) == project_catalog(model), (tokens, step)
            assert counter.asked in ([], [bare]), (tokens, step, counter.asked)


def _server(name: str, tools: tuple[tuple[str, str], ...]) -> ServerState:
    return ServerState(
        name=name,
        spec=StdioSpec(command="x"),
        status="connected",
        tools=tuple(ToolState(bare=bare, enabled=True, description=text) for bare, text in tools),
    )


def test_a_kept_servers_counts_are_not_reused_once_its_wire_names_change() -> None:
    """A server's counts kept under its plain names are read straight off its part on the next
    projection only while the names are still plain: a newcomer whose names clash renames it,
    and its tools are counted under the new names, as a fresh projection counts them."""
    dotted = _server("s.t", TOOLS)
    projector = CatalogProjector()

    def model(*servers: ServerState) -> PluginModel:
        return PluginModel(servers=servers, tool_budget=128, tool_token_budget=10_000)

    assert projector.project(model(dotted)) == project_catalog(model(dotted))
    clashing = model(dotted, _server("s_t", TOOLS))
    catalog = projector.project(clashing)
    assert {tool.name for tool in catalog.tools if tool.server == "s.t"}.isdisjoint(
        {f"mcp__s_t__{bare}" for bare, _ in TOOLS}
    )
    assert catalog == project_catalog(clashing)


def test_the_cut_servers_trimmed_set_follows_the_cut_as_it_moves() -> None:
    """The server the token budget cuts in two keeps its trimmed set only while the cut stays
    where it was: a toggle of an earlier server moves the cut inside it, and the trimmed tools
    by server are then the fresh projection's."""
    many = tuple((f"t{i}", f"tool {i} " * 5) for i in range(12))
    heavy = (("a", "word " * 30), ("b", "word " * 30))
    first, second = _server("first", heavy), _server("second", many)
    budget = (
        _cost("read", "")
        + sum(_cost(f"mcp__first__{bare}", text) for bare, text in heavy)
        + sum(_cost(f"mcp__second__{bare}", text) for bare, text in many[:6])
    )
    projector = CatalogProjector()
    for off in ((), ("a",), (), ("a", "b"), ("b",)):
        tools = tuple(
            tool.model_copy(update={"enabled": tool.bare not in off}) for tool in first.tools
        )
        model = PluginModel(
            servers=(first.model_copy(update={"tools": tools}), second),
            tool_budget=128,
            tool_token_budget=budget,
            native_tools=(NativeTool(name="read"),),
        )
        catalog = projector.project(model)
        fresh = project_catalog(model)
        assert catalog == fresh, off
        assert catalog.trimmed_by_server() == fresh.trimmed_by_server(), off
        kept = {bare for bare, _ in many} - catalog.trimmed_by_server()["second"]
        assert kept, off  # cut inside it every time
