"""One host's tools through the gateway: what it lists, by gateway name, from a snapshot.

``HostTools.of(model)`` takes what the gateway serves the host of the bridge's snapshot
(``served_lens``: what the host reaches through agentty, and agentty's own servers; without a
host, every host's servers) and projects it as the catalog
does (``catalog.project_catalog``): the enabled tools of connected servers, in priority order,
under the tool budget, the budget's room for the host's own native tools kept, which the host
sends itself and the gateway never serves. A host that takes only so many tools
(``catalog.host_limits``: VS Code's 128, Cursor's 80) is served at most that many, its ceiling
taking the tool budget's place where it is lower: the lowest priority is trimmed first, and the
instructions and refusals name the host's ceiling. Each shipped MCP tool gets its gateway name
(``host.naming.gateway_names``) and goes out as the server described it (description, title,
input schema, annotations, output schema; all already bounded by the bridge, which drops a
tool with a schema nested too deep to read). A change of any of these is a change of the list.

What the host cannot call, and why, is said here too (``refusal``): a tool switched off, one
the budget trimmed, one whose server is down (with what to run about it), in words made safe
for the model that reads them.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field

import mcp_types as types

from agentty_tui.catalog import CatalogProjector, ToolRef, WireCatalog, WireTool
from agentty_tui.catalog.host_lens import host_lens
from agentty_tui.catalog.host_limits import host_limits
from agentty_tui.catalog.tokens import DEFAULT_FAMILY
from agentty_tui.config.hosts.switches import HOST_NAMES
from agentty_tui.frozen import thaw
from agentty_tui.gateway.host.naming import gateway_names
from agentty_tui.model import PluginModel, ServerState, ToolHints, hosts_in_use
from agentty_tui.terminal_text import clip, safe_message

__all__ = ["HostTools", "ToolsMaker", "instructions", "refusal", "served_lens", "why_down"]

ERROR_ROOM = 300
"""Characters of a server's error text quoted to the model (its log has the rest)."""


@dataclass(frozen=True, slots=True)
class HostTools:
    """What one host lists through the gateway for one snapshot."""

    host: str | None
    """The host whose lens this is (``None``: every host's servers)."""
    model: PluginModel
    """The snapshot through the host's lens."""
    catalog: WireCatalog
    """Its wire catalog (natives included, as ``catalog --host`` shows it)."""
    tools: tuple[types.Tool, ...]
    """What ``tools/list`` answers, in priority order."""
    refs: Mapping[str, ToolRef] = field(default_factory=dict)
    """Each gateway name to its tool."""
    key: tuple[tuple[str, types.Tool], ...] = ()
    """Gateway names with the tools as served (annotations and output schema included, which
    the wire tool does not hold): equal keys, equal lists (compared item by item by identity
    first, and a tool of an unchanged server is the same object, so this compares fast)."""
    ceiling: int | None = None
    """The host's own tool ceiling when it is what the catalog was cut to (lower than the
    tool budget); ``None``: the tool budget applies."""


def served_lens(snapshot: PluginModel, host: str | None) -> PluginModel:
    """What the gateway serves ``host``: the servers that host reaches through agentty (its
    entries moved behind the gateway by ``agentty-tui connect``: ``HostView.routed``), as its
    lens shows them, and agentty's own servers that the host does not hold. An entry the host
    still starts itself (a project file's, or any before connect) is never served it too: its
    model would get those tools twice. Without a host, every server (``host_lens``)."""
    if host is None:
        return snapshot
    mine, ours = host_lens(snapshot, host), host_lens(snapshot, "agentty")
    seen = {state.name: state for state in mine.servers}
    own = {state.name: state for state in ours.servers}
    servers: list[ServerState] = []
    for state in snapshot.servers:
        runs = next((v for v in hosts_in_use(state.hosts) if v.source.host == host), None)
        if runs is not None:
            if runs.routed:
                servers.append(seen[state.name])
        elif state.name in own:
            servers.append(own[state.name])
    return mine.model_copy(update={"servers": tuple(servers), "shadowed": ()})


