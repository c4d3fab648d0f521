"""The wire catalog: natives first, budget trimming by priority, stable names, resolution."""

from __future__ import annotations

import re
from collections.abc import Iterable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from agentty_tui.catalog import (
    DEFAULT_NATIVE_TOOLS,
    CatalogProjector,
    ToolRef,
    WireCatalog,
    WireTool,
    allocate_wire_names,
    is_provider_safe,
    project_catalog,
)
from agentty_tui.errors import UnknownToolError
from agentty_tui.frozen import thaw
from agentty_tui.model import (
    NativeTool,
    PluginModel,
    ServerState,
    ServerStatus,
    StdioSpec,
    ToolState,
)

SPEC = StdioSpec(command="server")
NATIVES = (NativeTool(name="read"), NativeTool(name="write", description="Write a file."))


def server(
    name: str,
    tools: Iterable[str],
    *,
    status: ServerStatus = "connected",
    off: Iterable[str] = (),
) -> ServerState:
    off = set(off)
    return ServerState(
        name=name,
        spec=SPEC,
        status=status,
        tools=tuple(
            ToolState(bare=bare, enabled=bare not in off, description=f"{bare} does things")
            for bare in tools
        ),
    )


def plugin_model(
    *servers: ServerState, budget: int = 128, natives: tuple[NativeTool, ...] = NATIVES
) -> PluginModel:
    return PluginModel(servers=servers, tool_budget=budget, native_tools=natives)


def wire_refs(catalog: WireCatalog) -> list[tuple[str | None, str]]:
    return [(tool.server, tool.tool) for tool in catalog.tools]


# --- what ships -------------------------------------------------------------------------


def test_natives_ship_first_then_mcp_tools_in_priority_order() -> None:
    model = plugin_model(server("b", ["b1", "b2"]), server("a", ["a1"]))
    catalog = project_catalog(model)
    assert wire_refs(catalog) == [
        (None, "read"),
        (None, "write"),
        ("b", "b1"),  # config order, not alphabetical
        ("b", "b2"),
        ("a", "a1"),
    ]
    assert [t.name for t in catalog.tools] == [
        "read",
        "write",
        "mcp__b__b1",
        "mcp__b__b2",
        "mcp__a__a1",
    ]
    assert catalog.tools[1].description == "Write a file."
    assert catalog.total_requested == 5
    assert not catalog.over_budget
    assert catalog.over_by == 0
    assert catalog.warning is None
    assert catalog.trimmed == ()


def test_native_tool_sources() -> None:
    bare = PluginModel(servers=(server("s", ["t"]),))
    assert [t.name for t in project_catalog(bare).tools[:-1]] == [
        n.name for n in DEFAULT_NATIVE_TOOLS
    ]
    assert [t.name for t in project_catalog(plugin_model()).tools] == ["read", "write"]
    explicit = project_catalog(plugin_model(), native_tools=[NativeTool(name="only")])
    assert [t.name for t in explicit.tools] == ["only"]
    assert project_catalog(plugin_model(), native_tools=()).tools == ()


def test_mcp_tools_carry_their_advertised_metadata() -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    state = ServerState(
        name="s",
        spec=SPEC,
        status="connected",
        tools=(
            ToolState(bare="search.web", enabled=True, description="Search.", input_schema=schema),
            ToolState(bare="quiet", enabled=True),
        ),
    )
    catalog = project_catalog(plugin_model(state))
    search, quiet = catalog.tools[2:]
    assert search == WireTool(
        name="mcp__s__search_web",
        server="s",
        tool="search.web",
        description="Search.",
        input_schema=schema,
    )
    assert search.input_schema is state.tools[0].input_schema  # passed through untouched
    assert thaw(search.input_schema) == schema
    assert quiet.description == ""
    assert search.kind == "mcp"
    assert search.ref == ToolRef("s", "search.web")
    assert catalog.tools[0].kind == "native"
    assert catalog.tools[0].ref is None


