"""The ``agentty-tui`` command: the picker, or one headless command over the same core.

Exit status: 0 on success (a server that fails to connect is reported, not an error of the
command); 1 for an unknown server or tool, or an operation that failed; 2 for bad usage or a
config that does not load. Headless commands never import the UI, and the bridge's SDK is
imported only by a command that connects: ``--help``, ``--version`` and the commands that only
read or edit the config start without it. The parser itself is argparse alone: ``--help``
and ``--version`` import no config package, no pydantic, no event loop.

This is the entry (``main``, ``run``: what ``python -m agentty_tui`` and the console script
call): the words parsed (``cli.parser``), then the picker (``cli.picker``), the gateway
(``cli.gateway``) or a headless command (``cli.headless``), and the errors they raise turned
into one line and an exit status.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from agentty_tui.cli.output import warn
from agentty_tui.cli.parser import chosen_config, parser_and_commands, unknown_command
from agentty_tui.errors import AgenttyError, ConfigError, OperationError, UsageError

__all__ = [
    "main",
    "run",
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
        from agentty_tui.cli.gateway import run_gateway_daemon

        quiet_logging(None)
        return run_gateway_daemon()
    parser, names = parser_and_commands()
    if (typo := unknown_command(words, names)) is not None:
        warn(typo)
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
        # Each way imported where it is taken: --help and --version stay argparse alone.
        if args.command is None:
            from agentty_tui.cli.picker import open_picker

            return open_picker(
                config_path,
                getattr(args, "format", None),
                getattr(args, "trust", False),
                getattr(args, "hosts", None),
                no_daemon=args.no_daemon,
            )
        if args.command == "demo":
            from agentty_tui.cli.picker import demo_config, open_picker

            return open_picker(demo_config(), None)
        if args.command == "serve":
            from agentty_tui.cli.gateway import cmd_serve

            return cmd_serve(config_path, args)
        from agentty_tui.cli.headless import run_headless

        return run_headless(args.command, config_path, args)
    except (ConfigError, UsageError) as exc:
        warn(str(exc))
        return 2
    except (OperationError, AgenttyError) as exc:
        warn(str(exc))
        return 1
    except OSError as exc:  # e.g. a full disk under a config write
        warn(_os_error_text(exc, config_path))
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a bug or a library's surprise: still one line, not a traceback
        warn(f"unexpected {type(exc).__name__}: {exc}")
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


def _os_error_text(error: OSError, config_path: Path | None) -> str:
    """``path: reason`` for an error of the operating system.

    The path is the one the error names; a write that fails half-way (a full disk) names
    none, and then it is the config file, the only file a command writes itself.
    """
    reason = error.strerror or str(error) or type(error).__name__
    return f"{error.filename or config_path or 'the workspace'}: {reason}"
