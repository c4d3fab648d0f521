"""The ``agentty-tui`` command: the picker, or one headless command over the same core.

Exit status: 0 on success (a server that fails to connect is reported, not an error of the
command); 1 for an unknown server or tool, or an operation that failed; 2 for bad usage or a
config that does not load. Headless commands never import the UI, and the bridge's SDK is
imported only by a command that connects: ``--help``, ``--version`` and the commands that only
read or edit the config start without it. The parser itself is argparse alone: ``--help``
and ``--version`` import no config package, no pydantic, no event loop.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from agentty_tui.cli.parser import chosen_config, parser_and_commands, unknown_command
from agentty_tui.cli.picker import demo_config, open_picker
from agentty_tui.errors import (
    HOST_WITH_CONFIG,
    AgenttyError,
    ConfigError,
    OperationError,
    UsageError,
)
from agentty_tui.terminal_text import safe_message

if TYPE_CHECKING:
    from agentty_tui.gateway.attachment import Attachment

__all__ = [
    "cmd_serve",
    "main",
    "run",
    "run_gateway_daemon",
]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    words = list(sys.argv[1:] if argv is None else argv)
    # Everything after the first "--" is a server's command line, verbatim: split it off
    # before parsing so that none of its words is read as one of ours.
    command_line: list[str] = []
    if "--" in words:
        cut = words.index("--")
        words, command_line = words[:cut], words[cut + 1 :]
    if words == ["gateway-daemon"]:  # started by serve --shared, never typed
        from agentty_tui.bridge.logs import quiet_logging

        quiet_logging(None)
        return run_gateway_daemon()
    parser, names = parser_and_commands()
    if (typo := unknown_command(words, names)) is not None:
        _complain(typo)
        return 2
    args = parser.parse_args(words)
    args.argv = command_line
    config_path = chosen_config(args)
    # A relay of bytes to the daemon logs nothing and imports neither the model nor the SDK.
    relay = args.command == "serve" and not args.alone
    try:
        if not relay:
            # Imported here, past --help and --version; neither module imports the SDK.
            from agentty_tui.bridge.logs import quiet_logging

            quiet_logging(None)
        if args.command is None:
            return open_picker(
                config_path,
                getattr(args, "format", None),
                getattr(args, "trust", False),
                getattr(args, "hosts", None),
                no_daemon=args.no_daemon,
            )
        if args.command == "demo":
            return open_picker(demo_config(), None)
        if args.command == "serve":
            return cmd_serve(config_path, args)
        from agentty_tui.cli.headless import run_headless

        return run_headless(args.command, config_path, args)
    except (ConfigError, UsageError) as exc:
        _complain(str(exc))
        return 2
    except (OperationError, AgenttyError) as exc:
        _complain(str(exc))
        return 1
    except OSError as exc:  # e.g. a full disk under a config write
        _complain(_os_error_text(exc, config_path))
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a bug or a library's surprise: still one line, not a traceback
        _complain(f"unexpected {type(exc).__name__}: {exc}")
        return 1


def run() -> NoReturn:
    """The program (``agentty-tui``, ``python -m agentty_tui``): ``main``, then the process ends
    at once, skipping Python's own teardown.

    When ``main`` returns, every server is stopped, the terminal restored and the run's record
    removed; what the interpreter would still do is free every object one by one (the picker's
    heap, tens of MiB: half a second of a quit on a loaded machine). Only the log files are
    closed and the output flushed first; a flush that fails (the reader of a pipe is gone) makes
    the status 120, as Python's own exit would.
    """
    status = main()
    logging = sys.modules.get("logging")  # only a command that logged has files to close
    if logging is not None:
        logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            status = status or 120
    os._exit(status)


def _complain(message: str) -> None:
    """Print an error on stderr: one line ``agentty-tui: …``, every control shown, not sent
    (a server's stderr that an error carries was pointed to its log before)."""
    print(f"agentty-tui: {safe_message(message)}", file=sys.stderr)


def _os_error_text(error: OSError, config_path: Path | None) -> str:
    """``path: reason`` for an error of the operating system.

    The path is the one the error names; a write that fails half-way (a full disk) names
    none, and then it is the config file, the only file a command writes itself.
    """
    reason = error.strerror or str(error) or type(error).__name__
    return f"{error.filename or config_path or 'the workspace'}: {reason}"


def cmd_serve(config_path: Path | None, args: argparse.Namespace) -> int:
    """``serve``: the gateway over stdio, on the workspace (or file) a command opens."""
    if args.wait < 0:
        raise UsageError("--wait must be zero or more")
    if not args.http and (args.port is not None or args.show_token):
        raise UsageError("--port and --show-token go with --http")
    if args.shared and args.alone:
        raise UsageError("--shared and --no-daemon exclude each other")
    if args.host is not None and config_path is not None:
        raise UsageError(HOST_WITH_CONFIG)
    if not args.alone:
        if args.http:
            return _serve_http_shared(config_path, args)
        return _serve_shared(config_path, args)
    if args.http:
        return _serve_http(config_path, args)
    from agentty_tui.bridge.shutdown import run_command
    from agentty_tui.cli.headless import open_config, trusted
    from agentty_tui.config.workspace import parse_hosts
    from agentty_tui.gateway.stdio.serve import serve_stdio

    host = None if args.host is None else parse_hosts([args.host], "--host")[0]
    workspace = open_config(config_path, args)
    return run_command(serve_stdio, workspace, host, trusted(args), args.wait)


def _serve_http(config_path: Path | None, args: argparse.Namespace) -> int:
    """``serve --http``: the gateway over Streamable HTTP on 127.0.0.1 (``gateway/http``)."""
    from agentty_tui.bridge.shutdown import run_command
    from agentty_tui.cli.headless import open_config, trusted
    from agentty_tui.config.workspace import parse_hosts
    from agentty_tui.gateway.http.endpoint import serve_http
    from agentty_tui.gateway.http.loopback import DEFAULT_PORT

    host = None if args.host is None else parse_hosts([args.host], "--host")[0]
    workspace = open_config(config_path, args)
    port = DEFAULT_PORT if args.port is None else args.port

    async def serve(*_: object) -> int:
        return await serve_http(
            workspace, host, trusted(args), args.wait, port=port, show_token=args.show_token
        )

    return run_command(serve)


def _serve_shared(config_path: Path | None, args: argparse.Namespace) -> int:
    """``serve --shared``: the host's pipe relayed to the user's gateway daemon, which opens
    the workspace; this process stays a relay of bytes (no SDK, no bridge imported).

    Not run as the app (``run_command``): it holds no server, and the app's way out would end
    the daemon it starts (its children outside its session)."""
    import anyio

    from agentty_tui.gateway.rendezvous import rendezvous
    from agentty_tui.gateway.stdio.shared import attach_stdio

    attachment = _attachment(config_path, args)
    try:
        status: int = anyio.run(attach_stdio, attachment, rendezvous(os.environ))
    except KeyboardInterrupt:
        return 130
    return status


def _attachment(config_path: Path | None, args: argparse.Namespace) -> Attachment:
    """What ``serve --shared`` asks the daemon for: this folder's workspace (or the file),
    for the host, as this process's environment sees it."""
    from agentty_tui.gateway.attachment import Attachment

    host = None if args.host is None else args.host.strip().lower()  # the daemon checks it
    if config_path is not None and not config_path.exists():
        raise ConfigError("no such config file", path=str(config_path))
    config = None if config_path is None else str(config_path.absolute())
    trust = bool(getattr(args, "trust", False))
    # The host's environment goes with it: the daemon starts its servers as the host would.
    home, env = str(Path.home()), dict(os.environ)
    return Attachment(str(Path.cwd()), config, host, trust, args.wait, home, env)


def _serve_http_shared(config_path: Path | None, args: argparse.Namespace) -> int:
    """``serve --http --shared``: this process binds the port and holds the token; the user's
    gateway daemon serves the hosts on it over the bridge every host shares
    (``gateway/http/shared``). No SDK, no bridge, no uvicorn here; not run as the app either
    (see ``_serve_shared``)."""
    import dataclasses

    import anyio

    from agentty_tui.gateway.http.loopback import DEFAULT_PORT, announcement, listen_socket
    from agentty_tui.gateway.http.shared import attach_http
    from agentty_tui.gateway.http.token import read_or_make_token, token_path
    from agentty_tui.gateway.rendezvous import rendezvous

    attachment = _attachment(config_path, args)
    # The port first: one another program holds is said before a daemon is looked for.
    with listen_socket(DEFAULT_PORT if args.port is None else args.port) as listener:
        token_file = token_path(os.environ)
        token = read_or_make_token(token_file)
        port = int(listener.getsockname()[1])
        said = announcement(port, token_file, token if args.show_token else None)
        attachment = dataclasses.replace(attachment, http_token=token)
        try:
            status: int = anyio.run(attach_http, attachment, rendezvous(os.environ), listener, said)
        except KeyboardInterrupt:
            return 130
    return status


def run_gateway_daemon() -> int:
    """The gateway daemon (started by ``serve --shared``; not a command of its own)."""
    from agentty_tui.bridge.shutdown import run_command
    from agentty_tui.gateway.daemon.process import idle_setting, run_daemon
    from agentty_tui.gateway.rendezvous import rendezvous

    return run_command(run_daemon, rendezvous(os.environ), idle_setting(os.environ))
