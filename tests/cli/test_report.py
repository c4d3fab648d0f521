"""The text reports of the headless commands, over arbitrary server-supplied strings.

Whatever a server or the config put into a name, a title, a description, an error or a call
result, ``model_text``, ``catalog_text`` and ``result_text`` hold no control character but the
newlines they put there themselves, and a field cannot add a line to ``list``.
"""

from __future__ import annotations

import json
import re
from typing import Any

import mcp_types as types
from hypothesis import given, settings
from hypothesis import strategies as st

from agentty_tui.catalog import project_catalog
from agentty_tui.cli.report import catalog_json, catalog_text, model_json, model_text, result_text
from agentty_tui.model import NativeTool, PluginModel, ServerInfo, ServerState, StdioSpec, ToolState
from tests.conftest import WriteConfig
from tests.helpers import run_cli, stdio_entry
from tests.hostile_text import hostile_text, unsafe_chars
from tests.servers import GATED_BASE_TOOLS, PLAIN_TOOLS, gated_argv, plain_argv

TOOL_LINE = re.compile(r"    \[(on |off)\] (?P<name>\S+) +")
"""A tool's line in ``list``, up to where its label starts."""

TOOL_NAMES = st.from_regex(r"[A-Za-z0-9_.-]{1,16}", fullmatch=True)
"""Tool names as the listing lets them through (names that break the MCP rules are dropped)."""


@st.composite
def servers(draw: st.DrawFn) -> ServerState:
    status = draw(st.sampled_from(("connected", "failed", "connecting", "disabled")))
    tools = draw(
        st.lists(
            st.builds(
                ToolState,
                bare=TOOL_NAMES,
                enabled=st.booleans(),
                title=st.none() | hostile_text(),
                description=st.none() | hostile_text(),
            ),
            max_size=4,
            unique_by=lambda tool: tool.bare,
        )
    )
    return ServerState(
        name=draw(hostile_text(16)),
        spec=StdioSpec(command="x"),
        status=status,
        error=draw(hostile_text()) if status == "failed" else None,
        info=ServerInfo(name=draw(hostile_text(8)), version=draw(hostile_text(8))),
        tools=tuple(tools) if status == "connected" else (),
    )


models = st.lists(servers(), max_size=3, unique_by=lambda server: server.name).map(
    lambda states: PluginModel(
        servers=tuple(states),
        tool_budget=3,
        native_tools=(NativeTool(name="native"),),
        config_path="conf\x1b]0;x\x07.json",
    )
)


def _lines(text: str | None) -> int:
    """How many lines an error of ``text`` takes in ``list`` (CR LF is one line break)."""
    return 0 if not text else text.replace("\r\n", "\n").count("\n") + 1


@settings(max_examples=200, deadline=None)
@given(models)
def test_list_and_catalog_text_hold_no_control_and_no_forged_line(model: PluginModel) -> None:
    catalog = project_catalog(model)
    listed = model_text(model, catalog)
    assert unsafe_chars(listed, allowed="\n\t") == []  # a tab of an error line is kept
    expected = sum(1 + _lines(s.error) + len(s.tools) for s in model.servers)
    expected += (0 if model.servers else 1) + 2 + (1 if catalog.warning else 0)
    assert len(listed.split("\n")) == expected
    wire = catalog_text(catalog)
    assert unsafe_chars(wire, allowed="\n") == []
    trimmed = 1 + len(catalog.trimmed) if catalog.warning else 0
    assert len(wire.split("\n")) == len(catalog.tools) + 3 + trimmed


@settings(max_examples=100, deadline=None)
@given(models)
def test_json_reports_keep_the_text_as_sent(model: PluginModel) -> None:
    catalog = project_catalog(model)
    data = json.loads(json.dumps(model_json(model, catalog)))
    for server, shown in zip(model.servers, data["servers"], strict=True):
        assert shown["name"] == _as_json(server.name)
        assert shown["error"] == _as_json(server.error)
        assert [t["title"] for t in shown["tools"]] == [_as_json(t.title) for t in server.tools]
    wire = json.loads(json.dumps(catalog_json(catalog)))
    described = [_as_json(t.description) for t in catalog.tools]
    assert [t["description"] for t in wire["tools"]] == described


def _as_json(text: str | None) -> str | None:
    """``text`` as any JSON reader gets it back: a pair of surrogates (which no server's JSON
    can put into a string, since a reader joins them) comes back as the one character they
    encode, and nothing else changes."""
    back: str | None = json.loads(json.dumps(text))
    return back


STRUCTURED = st.none() | st.dictionaries(hostile_text(8), hostile_text())


@settings(max_examples=200, deadline=None)
@given(st.lists(hostile_text(), max_size=3), STRUCTURED)
def test_a_call_result_holds_no_control(
    texts: list[str], structured: dict[str, Any] | None
) -> None:
    result = types.CallToolResult(
        content=[types.TextContent(type="text", text=text) for text in texts],
        structured_content=structured,
    )
    shown = result_text(result)
    assert unsafe_chars(shown, allowed="\n\t") == []
    assert shown.count("\n") >= sum(text.replace("\r\n", "\n").count("\n") for text in texts)


def test_list_text_lines_the_labels_up_across_servers(write_config: WriteConfig) -> None:
    """``agentty-tui list`` on two real servers whose tool names differ in length: every
    tool's label starts in the same column, whichever server it belongs to."""
    path = write_config({"plain": stdio_entry(plain_argv()), "gated": stdio_entry(gated_argv())})
    result = run_cli("list", "--config", str(path))
    assert result.returncode == 0, result.stderr
    tools = [TOOL_LINE.match(line) for line in result.stdout.split("\n")]
    found = [match for match in tools if match is not None]
    assert {match["name"] for match in found} == {*PLAIN_TOOLS, *GATED_BASE_TOOLS}
    # Each tool has a description, so each line has a label: all of them in one column.
    assert {match.end() for match in found} == {len("    [on ] disable_toolset  ")}