class ToolsMaker:
    """``HostTools`` for a stream of snapshots, reusing what did not change.

    Keeps a ``CatalogProjector`` (a server's projection is redone only when its revision
    moved) and each gateway tool of the previous result, keyed on its name and wire tool.
    Owned by one attached host. Not thread-safe.
    """

    __slots__ = ("_built", "_host", "_last", "_projector")

    def __init__(self, host: str | None) -> None:
        self._host = host
        # The token budget counted as the host's model counts (its family), as its lens shows.
        limits = host_limits(host)
        self._projector = CatalogProjector(
            family=DEFAULT_FAMILY if limits is None else limits.family
        )
        self._built: dict[tuple[str, int], tuple[WireTool, types.Tool]] = {}
        self._last: HostTools | None = None

    def of(self, snapshot: PluginModel) -> HostTools:
        """The host's tools in ``snapshot`` (the previous result again for the same one)."""
        last = self._last
        if last is not None and last.model.revision == snapshot.revision:
            return last
        model = served_lens(snapshot, self._host)
        limits = host_limits(self._host)
        ceiling = None if limits is None else limits.ceiling_under(model.tool_budget)
        catalog = self._projector.project(model, budget=ceiling)
        shipped = [tool for tool in catalog.tools if tool.server is not None]
        names = gateway_names(ToolRef(tool.server or "", tool.tool) for tool in shipped)
        built: dict[tuple[str, int], tuple[WireTool, types.Tool]] = {}
        tools: list[types.Tool] = []
        key: list[tuple[str, types.Tool]] = []
        for wire in shipped:
            name = names.wire(wire.server or "", wire.tool)
            memo = (name, id(wire))
            known = self._built.get(memo)
            if known is None or known[0] is not wire:
                known = (wire, _served(name, wire, model))
            built[memo] = known
            tools.append(known[1])
            key.append((name, known[1]))
        self._built = built
        result = HostTools(
            host=self._host,
            model=model,
            catalog=catalog,
            tools=tuple(tools),
            refs=dict(names.by_wire),
            key=tuple(key),
            ceiling=ceiling,
        )
        # The lens keeps the snapshot's revision: the next call with it is this result.
        self._last = result
        return result


def _served(name: str, wire: WireTool, model: PluginModel) -> types.Tool:
    """``wire`` as the host gets it, under ``name``, with what else the server said of it: its
    title, its annotations (hints the host may show or act on, as the server's word) and its
    output schema (which a host's client checks structured results against)."""
    state = model.server(wire.server or "")
    tool = state.tool(wire.tool) if state is not None else None
    if tool is None:  # not in the lens's snapshot: never so for a projected tool
        return types.Tool(
            name=name, description=wire.description or None, input_schema=thaw(wire.input_schema)
        )
    return types.Tool(
        name=name,
        title=tool.title,
        description=wire.description or None,
        input_schema=thaw(wire.input_schema),
        output_schema=None if tool.output_schema is None else thaw(tool.output_schema),
        annotations=_annotations(tool.hints),
    )


def _annotations(hints: ToolHints | None) -> types.ToolAnnotations | None:
    """The annotations the server gave (the fields MCP defines), or ``None`` for none."""
    if hints is None:
        return None
    return types.ToolAnnotations(
        title=hints.title,
        read_only_hint=hints.read_only,
        destructive_hint=hints.destructive,
        idempotent_hint=hints.idempotent,
        open_world_hint=hints.open_world,
    )


def _ceiling(now: HostTools) -> str:
    """``VS Code's limit of 128 tools`` (its own built-in tools included)."""
    host = now.host or ""
    return f"{HOST_NAMES.get(host, host)}'s limit of {now.ceiling} tools"


def _over_what(now: HostTools) -> str:
    """What cut the host's list, in words: the host's ceiling or the tool budget (whichever
    the catalog was cut to, when more tools were asked for), the token budget when the tools
    cost more, or both joined by ``and``."""
    catalog = now.catalog
    over = []
    if catalog.total_requested > catalog.budget:
        over.append(
            _ceiling(now) if now.ceiling is not None else f"the tool budget of {catalog.budget:,}"
        )
    if catalog.tokens_over_by > 0 and catalog.token_budget is not None:
        over.append(f"the token budget of {catalog.token_budget:,} tokens")
    return " and ".join(over) or f"the tool budget of {catalog.budget:,}"


