"""The headless commands behind ``agentty-tui COMMAND``: their table, and how one runs.

``COMMANDS`` names each and the function that runs it, one module per family: ``cli.servers``
(``add``, ``remove``), ``cli.tools`` (``enable``, ``disable``, ``pin``, ``unpin``),
``cli.listing`` (``list``, ``catalog``), ``cli.call``, ``cli.login`` (``login``, ``logout``),
``cli.hosts`` (``import``, ``connect``, ``disconnect``), ``cli.sources`` (``sources``,
``trust``) and ``cli.gateway`` (``status``). Each ``cmd_*`` takes the config path and the
parsed arguments and returns an exit status; the errors they raise are turned into messages
and statuses by ``cli.main``. ``run_headless`` runs one: a command that connects (a coroutine
function) as the app, one that only reads or edits the config (``add``, ``remove``,
``enable``, ``disable``, ``pin``, ``unpin``, ``logout``, ``sources``, ``trust``) without an
event loop.

What connects to a server (``Bridge``, ``open_server``, ``bridge.auth``) is imported where it
connects: it imports the SDK, which a command that only reads or edits the config does without
(``tests/test_layers.py`` checks it). What only such a command shows (the catalog, its reports)
is imported there too, so that a config-only command's start pays for the config alone.
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import signal
import sys
import threading
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import cast

from agentty_tui.cli.call import cmd_call
from agentty_tui.cli.context import Command, ConfigCommand
from agentty_tui.cli.gateway import cmd_status
from agentty_tui.cli.hosts import cmd_connect, cmd_disconnect, cmd_import
from agentty_tui.cli.listing import cmd_catalog, cmd_list
from agentty_tui.cli.login import cmd_login, cmd_logout
from agentty_tui.cli.servers import cmd_add, cmd_remove
from agentty_tui.cli.sources import cmd_sources, cmd_trust
from agentty_tui.cli.tools import cmd_disable, cmd_enable, cmd_pin, cmd_unpin

__all__ = [
    "COMMANDS",
    "run_headless",
]

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
