"""A host's lens on the model (``catalog/host_lens.py``): what one host's model gets."""

from __future__ import annotations

from agentty_tui.catalog.host_lens import host_lens, hosts_of
from agentty_tui.model import HostView, PluginModel, SourceRef, ToolFilter, ToolState
from tests.ui.fakes import connected_model

CLAUDE = SourceRef(path="/h/.claude.json", scope="user", host="claude")
CODEX = SourceRef(path="/h/.codex/config.toml", scope="user", host="codex")


def _two_hosts() -> PluginModel:
    model = connected_model()
    first = model.servers[0]
    tools = (ToolState(bare="a", enabled=True), ToolState(bare="b", enabled=True))
    claude = HostView(source=CLAUDE, tools=ToolFilter(exclude=("a",)))
    codex = HostView(source=CODEX, off=True, off_by="enabled = false in c")
    shared = first.model_copy(update={"tools": tools, "hosts": (claude, codex)})
    only_codex = model.servers[1].model_copy(update={"hosts": (HostView(source=CODEX),)})
    return model.model_copy(update={"servers": (shared, only_codex)})


def test_each_host_gets_its_own_tools_servers_and_off_servers() -> None:
    model = _two_hosts()
    assert hosts_of(model) == ("claude", "codex")
    assert host_lens(model, None) is model
    claude = host_lens(model, "claude")
    assert [s.name for s in claude.servers] == [model.servers[0].name]
    assert [(t.bare, t.enabled) for t in claude.servers[0].tools] == [("a", False), ("b", True)]
    codex = host_lens(model, "codex")
    assert [s.status for s in codex.servers] == ["disabled", model.servers[1].status]
    assert codex.servers[0].error == "off for codex: enabled = false in c"
    # The same state object while the model's is the same: cached rows stay valid.
    assert host_lens(model, "claude").servers[0] is claude.servers[0]
    assert host_lens(model, "gemini").servers == ()
    assert hosts_of(connected_model()) == ()
