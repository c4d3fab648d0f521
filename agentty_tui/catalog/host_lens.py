"""A host's lens: the model as one host's model gets it.

In a workspace every server carries what each host holding it does with it
(``ServerState.hosts``). ``host_lens(model, host)`` keeps the servers that ``host`` holds, each
with the tools that host sends on and the others off, and ``disabled`` where that host does not
start it (though it runs for another host); the catalog projected from it is that host's
(``catalog --host H``, the picker's lens). ``hosts_of(model)`` lists the hosts found.

The lens keeps each server's state object (and so its revision) for as long as the state it
was made from is the same: rows and catalogs cached by ``(name, revision)`` are not rebuilt
for a snapshot that changed nothing.
"""

from __future__ import annotations

from agentty_tui.config.sources import HOSTS
from agentty_tui.model import HostView, PluginModel, ServerState, hosts_in_use

__all__ = ["host_lens", "hosts_of"]

_MEMO_LIMIT = 4096
"""States remembered by the lens (a few snapshots' worth): beyond, the oldest are dropped."""

_memo: dict[tuple[int, str], ServerState] = {}


def hosts_of(model: PluginModel) -> tuple[str, ...]:
    """The hosts holding any server of ``model``, in the workspace's order of hosts
    (``sources.HOSTS``); none for one file."""
    found = {view.source.host for server in model.servers for view in server.hosts}
    found |= {view.source.host for server in model.shadowed for view in server.hosts}
    return tuple(host for host in HOSTS if host in found)


def _view(state: ServerState, host: str) -> HostView | None:
    """``host``'s view of ``state``: the first of its files (its own precedence)."""
    return next((view for view in hosts_in_use(state.hosts) if view.source.host == host), None)


def _seen_by(state: ServerState, view: HostView) -> ServerState:
    """``state`` as the host of ``view`` gets it (the same object when nothing differs)."""
    key = (state.revision, view.source.host)
    known = _memo.get(key)
    if known is not None:
        return known
    tools = tuple(
        tool
        if tool.enabled == view.sends(tool.bare)
        else tool.model_copy(update={"enabled": view.sends(tool.bare)})
        for tool in state.tools
    )
    update: dict[str, object] = {}
    if tools != state.tools:
        update["tools"] = tools
    mine = tuple(v for v in state.hosts if v.source.host == view.source.host)
    if mine != state.hosts:
        update["hosts"] = mine  # the details of a lens are that host's
    if view.off and state.status not in ("disabled", "shadowed"):
        update["status"] = "disabled"
        update["error"] = f"off for {view.source.host}: {view.off_by or 'its switch'}"
    seen = state.model_copy(update=update) if update else state
    if len(_memo) >= _MEMO_LIMIT:
        for old in list(_memo)[: _MEMO_LIMIT // 2]:
            del _memo[old]
    _memo[key] = seen
    return seen


def host_lens(model: PluginModel, host: str | None) -> PluginModel:
    """``model`` as ``host``'s model gets it (``None``: every host, the model itself)."""
    if host is None:
        return model
    servers = tuple(
        _seen_by(state, view) for state in model.servers if (view := _view(state, host)) is not None
    )
    shadowed = tuple(s for s in model.shadowed if _view(s, host) is not None)
    return model.model_copy(update={"servers": servers, "shadowed": shadowed})