def test_natives_always_ship_even_over_budget() -> None:
    catalog = project_catalog(plugin_model(server("s", ["t1", "t2"]), budget=1))
    assert wire_refs(catalog) == [(None, "read"), (None, "write")]
    assert catalog.trimmed == (ToolRef("s", "t1"), ToolRef("s", "t2"))
    assert catalog.total_requested == 4
    assert catalog.over_by == 3


# --- the budget -------------------------------------------------------------------------


def test_budget_trims_lowest_priority_first() -> None:
    model = plugin_model(server("a", ["a1", "a2", "a3"]), server("b", ["b1", "b2", "b3"]), budget=6)
    catalog = project_catalog(model)
    assert wire_refs(catalog)[2:] == [("a", "a1"), ("a", "a2"), ("a", "a3"), ("b", "b1")]
    assert len(catalog.tools) == 6
    assert catalog.trimmed == (ToolRef("b", "b2"), ToolRef("b", "b3"))
    assert catalog.is_trimmed("b", "b3")
    assert catalog.is_trimmed("b", "b2")
    assert not catalog.is_trimmed("b", "b1")
    assert not catalog.is_trimmed("a", "a1")
    assert not catalog.is_trimmed("nope", "b2")
    assert catalog.shipped_mcp_count == 4
    assert catalog.trimmed_by_server() == {"b": frozenset({"b2", "b3"})}
    assert project_catalog(plugin_model(server("a", ["a1"]))).trimmed_by_server() == {}


def test_over_budget_warning_text_is_exact() -> None:
    model = plugin_model(server("a", ["a1", "a2", "a3"]), server("b", ["b1", "b2", "b3"]), budget=5)
    catalog = project_catalog(model)
    assert catalog.budget == 5
    assert catalog.total_requested == 8
    assert catalog.over_budget
    assert catalog.over_by == 3
    assert len(catalog.trimmed) == 3
    assert catalog.warning == (
        "3 tools over the budget of 5 — 3 MCP tools were dropped from this session; "
        "disable some to make room"
    )


def test_exactly_at_budget_is_not_over() -> None:
    catalog = project_catalog(plugin_model(server("a", ["a1", "a2"]), budget=4))
    assert len(catalog.tools) == 4
    assert catalog.trimmed == ()
    assert not catalog.over_budget
    assert catalog.over_by == 0
    assert catalog.warning is None


def test_budget_override() -> None:
    model = plugin_model(server("a", ["a1", "a2", "a3"]), budget=128)
    catalog = project_catalog(model, budget=3)
    assert catalog.budget == 3
    assert wire_refs(catalog) == [(None, "read"), (None, "write"), ("a", "a1")]
    assert catalog.trimmed == (ToolRef("a", "a2"), ToolRef("a", "a3"))
    assert project_catalog(plugin_model(server("a", ["a1"]), budget=2)).budget == 2
    with pytest.raises(ValueError, match="at least 0"):
        project_catalog(model, budget=-1)


def test_zero_budget_with_no_natives() -> None:
    catalog = project_catalog(
        plugin_model(server("a", ["a1"]), natives=()), native_tools=(), budget=0
    )
    assert catalog.tools == ()
    assert catalog.trimmed == (ToolRef("a", "a1"),)
    assert catalog.warning is not None
    assert catalog.warning == (
        "1 tool over the budget of 0 — 1 MCP tool was dropped from this session; "
        "disable some to make room"
    )


def test_a_budget_below_the_native_tools_says_so_and_the_numbers_agree() -> None:
    """Natives always ship: with a budget below them, the warning's figures add up."""
    model = plugin_model(server("a", ["a1", "a2", "a3"]), budget=1)
    catalog = project_catalog(model)
    assert len(catalog.tools) == 2  # the two natives, over the budget of 1
    assert catalog.total_requested == 5
    assert catalog.warning == (
        "4 tools over the budget of 1 — 3 MCP tools were dropped from this session, and the 2 "
        "native tools, which always ship, exceed it on their own; raise the budget"
    )


