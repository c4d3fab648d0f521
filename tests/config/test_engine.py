"""The edit engine through a dialect written as the package docstring says: one small adapter."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentty_tui.config import (
    AddServer,
    ConfigStore,
    RemoveServer,
    SetServerDisabled,
    SetToolEnabled,
    SetToolFilter,
    UpdateServer,
    dialect_name,
    spec_to_entry,
)
from agentty_tui.config.documents.formats import JsoncFormat
from agentty_tui.config.engine import (
    Adapter,
    ConnectionSpelling,
    TimeoutKey,
    same_name,
    validate_entries,
)
from agentty_tui.config.raw import settings_config
from agentty_tui.errors import ConfigError, UnknownServerError
from agentty_tui.model import PluginConfig, ServerSpec, StdioSpec


def _to_ours(name: str, entry: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {k: entry[k] for k in ("command", "args", "env", "url") if k in entry}
    tools: dict[str, Any] = {"include": entry["allowTools"]} if "allowTools" in entry else {}
    if "denyTools" in entry:
        tools["exclude"] = entry["denyTools"]
    if tools:
        out["tools"] = tools
    if "timeoutMs" in entry:
        out["requestTimeout"] = entry["timeoutMs"] / 1000
    out["disabled"] = entry.get("enabled", True) is False
    return out


class ExampleDialect(Adapter):
    # A host whose file is JSON with {"servers": {NAME: {...}}}.

    name = "example"
    format = JsoncFormat()
    servers_key = "servers"
    tools_key = None
    include_key = "allowTools"
    exclude_key = "denyTools"
    disabled_key = "enabled"
    disabled_value = False
    timeouts = (TimeoutKey("request_timeout", "timeoutMs", scale=1000),)
    connection = ConnectionSpelling(groups=same_name("command", "args", "env", "url"))

    def validate(self, value: dict[str, Any], path: str | None) -> PluginConfig:
        servers = value.get(self.servers_key, {})
        return settings_config(value, validate_entries(servers, _to_ours, path), path)

    def new_entry(self, spec: ServerSpec) -> Any:
        return spec_to_entry(spec)


TEXT = """{
  // kept
  "servers": {
    "a": {"command": "run", "note": "mine"}
  }
}
"""


def test_a_dialect_of_one_small_adapter_takes_every_edit(tmp_path: Path) -> None:
    path = tmp_path / "example.json"
    path.write_text(TEXT)
    store = ConfigStore(path, dialect=ExampleDialect())
    assert dialect_name(store.dialect) == "example"
    assert store.dialect.timeout_fields == ("request_timeout",)
    store.apply(SetToolEnabled("a", "t", False))
    store.apply(SetServerDisabled("a", True))
    config = store.apply(AddServer("b", StdioSpec(command="other"), request_timeout=1.5))
    a, b = config.servers
    assert a.tools.exclude == ("t",) and a.disabled
    assert b.request_timeout == 1.5
    text = path.read_text()
    assert '"denyTools": ["t"]' in text and '"enabled": false' in text
    assert '"timeoutMs": 1500' in text and "// kept" in text
    store.apply(SetToolFilter("a", include=("x",)))
    config = store.apply(UpdateServer("a", StdioSpec(command="new")))
    a = config.servers[0]
    assert a.spec == StdioSpec(command="new") and a.tools.include == ("x",) and a.disabled
    assert '"note": "mine"' in path.read_text()
    config = store.apply([SetServerDisabled("a", False), RemoveServer("b")])
    assert [s.name for s in config.servers] == ["a"] and not config.servers[0].disabled
    with pytest.raises(UnknownServerError):
        store.apply(RemoveServer("b"))
    with pytest.raises(ConfigError, match="cannot hold a connect_timeout"):
        store.apply(AddServer("c", StdioSpec(command="x"), connect_timeout=1))
