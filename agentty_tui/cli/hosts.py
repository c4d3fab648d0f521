"""``import``, ``connect`` and ``disconnect``: agentty and the other hosts' files.

``import`` copies servers from another host's config; ``connect`` routes a host through
agentty's gateway (its user file's servers move to agentty, which the host then runs as its
one server) and ``disconnect`` gives them back (``config.routing``). Each shows its plan and
writes only on ``--yes`` or the user's yes on a terminal.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from agentty_tui.cli.context import existing_store, load_config, workspace, workspace_only
from agentty_tui.cli.output import say, warn
from agentty_tui.config import ConfigStore
from agentty_tui.config.workspace import parse_hosts, source_dialect
from agentty_tui.errors import UsageError
from agentty_tui.specs import SourceRef

if TYPE_CHECKING:
    # Types alone: routing is imported by connect and disconnect, where they plan.
    from agentty_tui.config.routing import Route
    from agentty_tui.config.sources import SourceFile

__all__ = [
    "cmd_connect",
    "cmd_disconnect",
    "cmd_import",
]


async def cmd_import(path: Path | None, args: argparse.Namespace) -> int:
    """Copy servers from another host's config: show the plan, ask (unless --yes), add.

    A project's file (a repository's ``.mcp.json``, ``.cursor/mcp.json``, ...) names commands
    nobody vetted: its servers are copied disabled, as the picker's ``i`` copies them, so the
    import itself starts none of them in every project from then on.
    """
    from agentty_tui.config import apply_import, plan_import
    from agentty_tui.config.importing import disabled_additions, read_source, with_notes
    from agentty_tui.config.sources import is_project_file

    # Its pins come with it: from the file itself, or from the pin store for a host's file.
    source_store = existing_store(args.source, args.from_format, "the file to import from")
    opened = load_config(path, args, create=True)[0]
    source, notes = read_source(source_store, opened.pins)
    # A workspace imports into our own user file, where ``add`` writes too (the one file of
    # ``--config``).
    store = opened.store(opened.add_to)
    target = store.load()
    # Where a project's servers will start: their executables inside it are flagged.
    project = None if opened.single else opened.root
    plan = with_notes(plan_import(source, target, carried=store.dialect.timeout_fields), notes)
    parked = is_project_file(args.source, Path.home())
    if parked:
        plan = disabled_additions(plan)
    say(plan.describe(project=project))
    if parked and plan.add:
        say(
            f"{args.source} is a project's file: its servers are added disabled "
            "(agentty-tui enable NAME starts one)"
        )
    if not plan.add:
        return 0
    if not await _confirmed(args, f"add {len(plan.add)} server(s) to {store.path}? [y/N] "):
        return 0
    result = apply_import(plan, store, pins=opened.pins, place=opened.pin_place(opened.add_to))
    for name in result.added:
        say(f"added {name!r}")
    for name, why in result.failed:
        warn(f"not added {name!r}: {why}")
    return 1 if result.failed else 0


async def _confirmed(args: argparse.Namespace, question: str) -> bool:
    """Whether to write: ``--yes``, else the user's answer on the terminal (``nothing
    written`` said on a no); a ``UsageError`` without a terminal to ask on."""
    import anyio.to_thread

    if args.yes:
        return True
    if not sys.stdin.isatty():
        raise UsageError("not writing without --yes: standard input is not a terminal")
    answer = await anyio.to_thread.run_sync(input, question)
    if answer.strip().lower() in ("y", "yes"):
        return True
    say("nothing written")
    return False


def _host_file(args: argparse.Namespace) -> tuple[SourceFile, ConfigStore, Route]:
    """The user file of the host ``args.host`` names, its store and its route."""
    from agentty_tui.config.routing import route_of
    from agentty_tui.config.sources import find_project_root, workspace_sources

    (host,) = parse_hosts([args.host], "HOST")
    if host == "agentty":
        raise UsageError("agentty is the gateway: name a host (claude, cursor, vscode, ...)")
    home, root = Path.home(), find_project_root(Path.cwd())
    source = next(
        s for s in workspace_sources(home, os.environ, root) if s.ref == _user_ref(s, host)
    )
    store = ConfigStore(source.path, dialect=source_dialect(source, root))
    return source, store, route_of(home, os.environ, host, source.dialect)


def _user_ref(source: SourceFile, host: str) -> SourceRef | None:
    return source.ref if source.ref.host == host and source.ref.scope == "user" else None


def _agentty_program() -> list[str]:
    """How a host starts agentty: its executable on PATH, else this interpreter's module."""
    found = shutil.which("agentty-tui")
    return [str(Path(found).absolute())] if found else [sys.executable, "-m", "agentty_tui"]


async def cmd_connect(path: Path | None, args: argparse.Namespace) -> int:
    """Route a host through agentty's gateway: its user file's servers move to agentty, which
    the host then runs as its one server (``config.routing``)."""
    from agentty_tui.config.routing import connect, plan_connect

    workspace_only(path, "connect")
    source, store, route = _host_file(args)
    found = workspace(args)
    config = found.load()
    if source.ref.host == "claude":
        # Claude Code would not start the gateway's entry either: the servers it runs are the
        # managed file's alone, and moving the user's entries would only hide them.
        found.refuse_in_lockdown("connect Claude Code")
    direct = [
        f"{server.name} ({view.source.path})"
        for server in config.servers
        for view in server.hosts
        if view.source.host == source.ref.host and view.source.scope != "user"
    ]
    plan = plan_connect(source, store, route, _agentty_program(), direct)
    say(plan.describe())
    if not await _confirmed(args, f"connect {args.host}? [y/N] "):
        return 0
    connect(plan, store)
    say(f"connected {args.host}: it runs agentty-tui serve (agentty-tui disconnect undoes it)")
    return 0


async def cmd_disconnect(path: Path | None, args: argparse.Namespace) -> int:
    """Give a connected host its own servers back (``config.routing``)."""
    from agentty_tui.config.routing import disconnect, plan_disconnect

    workspace_only(path, "disconnect")
    source, store, route = _host_file(args)
    plan = plan_disconnect(source, store, route)
    say(plan.describe())
    if not await _confirmed(args, f"disconnect {args.host}? [y/N] "):
        return 0
    disconnect(plan, store)
    say(f"disconnected {args.host}: {source.path} holds its own servers again")
    return 0
