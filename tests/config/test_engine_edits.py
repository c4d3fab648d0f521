"""The edit vocabulary as pure functions on a parsed document."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from agentty_tui.config import (
    AddServer,
    RemoveServer,
    SetServerDisabled,
    SetToolEnabled,
    SetToolFilter,
    apply_edit,
    spec_to_entry,
    validate_document,
)
from agentty_tui.errors import ConfigError, UnknownServerError
from agentty_tui.model import HttpSpec, StdioSpec


def _doc(tools: dict[str, Any] | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"command": "x", "extra": 1}
    if tools is not None:
        entry["tools"] = tools
    return {"first": True, "mcpServers": {"s": entry}, "last": [1]}


def _tools(document: dict[str, Any]) -> Any:
    return document["mcpServers"]["s"].get("tools")


def test_apply_edit_does_not_mutate_its_input() -> None:
    document = _doc({"exclude": ["a"]})
    before = copy.deepcopy(document)
    apply_edit(document, SetToolEnabled("s", "a", True))
    apply_edit(document, SetToolEnabled("s", "b", False))
    apply_edit(document, SetToolFilter("s", include=("a",), exclude=()))
    apply_edit(document, SetServerDisabled("s", True))
    apply_edit(document, AddServer("t", StdioSpec(command="y")))
    apply_edit(document, RemoveServer("s"))
    assert document == before


def test_disable_creates_tools_and_exclude() -> None:
    result = apply_edit(_doc(), SetToolEnabled("s", "t", False))
    assert _tools(result) == {"exclude": ["t"]}
    assert list(result["mcpServers"]["s"]) == ["command", "extra", "tools"]


def test_disable_twice_lists_the_tool_once() -> None:
    result = apply_edit(_doc({"exclude": ["t"]}), SetToolEnabled("s", "t", False))
    assert _tools(result) == {"exclude": ["t"]}


def test_enable_drops_empty_exclude_and_empty_tools() -> None:
    result = apply_edit(_doc({"exclude": ["t"]}), SetToolEnabled("s", "t", True))
    assert "tools" not in result["mcpServers"]["s"]


def test_enable_keeps_other_tools_keys() -> None:
    result = apply_edit(_doc({"exclude": ["t", "u"], "note": 1}), SetToolEnabled("s", "t", True))
    assert _tools(result) == {"exclude": ["u"], "note": 1}
    result = apply_edit(_doc({"exclude": ["t"], "note": 1}), SetToolEnabled("s", "t", True))
    assert _tools(result) == {"note": 1}


def test_enable_appends_to_an_include_list() -> None:
    result = apply_edit(_doc({"include": ["a"], "exclude": ["b"]}), SetToolEnabled("s", "b", True))
    assert _tools(result) == {"include": ["a", "b"]}
    config = validate_document(result)
    assert config.servers[0].tools.allows("b")


def test_enable_of_an_included_tool_leaves_include_alone() -> None:
    result = apply_edit(_doc({"include": ["a"]}), SetToolEnabled("s", "a", True))
    assert _tools(result) == {"include": ["a"]}


def test_disable_with_include_goes_through_exclude() -> None:
    result = apply_edit(_doc({"include": ["a"]}), SetToolEnabled("s", "a", False))
    assert _tools(result) == {"include": ["a"], "exclude": ["a"]}
    assert not validate_document(result).servers[0].tools.allows("a")


def test_set_server_disabled_round_trip() -> None:
    disabled = apply_edit(_doc(), SetServerDisabled("s", True))
    assert disabled["mcpServers"]["s"]["disabled"] is True
    enabled = apply_edit(disabled, SetServerDisabled("s", False))
    assert enabled == _doc()


def test_add_server_writes_only_non_default_fields() -> None:
    result = apply_edit({}, AddServer("n", StdioSpec(command="c")))
    assert result == {"mcpServers": {"n": {"command": "c"}}}
    result = apply_edit(_doc(), AddServer("n", HttpSpec(url="http://h")))
    assert list(result["mcpServers"]) == ["s", "n"]
    assert result["mcpServers"]["n"] == {"url": "http://h"}


def test_spec_to_entry_shapes() -> None:
    stdio = StdioSpec(command="c", args=("a",), env={"K": "V"}, cwd="/w")
    assert spec_to_entry(stdio) == {"command": "c", "args": ["a"], "env": {"K": "V"}, "cwd": "/w"}
    sse = HttpSpec(url="http://h", headers={"A": "b"}, transport="sse")
    assert spec_to_entry(sse) == {"url": "http://h", "headers": {"A": "b"}, "type": "sse"}
    for spec in (stdio, sse):
        parsed = validate_document({"mcpServers": {"x": spec_to_entry(spec)}})
        assert parsed.servers[0].spec == spec


def test_add_existing_name_is_refused() -> None:
    with pytest.raises(ConfigError, match="already exists") as caught:
        apply_edit(_doc(), AddServer("s", StdioSpec(command="c")))
    assert caught.value.server == "s"


def test_add_empty_name_is_refused() -> None:
    with pytest.raises(ConfigError, match="must not be empty"):
        apply_edit(_doc(), AddServer("", StdioSpec(command="c")))


@pytest.mark.parametrize(
    "edit",
    [RemoveServer("nope"), SetToolEnabled("nope", "t", False), SetServerDisabled("nope", True)],
)
def test_unknown_server_is_refused(edit: Any) -> None:
    with pytest.raises(UnknownServerError):
        apply_edit(_doc(), edit)
    with pytest.raises(UnknownServerError):
        apply_edit({}, edit)


def test_edits_are_frozen_values() -> None:
    edit = SetToolEnabled("s", "t", True)
    assert edit == SetToolEnabled(server="s", tool="t", enabled=True)
    with pytest.raises(AttributeError):
        edit.enabled = False  # type: ignore[misc]