# --- what is requested at all ----------------------------------------------------------


def test_disabled_tools_are_neither_shipped_nor_trimmed() -> None:
    model = plugin_model(
        server("a", ["a1", "a2", "a3"], off=["a2"]), server("b", ["b1"], off=["b1"]), budget=3
    )
    catalog = project_catalog(model)
    assert wire_refs(catalog)[2:] == [("a", "a1")]
    assert catalog.trimmed == (ToolRef("a", "a3"),)
    assert not catalog.is_trimmed("a", "a2")
    assert catalog.total_requested == 4  # 2 natives + a1 + a3
    assert catalog.over_by == 1
    with pytest.raises(UnknownToolError):
        catalog.wire_name("a", "a2")


@pytest.mark.parametrize("status", ["failed", "connecting", "disabled"])
def test_servers_that_are_not_connected_contribute_nothing(status: ServerStatus) -> None:
    model = plugin_model(
        server("down", ["d1", "d2"], status=status), server("up", ["u1"]), budget=3
    )
    catalog = project_catalog(model)
    assert wire_refs(catalog)[2:] == [("up", "u1")]
    assert catalog.trimmed == ()
    assert catalog.total_requested == 3
    assert not catalog.over_budget
    assert len(catalog.names) == 1
    with pytest.raises(UnknownToolError):
        catalog.wire_name("down", "d1")


def test_a_tool_advertised_twice_ships_once_the_first_wins() -> None:
    tools = (
        ToolState(bare="t", enabled=True, description="first"),
        ToolState(bare="u", enabled=True),
        ToolState(bare="t", enabled=True, description="second"),
    )
    catalog = project_catalog(
        plugin_model(ServerState(name="s", spec=SPEC, status="connected", tools=tools))
    )
    assert wire_refs(catalog)[2:] == [("s", "t"), ("s", "u")]
    assert catalog.tools[2].description == "first"
    assert catalog.total_requested == 4


# --- names ------------------------------------------------------------------------------


def test_wire_names_do_not_change_with_the_budget() -> None:
    model = plugin_model(
        server("a", ["x.y", "x_y", "t" * 90]), server("a_", ["_x_y"]), server("b", ["read"])
    )
    full = project_catalog(model)
    expected = {(t.server, t.tool): t.name for t in full.tools if t.server is not None}
    assert len(expected) == 5
    for budget in range(0, 9):
        catalog = project_catalog(model, budget=budget)
        assert catalog.names == full.names
        for tool in catalog.tools:
            if tool.server is not None:
                assert tool.name == expected[(tool.server, tool.tool)]
        for ref in catalog.trimmed:
            assert catalog.wire_name(ref.server, ref.tool) == expected[ref]


def test_mcp_names_never_take_a_native_name() -> None:
    natives = (NativeTool(name="mcp__s__t"), NativeTool(name="other"))
    catalog = project_catalog(plugin_model(server("s", ["t", "u"]), natives=natives))
    names = [t.name for t in catalog.tools]
    assert len(set(names)) == len(names)
    assert re.fullmatch(r"mcp__s_[0-9a-f]{8}__t", catalog.wire_name("s", "t"))
    assert catalog.tool("mcp__s__t").server is None
    assert all(is_provider_safe(name) for name in names)


def test_resolve_and_lookup() -> None:
    model = plugin_model(server("my srv", ["a.b", "a_b"]), server("x", ["y"]), budget=3)
    catalog = project_catalog(model)
    for tool in catalog.tools:
        assert catalog.tool(tool.name) is tool
        if tool.server is None:
            assert catalog.is_native(tool.name)
            with pytest.raises(UnknownToolError):
                catalog.resolve(tool.name)
        else:
            assert not catalog.is_native(tool.name)
            assert catalog.resolve(tool.name) == ToolRef(tool.server, tool.tool)
    for ref in catalog.trimmed:  # trimmed tools keep a name, but are not on the wire
        name = catalog.wire_name(*ref)
        assert catalog.resolve(name) == ref
        with pytest.raises(UnknownToolError):
            catalog.tool(name)
    with pytest.raises(UnknownToolError):
        catalog.resolve("mcp__nope__nope")
    assert not catalog.is_native("nope")


