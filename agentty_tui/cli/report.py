"""What the headless commands print: model snapshots and wire catalogs as text or JSON.

Pure functions, so the output contract (which scripts rely on) is tested without a terminal.
The JSON shapes are a stable contract: keys are only ever added, and every string is the
server's or the file's as it was (the encoder escapes controls). The text forms are for a
terminal: each field a server or a file supplied passes through ``safe_line`` (a field on one
line: a newline in it shows as ``⏎``) or ``safe_block`` (an error over several lines).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from agentty_tui.catalog import (
    DEFAULT_FAMILY,
    FAMILIES,
    TOKEN_COUNTER,
    ToolRef,
    WireCatalog,
    WireTool,
    qualified_name,
)
from agentty_tui.catalog.host_limits import HostLimits
from agentty_tui.config.entry_rules import fact_lines, facts_json
from agentty_tui.frozen import thaw
from agentty_tui.model import HttpSpec, PluginModel, ServerState, SourceRef, hosts_in_use
from agentty_tui.secrets import mask_url, mask_value
from agentty_tui.terminal_text import safe_block, safe_line

__all__ = ["catalog_json", "catalog_text", "model_json", "model_text", "result_text"]

_TOOL_NAME_LIMIT = 40
"""Widest tool-name column of ``list``'s text (as the picker's)."""


def _spec_json(server: ServerState) -> dict[str, Any] | None:
    spec = server.spec
    if spec is None:
        return None
    if isinstance(spec, HttpSpec):
        return {
            "url": mask_url(spec.url),
            "transport": spec.transport,
            "headers": {key: mask_value(value) for key, value in spec.headers.items()},
        }
    return {
        "command": spec.command,
        "args": [mask_url(arg) for arg in spec.args],  # a URL argument (mcp-remote) too
        "env": {key: mask_value(value) for key, value in spec.env.items()},
        "cwd": spec.cwd,
    }


def _auth_json(server: ServerState) -> dict[str, Any]:
    """``"auth"`` for a URL server that logs in with OAuth: never a token, only its facts."""
    if server.auth is None:
        return {}
    expires = server.auth.expires_at
    return {
        "auth": {
            "logged_in": server.auth.logged_in,
            "scopes": list(server.auth.scopes),
            "expires_at": None
            if expires is None
            else datetime.fromtimestamp(expires, UTC).isoformat(timespec="seconds"),
        }
    }


def _source_json(ref: SourceRef) -> dict[str, Any]:
    found: dict[str, Any] = {"path": ref.path, "scope": ref.scope, "host": ref.host}
    if ref.plugin is not None:  # a Claude Code plugin's file: read-only, ``claude plugin``'s
        found["plugin"] = ref.plugin
    if ref.admin is not None:  # a file the administrator keeps: read-only
        found["admin"] = ref.admin
    return found


def _sources_json(server: ServerState) -> dict[str, Any]:
    """``"source"`` (a workspace's server: the file its entry is in), ``"entry"`` when its
    entry there has another name (``time`` for ``time@codex``), ``"sources"`` when the same
    server stands in several files, ``"shadowed_by"`` for a shadowed entry."""
    if server.source is None:
        return {}
    found: dict[str, Any] = {"source": _source_json(server.source)}
    if server.entry is not None:
        found["entry"] = server.entry
    if server.also_in:
        found["sources"] = [_source_json(ref) for ref in (server.source, *server.also_in)]
    if server.shadowed_by is not None:
        found["shadowed_by"] = _source_json(server.shadowed_by)
    return found


def _pins_json(server: ServerState, config_path: str | None) -> dict[str, Any]:
    """``"pins"`` of a server with a priority or a pinned tool: the ``priority``, the pinned
    ``tools`` and where they are kept (``kept_in``: the pin store for a host's file, else the
    entry's own file: ``config_path`` for one file)."""
    tools = [tool.bare for tool in server.tools if tool.pinned]
    if not server.priority and not tools:
        return {}
    own = server.source.path if server.source is not None else config_path
    return {
        "pins": {
            "priority": server.priority,
            "tools": tools,
            "kept_in": server.pins_kept_in or own,
        }
    }


def _hosts_json(server: ServerState) -> dict[str, Any]:
    """``"hosts"`` (a workspace's server): what each host holding it does with it, by host (the
    host's first file, in its own precedence, when it holds it in several)."""
    if not server.hosts:
        return {}
    return {
        "hosts": {
            view.source.host: {
                "source": _source_json(view.source),
                "off": view.off,
                "off_by": view.off_by,
                "approved": view.approved,
                "enabled_tools": [t.bare for t in server.tools if view.sends(t.bare)],
                "switch": view.tool_switch,
                "server_switch": view.server_switch,
            }
            for view in hosts_in_use(server.hosts)
        }
    }


def _tokens(name: str, description: str, schema: Any) -> dict[str, int]:
    """A tool's ``"tokens"``: its definition's count in each model family."""
    return {family: TOKEN_COUNTER.count(name, description, schema, family) for family in FAMILIES}


def _wire_tokens(tool: WireTool) -> dict[str, int]:
    return {family: TOKEN_COUNTER.count_tool(tool, family) for family in FAMILIES}


def tokens_json(tools: tuple[WireTool, ...]) -> dict[str, dict[str, Any]]:
    """The totals' ``"tokens"``: per model family, what ``tools`` together cost (``tools``),
    the request's own overhead kept apart (``request_overhead``, ``null`` where unpublished),
    whether the count is the family's own tokenizer's (``exact``) and which one (``encoding``).
    """
    return {
        name: {
            "tools": TOKEN_COUNTER.total(tools, name),
            "request_overhead": family.request_overhead,
            "exact": family.exact,
            "encoding": family.encoding,
        }
        for name, family in FAMILIES.items()
    }


def model_json(model: PluginModel, catalog: WireCatalog) -> dict[str, Any]:
    """``list --json``: every server with status, error and tools, plus the budget figures; a
    workspace's shadowed entries follow the others, with the status ``shadowed``. A server
    waiting for trust lists in ``trust_facts`` what trusting it runs or sends (``label``,
    ``value`` masked, ``alert``). Each tool's ``tokens`` is its definition's cost per model
    family under its wire name (a tool without one, under the name it would get unclashed);
    the top-level ``tokens`` totals what the wire catalog ships."""
    wire = catalog.names.by_identity
    return {
        "config": model.config_path,
        "servers": [
            {
                "name": server.name,
                "status": server.status,
                "error": server.error,
                **_sources_json(server),
                **_hosts_json(server),
                "spec": _spec_json(server),
                # What trusting a waiting server runs or sends (empty for the others).
                "trust_facts": facts_json(server.trust_facts),
                "server_info": server.info.model_dump() if server.info else None,
                "warnings": list(server.warnings),
                **_auth_json(server),
                **_pins_json(server, model.config_path),
                "tools": [
                    {
                        "name": tool.bare,
                        "enabled": tool.enabled,
                        "title": tool.title,
                        "description": tool.description,
                        "trimmed": catalog.is_trimmed(server.name, tool.bare),
                        "needs_tasks": tool.needs_tasks,
                        "pinned": tool.pinned or server.priority > 0,
                        # The server's annotations, as it sent them (hints, not verified).
                        "hints": tool.hints.model_dump() if tool.hints else None,
                        "tokens": _tokens(
                            wire.get(ToolRef(server.name, tool.bare))
                            or qualified_name(server.name, tool.bare),
                            tool.description or "",
                            tool.input_schema,
                        ),
                    }
                    for tool in server.tools
                ],
            }
            for server in (*model.servers, *model.shadowed)
        ],
        "budget": {
            "limit": catalog.budget,
            "total": catalog.total_requested,
            "trimmed": len(catalog.trimmed),
            "token_limit": catalog.token_budget,
        },
        "tokens": tokens_json(catalog.tools),
    }


NEEDS_TASKS = "needs task support"
"""Why a tool that runs only as a task is not on the wire."""


def host_json(limits: HostLimits, catalog: WireCatalog) -> dict[str, Any]:
    """``catalog --host H --json``'s ``"host"``: the family the host's tools are counted in
    and the host's own limits (``catalog.host_limits``), with whether it defers this catalog's
    MCP tools now."""
    mcp = [tool for tool in catalog.tools if tool.server is not None]
    tokens = sum(TOKEN_COUNTER.count_tool(tool, limits.family) for tool in mcp)
    return {
        "name": limits.host,
        "family": limits.family,
        "family_estimate": limits.family_estimate,
        "tool_ceiling": limits.tool_ceiling,
        "defers_from_tools": limits.defers_from_tools,
        "defers_past_tokens": limits.defers_past_tokens,
        "name_limit": limits.name_limit,
        "mcp_tools": len(mcp),
        "mcp_tokens": tokens,
        "defers_now": limits.defers(len(mcp), tokens),
    }


def catalog_json(catalog: WireCatalog, limits: HostLimits | None = None) -> dict[str, Any]:
    """``catalog --json``: the wire tools the model would see, each with its ``tokens`` per
    model family, the totals (``tokens``, see :func:`tokens_json`), and what the budgets
    dropped; with ``limits`` (``--host``), that host's family and limits (``"host"``, see
    :func:`host_json`)."""
    found: dict[str, Any] = {} if limits is None else {"host": host_json(limits, catalog)}
    return {
        **found,
        "tools": [
            {
                "name": tool.name,
                "server": tool.server,
                "tool": tool.tool,
                "description": tool.description,
                "input_schema": thaw(tool.input_schema),
                "tokens": _wire_tokens(tool),
            }
            for tool in catalog.tools
        ],
        "tokens": tokens_json(catalog.tools),
        "token_budget": catalog.token_budget,
        "tokens_over_by": catalog.tokens_over_by,
        "budget": catalog.budget,
        "total": catalog.total_requested,
        "over_budget": catalog.over_budget,
        "trimmed": len(catalog.trimmed),
        "trimmed_tools": [{"server": ref.server, "tool": ref.tool} for ref in catalog.trimmed],
        "needs_tasks": [{"server": ref.server, "tool": ref.tool} for ref in catalog.needs_tasks],
        "warning": catalog.warning,
    }


def _by_source(model: PluginModel) -> list[ServerState]:
    """The servers, then the shadowed entries, grouped by the file they are in (a group for
    each file, in the order the files first appear); one file's servers in their order."""
    groups: dict[SourceRef | None, list[ServerState]] = {}
    for server in (*model.servers, *model.shadowed):
        groups.setdefault(server.source, []).append(server)
    return [server for group in groups.values() for server in group]


def model_text(model: PluginModel, catalog: WireCatalog, *, workspace: bool = False) -> str:
    """``list``: a human-readable table of servers and their tools (``workspace``: the model
    is of a workspace, whose ``config_path`` is the project's folder)."""
    lines: list[str] = []
    names = {server.name: safe_line(server.name) for server in model.servers}
    width = max(map(len, names.values()), default=0)
    # One tool-name column for every server, so that labels line up down the whole list; a
    # name longer than the limit pushes its own label only.
    tool_width = min(
        max((len(safe_line(t.bare)) for s in model.servers for t in s.tools), default=0),
        _TOOL_NAME_LIMIT,
    )
    group: SourceRef | None = None
    for server in _by_source(model):
        if server.source is not None and server.source != group:
            group = server.source
            if lines:
                lines.append("")
            lines.append(f"{safe_line(group.label)}  ({safe_line(group.path)})")
        count = f"{server.enabled_count}/{len(server.tools)} tools on" if server.tools else ""
        lines.append(f"{names[server.name]:<{width}}  {server.status:<10}  {count}".rstrip())
        if server.status == "needs_login":
            lines.append(f"    run: agentty-tui login {names[server.name]}")
        elif server.error:
            for line in safe_block(server.error).split("\n"):
                lines.append(f"    ! {line}")
        # A server waiting for trust: everything trusting it would run or send.
        lines += fact_lines(server.trust_facts, indent="      ")
        for warning in server.warnings:
            lines.append(f"    warning: {warning}")
        for tool in server.tools:
            mark = "on " if tool.enabled else "off"
            trimmed = (
                "  (trimmed: over budget)" if catalog.is_trimmed(server.name, tool.bare) else ""
            )
            if tool.enabled and tool.needs_tasks:
                trimmed = f"  ({NEEDS_TASKS}: not sent)"
            label = f"  {safe_line(tool.label)}" if tool.label else ""
            name = safe_line(tool.bare)
            if label or trimmed:
                name = name.ljust(tool_width)
            lines.append(f"    [{mark}] {name}{label}{trimmed}")
    if not model.servers:
        where = safe_line(str(model.config_path))
        if workspace:
            lines.append(
                f"no servers configured in the workspace of {where} "
                "(agentty-tui sources lists the files it reads)"
            )
        else:
            lines.append(f"no servers configured in {where}")
    lines.append("")
    lines.append(
        f"wire: {len(catalog.tools)} of {catalog.total_requested} tools (budget {catalog.budget})"
    )
    if catalog.warning:
        lines.append(f"warning: {catalog.warning}")
    return "\n".join(lines)


def catalog_text(catalog: WireCatalog, limits: HostLimits | None = None) -> str:
    """``catalog``: one wire name a line, with its tokens and where it comes from; then the
    totals, saying whether the count is exact or an estimate. Counted in
    :data:`DEFAULT_FAMILY`, or with ``limits`` (``--host``) in that host's family, followed by
    the host's own limits and whether it defers these tools now."""
    family_name = DEFAULT_FAMILY if limits is None else limits.family
    width = max((len(tool.name) for tool in catalog.tools), default=0)
    counts = [TOKEN_COUNTER.count_tool(tool, family_name) for tool in catalog.tools]
    digits = max((len(f"{count:,}") for count in counts), default=0)
    lines = [
        f"{tool.name:<{width}}  {count:>{digits},}  "
        + ("native" if tool.server is None else safe_line(f"{tool.server} / {tool.tool}"))
        for tool, count in zip(catalog.tools, counts, strict=True)
    ]
    lines.append("")
    family = FAMILIES[family_name]
    budget = f"budget {catalog.budget}"
    if catalog.token_budget is not None:
        budget += f", token budget {catalog.token_budget:,}"
    lines.append(f"{len(catalog.tools)} tools on the wire, {sum(counts):,} tokens, {budget}")
    how = "exact" if family.exact else f"an {family.encoding} estimate"
    overhead = (
        f"; each request adds {family.request_overhead:,} for tool use"
        if family.request_overhead is not None
        else ""
    )
    lines.append(f"tokens: {family.label}'s, {how}{overhead}")
    if limits is not None:
        lines.append(_host_line(limits, host_json(limits, catalog)))
    if catalog.warning:
        lines.append(f"warning: {catalog.warning}")
        for ref in catalog.trimmed:
            lines.append(f"  trimmed: {safe_line(ref.server)} / {safe_line(ref.tool)}")
    if catalog.needs_tasks:
        lines.append(f"not sent, {NEEDS_TASKS} (every call without it fails):")
        for ref in catalog.needs_tasks:
            lines.append(f"  {safe_line(ref.server)} / {safe_line(ref.tool)}")
    return "\n".join(lines)


def _host_line(limits: HostLimits, host: dict[str, Any]) -> str:
    """``catalog --host``'s line on the host (``host``: its ``host_json``): its limits in
    words and what they mean now."""
    from agentty_tui.config.hosts.switches import HOST_NAMES

    name = HOST_NAMES.get(limits.host, limits.host)
    rules = ", ".join(limits.rules()) or "no tool limit known"
    estimate = (
        " (no offline tokenizer for its models: an estimate)" if host["family_estimate"] else ""
    )
    now = (
        f"; it defers them now ({host['mcp_tools']} MCP tools, {host['mcp_tokens']:,} tokens)"
        if host["defers_now"]
        else ""
    )
    return f"{name}: {rules}{estimate}{now}"


def result_text(result: Any, output_schema: Any = None) -> str:
    """A tool call result for a terminal (``call_result.readable_result``, with a mismatch
    against the tool's ``output_schema`` stated): every control in the server's text made
    visible (``safe_block``)."""
    from agentty_tui.call_result import readable_result

    return safe_block(readable_result(result, output_schema))
