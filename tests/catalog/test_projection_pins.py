"""Pins and priorities in the projection: pinned tools are trimmed only after every unpinned
one, servers of a higher priority come first, the order is deterministic, under the count
budget, the token budget and a host's ceiling alike."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agentty_tui.catalog import CatalogProjector, project_catalog
from agentty_tui.model import NativeTool, PluginModel, ServerState, StdioSpec, ToolState


def _server(name: str, tools: str, pinned: str = "", priority: int = 0) -> ServerState:
    return ServerState(
        name=name,
        spec=StdioSpec(command="x"),
        status="connected",
        priority=priority,
        tools=tuple(
            ToolState(bare=bare, enabled=True, pinned=bare in pinned, description=f"{bare} " * 5)
            for bare in tools
        ),
    )


def _model(*servers: ServerState, budget: int = 128, tokens: int | None = None) -> PluginModel:
    return PluginModel(
        servers=servers,
        tool_budget=budget,
        tool_token_budget=tokens,
        native_tools=(NativeTool(name="read"),),
    )


def _shipped(model: PluginModel) -> list[str]:
    catalog = project_catalog(model)
    return [f"{tool.server}.{tool.tool}" for tool in catalog.tools if tool.server]


def test_pinned_tools_come_first_and_are_trimmed_last() -> None:
    """b.y is pinned: it ships before every unpinned tool, and with room for two MCP tools
    it is kept while a.p and a.q (earlier servers, unpinned) go."""
    model = _model(_server("a", "pq"), _server("b", "xy", pinned="y"))
    assert _shipped(model) == ["b.y", "a.p", "a.q", "b.x"]
    tight = model.model_copy(update={"tool_budget": 3})
    assert _shipped(tight) == ["b.y", "a.p"]
    assert [ref.tool for ref in project_catalog(tight).trimmed] == ["q", "x"]


def test_a_servers_priority_orders_servers_and_above_zero_pins_all_its_tools() -> None:
    model = _model(
        _server("low", "l", priority=-1),
        _server("plain", "p"),
        _server("top", "tu", priority=2),
        _server("pinned", "k", pinned="k"),
    )
    # Pinned first (top's by its priority, then pinned's), then the rest by priority.
    assert _shipped(model) == ["top.t", "top.u", "pinned.k", "plain.p", "low.l"]
    only_two = model.model_copy(update={"tool_budget": 3})
    assert _shipped(only_two) == ["top.t", "top.u"]


def test_the_token_budget_trims_pinned_tools_last_too() -> None:
    model = _model(_server("a", "pq"), _server("b", "xy", pinned="y"))
    everything = project_catalog(model, token_budget=1_000_000).tokens_shipped
    assert everything is not None
    catalog = project_catalog(model, token_budget=everything - 1)
    assert [ref.tool for ref in catalog.trimmed] == ["x"]  # the last unpinned tool goes first


_TOOLS = st.lists(st.sampled_from("abcdef"), min_size=0, max_size=6, unique=True)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(_TOOLS, _TOOLS, st.integers(-1, 2)), min_size=1, max_size=4),
    st.integers(1, 20),
)
def test_every_pinned_tool_outlives_every_unpinned_one_and_the_projector_agrees(
    servers: list[tuple[list[str], list[str], int]], budget: int
) -> None:
    model = _model(
        *(
            _server(f"s{i}", "".join(tools), "".join(pins), priority)
            for i, (tools, pins, priority) in enumerate(servers)
        ),
        budget=budget,
    )
    catalog = project_catalog(model)
    pinned = {
        (s.name, t.bare) for s in model.servers for t in s.tools if t.pinned or s.priority > 0
    }
    trimmed = {(ref.server, ref.tool) for ref in catalog.trimmed}
    shipped = {(t.server, t.tool) for t in catalog.tools if t.server}
    if trimmed & pinned:
        assert shipped <= pinned  # a pinned tool goes only once every unpinned one has
    assert CatalogProjector().project(model) == catalog
    assert project_catalog(model) == catalog  # deterministic