# --- the value --------------------------------------------------------------------------


def test_catalog_is_an_immutable_value() -> None:
    model = plugin_model(server("a", ["a1", "a2"]), budget=3)
    catalog = project_catalog(model)
    assert catalog == project_catalog(model)
    with pytest.raises(ValidationError):
        catalog.budget = 10  # type: ignore[misc]
    assert isinstance(catalog.tools, tuple)
    assert isinstance(catalog.trimmed, tuple)
    assert catalog.is_trimmed("a", "a2")
    assert catalog == project_catalog(model)  # lookup caches do not affect equality
    copied = catalog.model_copy(update={"trimmed": ()})
    assert not copied.is_trimmed("a", "a2")  # and never go stale


def test_catalog_survives_a_json_round_trip() -> None:
    model = plugin_model(server("a", ["x.y", "x_y"]), server("b", ["b1"]), budget=3)
    catalog = project_catalog(model)
    again = WireCatalog.model_validate_json(catalog.model_dump_json())
    assert again == catalog
    assert again.resolve(catalog.wire_name("a", "x.y")) == ToolRef("a", "x.y")
    assert again.is_trimmed("b", "b1")


# --- native tools -----------------------------------------------------------------------


def test_default_native_tools_are_well_formed() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    names = [tool.name for tool in DEFAULT_NATIVE_TOOLS]
    assert len(set(names)) == len(names)
    assert {"read_file", "write_file", "edit_file", "run_command"} <= set(names)
    for tool in DEFAULT_NATIVE_TOOLS:
        assert is_provider_safe(tool.name)
        assert tool.description
        schema = thaw(tool.input_schema)
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object"
        assert schema["required"]
        assert set(schema["required"]) <= set(schema["properties"])


# --- scale ------------------------------------------------------------------------------


def big_model(servers: int, tools: int) -> PluginModel:
    schema = {"type": "object"}
    return PluginModel(
        servers=tuple(
            ServerState.model_construct(
                name=f"server.{s}",
                spec=SPEC,
                status="connected",
                tools=tuple(
                    ToolState.model_construct(
                        bare=f"tool.{t}", enabled=True, description="d", input_schema=schema
                    )
                    for t in range(tools)
                ),
            )
            for s in range(servers)
        )
    )


@pytest.mark.slow
def test_fifty_thousand_tools_project_correctly() -> None:
    """Correctness at scale; the speed is measured by bench/, not asserted here."""
    model = big_model(500, 100)
    catalog = project_catalog(model)
    lookups = sum(
        catalog.is_trimmed(f"server.{s}", f"tool.{t}") for s in range(500) for t in range(100)
    )
    assert len(catalog.tools) == 128
    assert lookups == len(catalog.trimmed) == 50_000 + 6 - 128

    everything = project_catalog(model, budget=60_000)
    assert len(everything.tools) == 50_006
    assert not everything.over_budget


# --- the projector: the same catalog, redoing only what changed -----------------------------

_TOOL_NAMES = st.sampled_from(["a", "b", "a.b", "a_b", "read", "x" * 70, "x" * 71, "é"])
_SERVER_NAMES = st.sampled_from(["s", "s_t", "mcp", "s.t", "y" * 40])


@st.composite
def _server_states(draw: st.DrawFn, name: str) -> ServerState:
    bares = draw(st.lists(_TOOL_NAMES, max_size=5))
    off = draw(st.sets(_TOOL_NAMES))
    statuses: list[ServerStatus] = ["connected", "connected", "failed", "connecting"]
    status = draw(st.sampled_from(statuses))
    return server(name, bares, status=status, off=off)


_STEPS = st.lists(
    st.tuples(
        st.sampled_from(["server", "drop", "budget", "natives"]),
        _SERVER_NAMES,
        st.integers(min_value=0, max_value=12),
    ),
    min_size=1,
    max_size=12,
)


