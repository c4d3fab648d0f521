"""One host's tools through the gateway: the list, the refusals, the instructions."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

import mcp_types as types

from agentty_tui.catalog import TOKEN_COUNTER, FamilyName, ToolRef
from agentty_tui.gateway.host.tools import ToolsMaker, instructions, refusal
from agentty_tui.model import (
    HostView,
    NativeTool,
    PluginModel,
    ServerState,
    ServerStatus,
    SourceRef,
    StdioSpec,
    ToolHints,
    ToolState,
)

SPEC = StdioSpec(command="server")
NATIVES = (NativeTool(name="read"), NativeTool(name="write"))


def server(
    name: str,
    tools: Iterable[str] = (),
    *,
    status: ServerStatus = "connected",
    off: Iterable[str] = (),
    error: str | None = None,
) -> ServerState:
    off = set(off)
    return ServerState(
        name=name,
        spec=SPEC,
        status=status,
        error=error,
        tools=tuple(
            ToolState(
                bare=bare,
                enabled=bare not in off,
                title=f"The {bare}",
                description=f"{bare} does things",
                input_schema={"type": "object", "properties": {"x": {"type": "integer"}}},
            )
            for bare in tools
        ),
    )


def model(*servers: ServerState, budget: int = 128, revision: int = 1) -> PluginModel:
    return PluginModel(servers=servers, tool_budget=budget, native_tools=NATIVES, revision=revision)


def test_the_list_is_the_enabled_tools_under_gateway_names_as_the_server_gave_them() -> None:
    now = ToolsMaker(None).of(model(server("notes", ["add", "find", "drop"], off=["drop"])))
    assert [tool.name for tool in now.tools] == ["notes__add", "notes__find"]
    first = now.tools[0]
    assert first.title == "The add"
    assert first.description == "add does things"
    assert first.input_schema == {"type": "object", "properties": {"x": {"type": "integer"}}}
    assert now.refs["notes__find"] == ToolRef("notes", "find")


def test_native_tools_are_never_served_but_keep_their_room_in_the_budget() -> None:
    # A budget of 5 with two native tools leaves room for three MCP tools.
    now = ToolsMaker(None).of(model(server("s", ["a", "b", "c", "d"]), budget=5))
    assert [tool.name for tool in now.tools] == ["s__a", "s__b", "s__c"]
    assert now.catalog.is_trimmed("s", "d")


def test_servers_not_connected_serve_nothing() -> None:
    now = ToolsMaker(None).of(
        model(server("up", ["a"]), server("down", ["b"], status="failed", error="exit 1"))
    )
    assert [tool.name for tool in now.tools] == ["up__a"]


def test_the_same_snapshot_gives_the_same_result_and_an_unchanged_list_the_same_key() -> None:
    maker = ToolsMaker(None)
    state = server("s", ["a", "b"])
    first = maker.of(model(state, revision=1))
    assert maker.of(model(state, revision=1)) is first
    again = maker.of(model(state, server("late", status="connecting"), revision=2))
    assert again is not first and again.key == first.key
    assert maker.of(model(server("s", ["a", "b"], off=["b"]), revision=3)).key != first.key


def test_annotations_and_output_schema_are_served_and_a_change_of_them_changes_the_key() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    hinted = ToolState(
        bare="look",
        enabled=True,
        hints=ToolHints(title="Look", read_only=True, open_world=False),
        output_schema=schema,
    )
    maker = ToolsMaker(None)
    first = maker.of(model(server("s").model_copy(update={"tools": (hinted,)}), revision=1))
    (served,) = first.tools
    assert served.annotations == types.ToolAnnotations(
        title="Look", read_only_hint=True, open_world_hint=False
    )
    assert served.output_schema == schema
    # Only a hint changes (the server re-listed): the host's list changed, so it is told.
    flipped = hinted.model_copy(update={"hints": ToolHints(title="Look", read_only=False)})
    again = maker.of(model(server("s").model_copy(update={"tools": (flipped,)}), revision=2))
    assert again.tools[0].annotations == types.ToolAnnotations(title="Look", read_only_hint=False)
    assert again.key != first.key


def test_refusals_say_why_and_what_to_run() -> None:
    given = {
        "s__off": ToolRef("s", "off"),
        "s__d": ToolRef("s", "d"),
        "gone__x": ToolRef("gone", "x"),
        "down__x": ToolRef("down", "x"),
        "oauth__x": ToolRef("oauth", "x"),
        "s__vanished": ToolRef("s", "vanished"),
    }
    snapshot = model(
        server("s", ["a", "b", "off", "d"], off=["off"]),
        server("down", ["x"], status="failed", error="command not found: 'x'"),
        server("oauth", status="needs_login", error="it asks for a login"),
        budget=4,
    )
    now = ToolsMaker(None).of(snapshot)

    def why(name: str) -> str:
        return refusal(name, given.get(name), now)

    assert "switched off" in why("s__off") and "agentty-tui enable s off" in why("s__off")
    assert "over the tool budget of 4" in why("s__d")
    assert "no longer in the config" in why("gone__x")
    assert "down (failed: command not found" in why("down__x")
    assert "agentty-tui login oauth" in why("oauth__x")
    assert "no longer offers vanished" in why("s__vanished")
    assert "no tool named nope__x" in why("nope__x")


def test_a_refusal_for_one_host_names_its_switch() -> None:
    now = ToolsMaker(None).of(model(server("s", ["t"], off=["t"])))
    text = refusal("s__t", ToolRef("s", "t"), now)
    assert "agentty-tui enable s t" in text
    host_now = replace(now, host="claude")
    assert "agentty-tui enable --host claude s t" in refusal("s__t", ToolRef("s", "t"), host_now)


def test_instructions_name_what_the_host_misses_in_safe_words() -> None:
    snapshot = model(
        server("ok", ["a"]),
        server("bad", status="failed", error="exit 3\n\x1b[31mred\x1b[0m"),
        server("oauth", status="needs_login"),
        server("slow", status="connecting"),
        server("parked", status="disabled"),
    )
    text = instructions(ToolsMaker(None).of(snapshot))
    assert "<server>__<tool>" in text
    assert "bad is down (failed: exit 3" in text
    assert "\x1b" not in text  # a server's text cannot steer whatever shows it
    assert "agentty-tui login oauth" in text
    assert "slow: still connecting" in text and "tools/list_changed" in text
    assert "ok" not in text.split("\n", 1)[1] and "parked" not in text


def test_a_config_that_does_not_load_and_servers_that_wait_are_said() -> None:
    snapshot = model(
        server("repo", status="untrusted"),
        server("parked", ["t"], status="disabled", error="off for claude: its switch"),
    ).model_copy(update={"config_error": "mcp.json:3:7: Expecting ','"})
    now = ToolsMaker(None).of(snapshot)
    text = instructions(now)
    assert "The config could not be read: mcp.json:3:7" in text
    assert "agentty-tui trust repo" in text
    assert "parked" not in text  # switched off on purpose: nothing the host misses
    assert "agentty-tui enable parked" in refusal("parked__t", ToolRef("parked", "t"), now)


AGENTTY = SourceRef(path="/h/.config/agentty/mcp.json", scope="user", host="agentty")


def _ours(name: str, count: int) -> ServerState:
    """A server of agentty's own file, which the gateway serves every host."""
    state = server(name, [f"t{i:03d}" for i in range(count)])
    return state.model_copy(update={"hosts": (HostView(source=AGENTTY),)})


