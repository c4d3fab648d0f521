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
import json
import os
import shutil
import signal
import sys
import threading
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from agentty_tui.bridge.logs import default_log_dir, pointing_to_log
from agentty_tui.cli.context import (
    Command,
    ConfigCommand,
    existing_store,
    load_config,
    trusted,
    workspace,
    workspace_only,
)
from agentty_tui.cli.gateway import cmd_status
from agentty_tui.cli.listing import cmd_catalog, cmd_list
from agentty_tui.cli.login import TerminalLoginUI, cmd_login, cmd_logout
from agentty_tui.cli.output import say, say_json, warn
from agentty_tui.cli.servers import cmd_add, cmd_remove
from agentty_tui.cli.tools import cmd_disable, cmd_enable, cmd_pin, cmd_unpin
from agentty_tui.config import ConfigStore, operations
from agentty_tui.config.trust import TrustGate
from agentty_tui.config.workspace import Workspace, parse_hosts, source_dialect
from agentty_tui.errors import (
    ConfigError,
    OperationError,
    UnknownServerError,
    UnknownToolError,
    UsageError,
)
from agentty_tui.specs import ServerConfig, SourceRef
from agentty_tui.terminal_text import safe_block, safe_line

if TYPE_CHECKING:
    # Types alone: routing is imported by connect and disconnect, the live model's classes
    # and the SDK by a command that connects (a config-only one never defines them), anyio
    # by a command that runs an event loop.
    import anyio
    import anyio.abc
    import mcp_types as types

    from agentty_tui.bridge.call_hooks import CallHooks
    from agentty_tui.bridge.early import EarlyStarts
    from agentty_tui.bridge.session import ServerSession
    from agentty_tui.cli.tty_progress import TerminalProgress
    from agentty_tui.config.routing import Route
    from agentty_tui.config.sources import SourceFile

__all__ = [
    "COMMANDS",
    "cmd_call",
    "cmd_connect",
    "cmd_disconnect",
    "cmd_import",
    "cmd_sources",
    "cmd_trust",
    "parse_arguments",
    "run_headless",
]

# --- what a command prints --------------------------------------------------------------


# --- the config a command works on ------------------------------------------------------


# --- the file of a workspace an edit goes to --------------------------------------------


# --- list, catalog, add, remove, enable, disable, call ----------------------------------