def _raise(now: HostTools) -> str:
    """The budgets of agentty's config the user could raise instead (a host's ceiling is not
    one of them): ``, or raise toolBudget in agentty's config``, or nothing."""
    catalog = now.catalog
    settings = []
    if catalog.total_requested > catalog.budget and now.ceiling is None:
        settings.append("toolBudget")
    if catalog.tokens_over_by > 0 and catalog.token_budget is not None:
        settings.append("toolTokenBudget")
    return f", or raise {' and '.join(settings)} in agentty's config" if settings else ""


def _line(text: str) -> str:
    """A server's or a file's text for the model: one line, controls visible, bounded."""
    return safe_message(clip(text, ERROR_ROOM))


def _command(host: str | None, *words: str) -> str:
    """An ``agentty-tui`` command line for the model to suggest (``--host`` when it has one)."""
    host_flag = [] if host is None else ["--host", host]
    quoted = [shlex.quote(_line(word)) for word in words]
    return " ".join(["agentty-tui", quoted[0], *host_flag, *quoted[1:]])


def why_down(server: ServerState, host: str | None) -> str:
    """Why ``server`` (not connected) serves nothing, and what to do about it."""
    name = _line(server.name)
    why = f": {_line(server.error)}" if server.error else ""
    if server.status == "connecting":
        return f"server {name} is still connecting; call again in a moment"
    if server.status == "needs_login":
        return f"server {name} needs a login{why}; run: {_command(None, 'login', server.name)}"
    if server.status == "untrusted":
        return (
            f"server {name} waits until its project file is trusted; run: "
            f"{_command(None, 'trust', server.name)}"
        )
    if server.status == "disabled":
        return f"server {name} is switched off{why}; run: {_command(host, 'enable', server.name)}"
    if server.status == "shadowed":
        return f"server {name} is hidden by another entry of the same name"
    return (
        f"server {name} is down ({server.status}{why}); fix its entry or its program, then "
        "save the config (agentty reloads it) or restart it in agentty-tui"
    )


def refusal(name: str, ref: ToolRef | None, now: HostTools) -> str:
    """Why the host may not call ``name`` now (``ref``: the tool it named when the host was
    given it; ``None`` for a name never given), and what to do."""
    host = now.host
    if ref is None:
        return f"agentty has no tool named {_line(name)} here; list the tools again"
    tool = _line(ref.tool)
    server = now.model.server(ref.server)
    if server is None:
        return f"server {_line(ref.server)} is no longer in the config; list the tools again"
    if server.status != "connected":
        return f"tool {tool} cannot be called: {why_down(server, host)}"
    state = server.tool(ref.tool)
    if state is None:
        return f"server {_line(ref.server)} no longer offers {tool}; list the tools again"
    if not state.enabled:
        return (
            f"tool {tool} of server {_line(ref.server)} is switched off in agentty; run: "
            f"{_command(host, 'enable', ref.server, ref.tool)} (or switch it on in the picker)"
        )
    if now.catalog.is_trimmed(ref.server, ref.tool):
        return (
            f"tool {tool} of server {_line(ref.server)} is over {_over_what(now)} "
            f"({len(now.catalog.trimmed)} tools were left out, the lowest priority first); "
            f"switch other tools off in agentty-tui, or pin this one there (p){_raise(now)}"
        )
    return f"tool {tool} of server {_line(ref.server)} has another name now; list the tools again"


def instructions(now: HostTools) -> str:
    """``initialize``'s instructions: what agentty serves, and each server the host misses
    (failed, waiting for a login or for trust, still connecting) with what to do."""
    lines = [
        "agentty serves this workspace's MCP servers; each tool is named <server>__<tool>. "
        "A tool switched off in agentty, or one over its tool budget, is not listed."
    ]
    if now.model.config_error:
        lines.append(f"The config could not be read: {_line(now.model.config_error)}")
    if now.catalog.trimmed:
        count = len(now.catalog.trimmed)
        lines.append(
            f"Over {_over_what(now)}: {count} tool{'s' * (count > 1)} of the lowest priority "
            f"{'were' if count > 1 else 'was'} left out."
        )
    for server in now.model.servers:
        if server.status in ("connected", "disabled", "shadowed"):
            continue
        if server.status == "connecting":
            lines.append(
                f"- {_line(server.name)}: still connecting; its tools arrive with a "
                "tools/list_changed notification"
            )
        else:
            lines.append(f"- {why_down(server, now.host)}")
    return "\n".join(lines)