def test_a_hosts_tool_ceiling_trims_the_lowest_priority_first_and_is_named() -> None:
    """VS Code takes at most 128 tools, natives included: its list is cut there, lowest
    priority (last server, last tools) first, and the instructions and refusals name its
    limit; Codex has no ceiling and gets every tool; a tool budget lower than the ceiling
    stays the one that applies."""
    snapshot = model(_ours("first", 100), _ours("second", 100), budget=500)
    vscode = ToolsMaker("vscode").of(snapshot)
    assert len(vscode.tools) == 128 - len(NATIVES)
    assert vscode.catalog.budget == 128 and vscode.ceiling == 128
    assert vscode.tools[-1].name == "second__t025"
    assert [ref.tool for ref in vscode.catalog.trimmed][:2] == ["t026", "t027"]
    assert "Over VS Code's limit of 128 tools: 74 tools" in instructions(vscode)
    why = refusal("second__t099", ToolRef("second", "t099"), vscode)
    assert "over VS Code's limit of 128 tools" in why
    codex = ToolsMaker("codex").of(snapshot)
    assert len(codex.tools) == 200 and codex.ceiling is None
    assert "limit" not in instructions(codex)
    tight = ToolsMaker("vscode").of(model(_ours("first", 100), budget=50))
    assert len(tight.tools) == 50 - len(NATIVES) and tight.ceiling is None
    assert "over the tool budget of 50" in refusal("first__t099", ToolRef("first", "t099"), tight)


def test_a_list_cut_by_the_token_budget_names_that_budget_not_the_ceiling() -> None:
    """Under VS Code's ceiling but over a token budget: the instructions and the refusal of a
    cut tool name the token budget (and the setting to raise), never the host's limit; over
    both, both are named."""
    under = model(_ours("first", 40), budget=500).model_copy(update={"tool_token_budget": 600})
    vscode = ToolsMaker("vscode").of(under)
    assert vscode.catalog.trimmed and vscode.catalog.total_requested <= 128
    cut = vscode.catalog.trimmed[-1]
    why = refusal(f"first__{cut.tool}", cut, vscode)
    assert "over the token budget of 600 tokens" in why, why
    assert "limit" not in why and "toolTokenBudget" in why and "toolBudget " not in why
    assert "Over the token budget of 600 tokens:" in instructions(vscode)
    assert "limit" not in instructions(vscode)
    over = model(_ours("first", 100), _ours("second", 100), budget=500)
    both = ToolsMaker("vscode").of(over.model_copy(update={"tool_token_budget": 600}))
    text = instructions(both)
    assert "Over VS Code's limit of 128 tools and the token budget of 600 tokens:" in text


def test_the_token_budget_is_counted_in_each_hosts_model_family() -> None:
    """A host is cut to the token budget as its own model counts (its lens's family): Codex
    and Cursor in OpenAI's, Claude Code and a host of every view in Claude's, so the same
    budget keeps fewer of these tools for Codex; each list fits and one more tool would not."""
    snapshot = model(_ours("first", 40), budget=500).model_copy(update={"tool_token_budget": 1000})
    kept: dict[str | None, int] = {}
    hosts: tuple[tuple[str, FamilyName], ...] = (
        ("claude", "claude"),
        ("codex", "openai"),
        ("cursor", "openai"),
    )
    for host, family in hosts:
        catalog = ToolsMaker(host).of(snapshot).catalog
        counts = [TOKEN_COUNTER.count_tool(tool, family) for tool in catalog.tools]
        assert catalog.trimmed and sum(counts) <= 1000 < sum(counts) + counts[-1], host
        kept[host] = len(catalog.tools)
    assert kept["codex"] == kept["cursor"] < kept["claude"]
    assert len(ToolsMaker(None).of(snapshot).catalog.tools) == kept["claude"]