def parse_arguments(text: str) -> dict[str, Any]:
    """The JSON object given to ``call``."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"arguments are not valid JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise UsageError('arguments must be a JSON object, e.g. \'{"text": "hi"}\'')
    return value


async def cmd_call(path: Path | None, args: argparse.Namespace) -> int:
    """Call one tool of one server and print its result; status 1 when the tool reports an error."""
    arguments = parse_arguments(args.arguments)
    store, loaded = load_config(path, args, runs_servers=True)
    config = operations.configured(loaded, args.server)
    if config.problem is not None:
        raise ConfigError(config.problem)
    TrustGate(everything=trusted(args)).refuse_untrusted(loaded, config, "was not started")
    from agentty_tui.bridge.early import EarlyStarts

    # The server starts first; the SDK is imported while it boots.
    async with EarlyStarts() as early:
        await early.start_one(config)
        return await _call(store, config, arguments, args, early)


async def _call(
    store: Workspace,
    config: ServerConfig,
    arguments: dict[str, Any],
    args: argparse.Namespace,
    early: EarlyStarts,
) -> int:
    """``cmd_call`` once the server is starting: connect, check the tool, call it, print."""
    from mcp.client.session import ClientRequestContext, ElicitationFnT

    from agentty_tui.bridge.call_hooks import CallHooks, decline, url_elicitations
    from agentty_tui.bridge.elicit import accept_defaults
    from agentty_tui.bridge.probe import open_server
    from agentty_tui.bridge.roots import server_roots
    from agentty_tui.call_result import output_mismatch
    from agentty_tui.cli.report import result_text
    from agentty_tui.cli.tty_elicit import TerminalAsker
    from agentty_tui.cli.tty_progress import TerminalProgress

    # Errors are raised once the session's task group is left, so they reach the command
    # line as themselves rather than wrapped in an exception group.
    problem: Exception | None = None
    # The pages a ``-32042`` refusal names (URL elicitation required), shown once the
    # session is left.
    pages: list[types.ElicitRequestURLParams] | None = None
    # A form: its defaults when told so, else asked on a terminal; where nobody can be asked
    # the server hears a decline (the capability is declared either way).
    elicitation: ElicitationFnT
    if args.accept_defaults:
        elicitation = accept_defaults
    elif sys.stdin.isatty() and sys.stderr.isatty():
        elicitation = TerminalAsker(config.name)
    else:
        elicitation = decline
    # A step-up the server asks for during the call is completed in the browser.
    login_ui = TerminalLoginUI(config.name)
    async with open_server(
        config,
        default_log_dir(),
        store.path,
        elicitation=elicitation,
        login_ui=login_ui,
        early=early,
        # The roots a bridge offers it (the entry's, else the project's): a server that asks
        # gets them, and tools gated on roots are not hidden.
        roots=server_roots(config, store.root),
    ) as session:
        state = session.state
        if state.status != "connected":
            error = pointing_to_log(state.error or "", session.log)
            problem = OperationError(f"server {args.server!r} did not connect: {error}")
        elif args.tool not in {t.name for t in state.tools}:
            problem = UnknownToolError(args.server, args.tool, [t.name for t in state.tools])
        else:
            output_schema = next(t for t in state.tools if t.name == args.tool).output_schema
            # Progress as one updating line, on a terminal only (a script reads a pipe).
            progress = (
                TerminalProgress(safe_line(f"{args.server} / {args.tool}"))
                if sys.stderr.isatty()
                else None
            )
            hooks = None
            if progress is not None:
                asking = elicitation

                async def ask_on_a_clear_line(
                    context: ClientRequestContext, params: types.ElicitRequestParams
                ) -> types.ElicitResult | types.ErrorData:
                    progress.clear()
                    return await asking(context, params)

                hooks = CallHooks(progress=progress, elicitation=ask_on_a_clear_line)
            try:
                outcome = await _call_interruptibly(session, args.tool, arguments, hooks, progress)
            except OperationError as exc:
                # The server's stderr an error quotes goes to its log: the message says where.
                problem = OperationError(pointing_to_log(str(exc), session.log))
                pages = url_elicitations(exc.__cause__)
            finally:
                if progress is not None:
                    progress.clear()
    if pages:
        raise _pages_first(config.name, args.tool, pages, elicitation)
    if problem is not None:
        raise problem
    if outcome is None:
        warn("the call was cancelled (Ctrl-C); the server was told")
        return 130  # the shell's status for a command SIGINT ended
    result = outcome
    mismatch = output_mismatch(output_schema, result)
    if args.json:
        say_json(result.model_dump(mode="json", by_alias=True, exclude_none=True))
        if mismatch is not None:
            warn(f"the structured content does not match the tool's output schema: {mismatch}")
    else:
        say(result_text(result, output_schema))
    return 1 if result.is_error or mismatch is not None else 0


def _pages_first(
    server: str,
    tool: str,
    pages: list[types.ElicitRequestURLParams],
    elicitation: object,
) -> OperationError:
    """The error of a call refused until ``pages`` are opened (``-32042``), once they were
    shown: on a terminal (``elicitation`` is the ``TerminalAsker``) each is opened on a yes;
    without one the error lists them (made safe, domains apart) for the person to open."""
    from agentty_tui.cli.tty_elicit import TerminalAsker, pages_text

    if not isinstance(elicitation, TerminalAsker):
        print(safe_block(pages_text(pages)), file=sys.stderr)
        return OperationError(
            f"server {safe_line(server)!r} needs the {len(pages)} page(s) above opened in a "
            f"browser before {safe_line(tool)!r} can run (URL elicitation required); nothing "
            "was opened (standard input is not a terminal): open them yourself, then call "
            f"{safe_line(tool)!r} again once they are done"
        )
    opened = elicitation.open_pages_first(tool, pages)
    done = "once the page says you are done" if opened else "once you have opened the page(s)"
    return OperationError(
        f"{safe_line(tool)!r} on {safe_line(server)!r} was refused until its page(s) are "
        f"visited (URL elicitation required): call it again {done}"
    )


async def _call_interruptibly(
    session: ServerSession,
    tool: str,
    arguments: dict[str, Any],
    hooks: CallHooks | None,
    progress: TerminalProgress | None = None,
) -> types.CallToolResult | None:
    """The call's result, or ``None`` when Ctrl-C (SIGINT) cancelled it; ``progress``'s line
    is drawn again every second while the call runs (its time run counts on).

    Python turns SIGINT into a ``KeyboardInterrupt`` raised wherever the loop happens to be,
    and the app then stops the server before the request was ever cancelled: the server never
    hears it. While the call runs, SIGINT cancels the call's scope instead: the cancellation
    reaches the SDK's request, which sends ``notifications/cancelled``, and only then does the
    session stop. The call's own errors come out as themselves.
    """
    if threading.current_thread() is not threading.main_thread():  # no signals to take
        return await session.call_tool(tool, arguments, hooks)
    import signal

    import anyio

    results: list[types.CallToolResult] = []
    failures: list[Exception] = []

    async def cancel_on_interrupt(
        scope: anyio.CancelScope, *, task_status: anyio.abc.TaskStatus[None]
    ) -> None:
        with anyio.open_signal_receiver(signal.SIGINT) as interrupts:
            task_status.started()
            async for _signal in interrupts:
                scope.cancel()
                return

    async with anyio.create_task_group() as group:
        await group.start(cancel_on_interrupt, group.cancel_scope)
        if progress is not None:
            group.start_soon(progress.tick)
        try:
            results.append(await session.call_tool(tool, arguments, hooks))
        except Exception as exc:  # raised below, outside the task group (not in a group)
            failures.append(exc)
        group.cancel_scope.cancel()
    if failures:
        raise failures[0]
    return results[0] if results else None


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