def _reference(model: PluginModel) -> tuple[list[tuple[str, str | None, str]], list[ToolRef]]:
    """The projection written the plain way: every enabled tool of every connected server."""
    refs = list(
        dict.fromkeys(
            ToolRef(s.name, t.bare)
            for s in model.servers
            if s.status == "connected"
            for t in s.tools
            if t.enabled
        )
    )
    natives = model.native_tools or DEFAULT_NATIVE_TOOLS
    names = allocate_wire_names(refs, {native.name for native in natives})
    room = max(0, model.tool_budget - len(natives))
    shipped: list[tuple[str, str | None, str]] = [(n.name, None, n.name) for n in natives]
    shipped += [(names.wire(*ref), ref.server, ref.tool) for ref in refs[:room]]
    return shipped, refs[room:]


@settings(max_examples=150, deadline=None)
@given(steps=_STEPS, data=st.data())
def test_projector_equals_a_fresh_projection_through_any_sequence_of_snapshots(
    steps: list[tuple[str, str, int]], data: st.DataObject
) -> None:
    """Whatever changes between snapshots, the projector's catalog is the plain projection's."""
    projector = CatalogProjector()
    servers: dict[str, ServerState] = {}
    budget = 8
    natives: tuple[NativeTool, ...] = NATIVES
    for kind, name, number in steps:
        if kind == "server":
            servers[name] = data.draw(_server_states(name))
        elif kind == "drop":
            servers.pop(name, None)
        elif kind == "budget":
            budget = number
        else:
            natives = NATIVES[: number % 3] + (
                (NativeTool(name="mcp__s__a"),) if number > 6 else ()
            )
        model = plugin_model(*servers.values(), budget=budget, natives=natives)
        catalog = projector.project(model)
        assert catalog == project_catalog(model)
        shipped, trimmed = _reference(model)
        assert [(t.name, t.server, t.tool) for t in catalog.tools] == shipped
        assert list(catalog.trimmed) == trimmed
        grouped: dict[str, set[str]] = {}
        for ref in trimmed:
            grouped.setdefault(ref.server, set()).add(ref.tool)
        assert catalog.trimmed_by_server() == {s: frozenset(t) for s, t in grouped.items()}


def test_projector_redoes_only_the_server_that_changed() -> None:
    """After a toggle on one server, every other server's wire tools are the same objects."""
    first = server("first", ["a", "b"])
    second = server("second", ["c", "d"])
    projector = CatalogProjector()
    before = projector.project(plugin_model(first, second))
    toggled = server("second", ["c", "d"], off=["d"])
    after = projector.project(plugin_model(first, toggled))
    assert [t.tool for t in after.tools] == ["read", "write", "a", "b", "c"]
    old = {t.tool: t for t in before.tools}
    new = {t.tool: t for t in after.tools}
    assert new["a"] is old["a"] and new["b"] is old["b"]
    assert new["c"] is not old["c"]  # the changed server's share is built again


def test_projector_renames_an_unchanged_server_when_another_one_now_clashes() -> None:
    """A server's cached wire tools are not reused once a newcomer's name collides with them."""
    dotted = server("s.t", ["a"])
    projector = CatalogProjector()
    assert [t.name for t in projector.project(plugin_model(dotted)).tools][2:] == ["mcp__s_t__a"]
    clashing = projector.project(plugin_model(dotted, server("s_t", ["a"])))
    assert clashing == project_catalog(plugin_model(dotted, server("s_t", ["a"])))
    assert all(re.fullmatch(r"mcp__s_t_[0-9a-f]{8}__a", t.name) for t in clashing.tools[2:])


def test_server_names_in_a_model_are_unique() -> None:
    """Tool identities are (server, tool): a model with one name twice is refused."""
    with pytest.raises(ValidationError, match="repeated: twice"):
        plugin_model(server("twice", ["a"]), server("once", []), server("twice", ["b"]))
