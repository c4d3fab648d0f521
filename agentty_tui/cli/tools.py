"""``enable``, ``disable``, ``pin`` and ``unpin``: a tool's (or a server's) switch and pin.

Each is an edit of the config alone, run without an event loop; only ``enable`` or
``disable`` of a tool name new to the file asks the live server first (a ``ServerCheck``,
run as the app). In a workspace the switch is written where each host reads it, and a host
without such a switch is warned about.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from agentty_tui.bridge.logs import default_log_dir, pointing_to_log
from agentty_tui.cli.context import ServerCheck, chosen_host, load_config, trusted
from agentty_tui.cli.output import say, warn
from agentty_tui.cli.servers import edited_file
from agentty_tui.config import operations
from agentty_tui.config.engine import SetServerPriority, SetToolPinned
from agentty_tui.config.trust import TrustGate
from agentty_tui.config.workspace import Workspace
from agentty_tui.specs import PluginConfig, ServerConfig, hosts_in_use

__all__ = [
    "cmd_disable",
    "cmd_enable",
    "cmd_pin",
    "cmd_unpin",
]


async def _advertised(store: Workspace, config: ServerConfig) -> frozenset[str] | None:
    """The tools ``config``'s live server lists, or ``None`` (with a warning) when it did not
    connect."""
    from agentty_tui.bridge.probe import open_server
    from agentty_tui.bridge.roots import server_roots

    # Offered the roots a bridge offers it: a tool gated on roots is listed as it is there.
    roots = server_roots(config, store.root)
    async with open_server(config, default_log_dir(), store.path, roots=roots) as session:
        if session.state.status == "connected":
            return frozenset(t.name for t in session.state.tools)
        error = pointing_to_log(session.state.error or "", session.log)
    _unchecked(config, f"did not connect: {error}")
    return None


def _unchecked(config: ServerConfig, reason: str) -> None:
    """Warn that the tool name was not checked with ``config``'s server, and why."""
    warn(f"warning: could not check the tool name, {config.name!r} {reason}")


def _toggle(path: Path | None, args: argparse.Namespace, enabled: bool) -> int | ServerCheck:
    """``enable``/``disable``: the edit, from the config alone, or (a tool name new to the
    file, of a server that may start) the rest of the command, which asks the server first."""
    if args.tool is None:
        return _set_server_disabled(path, args, not enabled)
    server, tool = args.server, args.tool
    store, loaded = load_config(path, args, runs_servers=True)
    config = operations.configured(loaded, server)

    def write(advertised: frozenset[str] | None) -> int:
        edit = operations.set_tool_enabled(loaded, server, tool, enabled, advertised)
        after = store.apply(edit, host=chosen_host(args))
        # One file says nothing of where; in a workspace the files are news.
        where = "" if store.single else _switched(after, server, "tool", chosen_host(args))
        say(f"{'enabled' if enabled else 'disabled'} {server}/{tool}{where}")
        return 0

    # A tool the config already names needs no live check: the server is asked only about a
    # name that is new to the file (an untrusted file's warning already said why it waits).
    if tool in config.tools.exclude or tool in (config.tools.include or ()):
        return write(None)
    if config.problem is not None:
        _unchecked(config, f"cannot start: {config.problem}")
        return write(None)
    if config.disabled:
        _unchecked(config, "is disabled in the config")
        return write(None)
    if TrustGate(everything=trusted(args)).gated(loaded, config):
        return write(None)

    async def checked() -> int:
        return write(await _advertised(store, config))

    return checked


def _switched(config: PluginConfig, name: str, what: str, host: str | None) -> str:
    """Where a ``what`` (``tool`` or ``server``) switch of ``name`` was written, for every
    host that holds it (``host`` alone, when given): ``: excludeTools in F; disabled_tools in
    G``; each host that has no such switch is warned about (it still sends the tools, or
    starts the server)."""
    from agentty_tui.config.hosts.switches import no_switch

    server = config.server(name)
    if server is None or not server.hosts:
        return ""
    sites: list[str] = []
    for view in hosts_in_use(server.hosts):
        if host is not None and view.source.host != host:
            continue
        site = view.tool_switch if what == "tool" else view.server_switch
        if site is None:
            warn(f"warning: {no_switch(view.source.host, what)}")
        else:
            sites.append(site)
    return ": " + "; ".join(dict.fromkeys(sites)) if sites else ""


def _set_server_disabled(path: Path | None, args: argparse.Namespace, disabled: bool) -> int:
    """``enable NAME`` / ``disable NAME``: the server's disabled flag, in the file's dialect."""
    store, loaded = load_config(path, args)
    server = operations.configured(loaded, args.server)
    verb = "disabled" if disabled else "enabled"
    if server.hosts:  # a workspace: each host holding it is switched where it reads it
        edit = operations.set_server_disabled(loaded, args.server, disabled)
        after = store.apply(edit, host=chosen_host(args))
        say(f"{verb} {args.server!r}{_switched(after, args.server, 'server', chosen_host(args))}")
        return 0
    where = edited_file(store, loaded, args.server)
    if server.disabled == disabled:
        say(f"{args.server!r} is already {verb} in {where}")
        return 0
    store.apply(operations.set_server_disabled(loaded, args.server, disabled))
    say(f"{verb} {args.server!r} in {where}")
    return 0


def _pin(path: Path | None, args: argparse.Namespace, pinned: bool) -> int:
    """``pin`` / ``unpin``: one tool's pin (``tools.pin``), or without a tool the server's
    priority (1: every tool of it pinned; 0), written where the server's pins are kept: its
    own file for agentty's, the pin store for a host's file (never written for a pin)."""
    store, loaded = load_config(path, args)
    operations.configured(loaded, args.server)
    edit: SetToolPinned | SetServerPriority
    if args.tool is None:
        edit = SetServerPriority(server=args.server, priority=1 if pinned else 0)
        what = f"{args.server!r} (every tool)"
    else:
        edit = SetToolPinned(server=args.server, tool=args.tool, pinned=pinned)
        what = f"{args.server}/{args.tool}"
    after = store.apply(edit)
    server = after.server(args.server)
    kept = None if server is None else server.pins_kept_in
    where = kept or edited_file(store, after, args.server)
    say(f"{'pinned' if pinned else 'unpinned'} {what} in {where}")
    return 0


def cmd_pin(path: Path | None, args: argparse.Namespace) -> int:
    """Pin one tool (trimmed only after every unpinned tool), or (without a tool) every tool
    of the server."""
    return _pin(path, args, True)


def cmd_unpin(path: Path | None, args: argparse.Namespace) -> int:
    """Unpin one tool, or (without a tool) the server's priority."""
    return _pin(path, args, False)


def cmd_enable(path: Path | None, args: argparse.Namespace) -> int | ServerCheck:
    """Turn one tool on in the config, or (without a tool) the server itself."""
    return _toggle(path, args, True)


def cmd_disable(path: Path | None, args: argparse.Namespace) -> int | ServerCheck:
    """Turn one tool off in the config, or (without a tool) park the server itself."""
    return _toggle(path, args, False)
