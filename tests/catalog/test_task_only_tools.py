"""A tool that runs only as a task (``execution.taskSupport: "required"``) fails on every call
of a client without task support: it is kept off the wire and listed apart, never trimmed
in another tool's place, on a real server and through the command line."""

from __future__ import annotations

import json

from agentty_tui.catalog import project_catalog
from agentty_tui.catalog.names import ToolRef
from agentty_tui.model import PluginModel
from tests.catalog.test_projection import plugin_model, server
from tests.conftest import WriteConfig
from tests.helpers import run_cli, stdio_entry
from tests.servers import light_argv


def _with_task_tool(model: PluginModel) -> PluginModel:
    first = model.servers[0]
    tools = tuple(tool.model_copy(update={"needs_tasks": tool.bare == "b"}) for tool in first.tools)
    return model.model_copy(update={"servers": (first.model_copy(update={"tools": tools}),)})


def test_a_task_only_tool_is_not_shipped_nor_counted_but_listed_apart() -> None:
    model = _with_task_tool(plugin_model(server("s", ["a", "b", "c"]), budget=3))
    catalog = project_catalog(model, native_tools=())
    assert [tool.tool for tool in catalog.tools] == ["a", "c"]
    assert catalog.needs_tasks == (ToolRef("s", "b"),)
    assert catalog.total_requested == 2 and catalog.trimmed == () and catalog.warning is None


def test_the_command_line_says_it_is_not_sent_and_why(write_config: WriteConfig) -> None:
    """``catalog`` and ``list`` on a real server that advertises a task-only tool."""
    argv = [*light_argv(2, name="lab"), "--task-tool"]
    path = write_config({"lab": stdio_entry(argv)})
    wire = run_cli("catalog", "--json", "--config", str(path))
    assert wire.returncode == 0, wire.stderr
    shown = json.loads(wire.stdout)
    assert "research" not in {tool["tool"] for tool in shown["tools"]}
    assert shown["needs_tasks"] == [{"server": "lab", "tool": "research"}]
    text = run_cli("catalog", "--config", str(path)).stdout
    assert "not sent, needs task support" in text and "  lab / research" in text
    listed = json.loads(run_cli("list", "--json", "--config", str(path)).stdout)
    tools = {tool["name"]: tool for tool in listed["servers"][0]["tools"]}
    assert tools["research"]["needs_tasks"] is True and tools["tool_0000"]["needs_tasks"] is False
    assert "(needs task support: not sent)" in run_cli("list", "--config", str(path)).stdout
