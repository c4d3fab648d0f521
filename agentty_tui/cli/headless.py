"""The headless commands behind ``agentty-tui COMMAND``, for scripts.

``list``, ``catalog``, ``add``, ``remove``, ``enable``, ``disable``, ``pin``, ``unpin``,
``call``, ``import``, ``login``, ``logout``, ``sources`` and ``trust``: each ``cmd_*`` takes the
config path and the parsed arguments and returns an exit status; the errors they raise are
turned into messages and statuses by ``cli.main``. ``COMMANDS`` names them, ``run_headless``
runs one: a command that
connects (a coroutine function) as the app, one that only reads or edits the config (``add``,
``remove``, ``enable``, ``disable``, ``pin``, ``unpin``, ``logout``, ``sources``, ``trust``)
without an event loop.

Every command works on the file ``--config`` (or ``$AGENTTY_CONFIG``) names, or, without one, on
the workspace of the current folder (``config.opening.open_workspace``): ``path`` is ``None``
then. It is loaded once, its warnings on stderr; an edit of a workspace goes to the file
``--scope`` or ``--source`` chooses. A command writes only through ``say``, ``say_json`` and
``warn``.

What connects to a server (``Bridge``, ``open_server``, ``bridge.auth``) is imported where it
connects: it imports the SDK, which a command that only reads or edits the config does without
(``tests/test_layers.py`` checks it). What only such a command shows (the catalog, its reports)
is imported there too, so that a config-only command's start pays for the config alone.
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import os
import shutil
import signal
import sys
import threading
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, cast

from agentty_tui.cli.call import cmd_call
from agentty_tui.cli.context import (
    Command,
    ConfigCommand,
    existing_store,
    load_config,
    workspace,
    workspace_only,
)
from agentty_tui.cli.gateway import cmd_status
from agentty_tui.cli.listing import cmd_catalog, cmd_list
from agentty_tui.cli.login import cmd_login, cmd_logout
from agentty_tui.cli.output import say, say_json, warn
from agentty_tui.cli.servers import cmd_add, cmd_remove
from agentty_tui.cli.tools import cmd_disable, cmd_enable, cmd_pin, cmd_unpin
from agentty_tui.config import ConfigStore
from agentty_tui.config.workspace import parse_hosts, source_dialect
from agentty_tui.errors import ConfigError, UnknownServerError, UsageError
from agentty_tui.specs import SourceRef
from agentty_tui.terminal_text import safe_line

if TYPE_CHECKING:
    # Types alone: routing is imported by connect and disconnect, the live model's classes
    # and the SDK by a command that connects (a config-only one never defines them), anyio
    # by a command that runs an event loop.

    from agentty_tui.config.routing import Route
    from agentty_tui.config.sources import SourceFile

__all__ = [
    "COMMANDS",
    "cmd_connect",
    "cmd_disconnect",
    "cmd_import",
    "cmd_sources",
    "cmd_trust",
    "run_headless",
]

# --- what a command prints --------------------------------------------------------------


# --- the config a command works on ------------------------------------------------------


# --- the file of a workspace an edit goes to --------------------------------------------


# --- list, catalog, add, remove, enable, disable, call ----------------------------------


# --- import -----------------------------------------------------------------------------


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


# --- connect, disconnect ----------------------------------------------------------------


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


# --- login, logout ----------------------------------------------------------------------


# --- the workspace's own: sources, trust ------------------------------------------------


def cmd_sources(path: Path | None, args: argparse.Namespace) -> int:
    """List every source file the workspace considers: scope, host, dialect, whether it
    exists, how many servers it holds, and why it cannot be read."""
    workspace_only(path, "sources")
    found = workspace(args)
    found.load()
    if getattr(args, "json", False):
        say_json(
            {
                "root": str(found.root),
                "sources": [
                    {
                        "path": report.source.ref.path,
                        "scope": report.source.ref.scope,
                        "host": report.source.ref.host,
                        "dialect": report.source.dialect,
                        "exists": report.exists,
                        "servers": report.servers,
                        "problem": report.problem,
                    }
                    for report in found.reports
                ],
            }
        )
        return 0
    lines = [f"project: {safe_line(str(found.root))}"]
    paths = [safe_line(report.source.ref.path) for report in found.reports]
    width = max(map(len, paths), default=0)
    for report, shown in zip(found.reports, paths, strict=True):
        ref = report.source.ref
        if report.problem is not None:
            state = f"cannot be read: {report.problem}"
        elif not report.exists:
            state = "absent"
        else:
            state = f"{report.servers} server{'' if report.servers == 1 else 's'}"
        lines.append(
            f"{ref.scope:<8} {ref.host:<15} {report.source.dialect:<13} "
            f"{shown:<{width}}  {safe_line(state)}"
        )
    say("\n".join(lines))
    return 0


def cmd_trust(path: Path | None, args: argparse.Namespace) -> int:
    """Trust a project's server (or ``--all`` of them) as its entry is now: it starts from
    then on, until its entry changes."""
    workspace_only(path, "trust")
    if (args.name is None) == (not args.all):
        raise UsageError("give a server NAME, or --all")
    found = workspace(args)
    config = found.load()
    if args.name is not None:
        server = config.server(args.name)
        if server is None:
            raise UnknownServerError(args.name, [s.name for s in config.servers])
        if server.problem is not None:
            # Trust would not start it: say what does stop it, not that 0 servers were trusted.
            raise ConfigError(f"{server.problem} (trusting it would not start it)")
        if server.untrusted is None:
            say(f"{args.name!r} does not wait for trust")
            return 0
    count = found.trust(config, None if args.all else [args.name])
    say(f"trusted {count} server{'' if count == 1 else 's'} of {found.root}")
    return 0


# --- the table of commands --------------------------------------------------------------


COMMANDS: dict[str, Command | ConfigCommand] = {
    "list": cmd_list,
    "add": cmd_add,
    "remove": cmd_remove,
    "enable": cmd_enable,
    "disable": cmd_disable,
    "pin": cmd_pin,
    "unpin": cmd_unpin,
    "catalog": cmd_catalog,
    "import": cmd_import,
    "connect": cmd_connect,
    "status": cmd_status,
    "disconnect": cmd_disconnect,
    "login": cmd_login,
    "logout": cmd_logout,
    "call": cmd_call,
    "sources": cmd_sources,
    "trust": cmd_trust,
}
"""Each headless COMMAND of ``agentty-tui`` and the function that runs it (a coroutine
function: a ``Command``; else a ``ConfigCommand``)."""


def run_headless(name: str, path: Path | None, args: argparse.Namespace) -> int:
    """Run the headless COMMAND ``name``; its exit status.

    A ``Command`` runs as the app (``bridge.shutdown.run_command``: an event loop, a
    subreaper, its run recorded, what an earlier run left running ended first). A
    ``ConfigCommand`` spawns nothing, so it needs none of that: it runs here, without an event
    loop (anyio and asyncio are not even imported), with the stop signals held
    (``_stop_signals_held``); only a ``ServerCheck`` it hands back runs as the app.
    """
    handler = COMMANDS[name]
    if inspect.iscoroutinefunction(handler):
        return _as_app(handler, path, args)
    config_only = cast("ConfigCommand", handler)  # not a coroutine function: one of those
    with _stop_signals_held() as received:
        outcome = config_only(path, args)
    if received:
        first = received[0]
        if first == signal.SIGINT:
            raise KeyboardInterrupt
        with contextlib.suppress(OSError):  # after SIGHUP the terminal may be gone
            print(f"agentty-tui: stopped by {first.name}", file=sys.stderr, flush=True)
        return 128 + int(first)
    if isinstance(outcome, int):
        return outcome
    return _as_app(outcome)


def _as_app(handler: Callable[..., Awaitable[int]], *args: object) -> int:
    """``handler(*args)`` run as the app (imported here: it brings anyio and asyncio)."""
    from agentty_tui.bridge.shutdown import run_command

    status: int = run_command(handler, *args)
    return status


@contextlib.contextmanager
def _stop_signals_held() -> Iterator[list[signal.Signals]]:
    """While a config-only command runs, SIGINT, SIGTERM and SIGHUP are noted (the list it
    yields), not obeyed: an edit under way (its lock, the atomic write, the announcement to
    listening bridges) ends before the process does, as it does under the app's event loop,
    where nothing stops a command between two awaits. A second SIGINT stops it there, as
    asyncio's runner does. Outside the main thread (a test's), nothing is held."""
    received: list[signal.Signals] = []
    if threading.current_thread() is not threading.main_thread():
        yield received
        return

    def note(number: int, _frame: object) -> None:
        if received and number == signal.SIGINT:
            raise KeyboardInterrupt
        received.append(signal.Signals(number))

    held = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    previous = {number: signal.signal(number, note) for number in held}
    try:
        yield received
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
