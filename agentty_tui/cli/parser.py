"""The argparse tree of ``agentty-tui``: its options, its COMMANDs and theirs.

argparse alone: ``--help`` and ``--version`` import no config package, no pydantic, no event
loop (``tests/test_layers.py`` checks it), so what the parser offers from the config layer is
written out here (``FORMAT_CHOICES``).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from agentty_tui import __version__
from agentty_tui.errors import did_you_mean

__all__ = [
    "FORMAT_CHOICES",
    "chosen_config",
    "command_names",
    "parser_and_commands",
    "unknown_command",
]


FORMAT_CHOICES = ("claude", "cursor", "gemini", "vscode", "codex")
"""What ``--format`` and ``--from-format`` offer: ``config.detect.FORMAT_NAMES``, written out so
that the parser needs no config package (``--help`` and ``--version`` import only argparse; a
test holds the two together)."""


def chosen_config(args: argparse.Namespace) -> Path | None:
    """The one file ``--config`` or ``$AGENTTY_CONFIG`` names; ``None`` for the workspace."""
    given: Path | None = getattr(args, "config", None)
    if given is not None:
        return given
    explicit = os.environ.get("AGENTTY_CONFIG")
    return Path(explicit) if explicit else None


def _common_options() -> argparse.ArgumentParser:
    """The options every command takes (a parent parser)."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--config",
        type=Path,
        default=argparse.SUPPRESS,
        help="one config file, trusted, nothing else (default: $AGENTTY_CONFIG, else the "
        "workspace: every host's files for this project and user)",
    )
    common.add_argument(
        "--hosts",
        default=argparse.SUPPRESS,
        metavar="HOST,...",
        help="which hosts' files the workspace reads (default: the 'hosts' setting, else all)",
    )
    common.add_argument(
        "--format",
        choices=FORMAT_CHOICES,
        default=argparse.SUPPRESS,
        help="the config file's dialect (default: detected from its name and content)",
    )
    common.add_argument(
        "--trust",
        action="store_true",
        default=argparse.SUPPRESS,
        help="run the servers of a config file other users can change (for this run only)",
    )
    return common


def command_names() -> tuple[str, ...]:
    """Every COMMAND: ``demo`` opens the picker, ``serve`` is the gateway, the others are the
    headless ``cli.headless.COMMANDS`` (a test holds them together)."""
    return parser_and_commands()[1]


def parser_and_commands() -> tuple[argparse.ArgumentParser, tuple[str, ...]]:
    """The parser of ``agentty-tui`` (every option and COMMAND) and the names of its COMMANDs."""
    common = _common_options()
    parser = argparse.ArgumentParser(
        prog="agentty-tui",
        description=(
            "Manage the MCP servers of an agent host. With no COMMAND, opens the picker on the "
            "config; a COMMAND runs headless, for scripts."
        ),
        epilog="'agentty-tui COMMAND --help' says more about one command.",
        parents=[common],
    )
    parser.add_argument("--version", action="version", version=f"agentty-tui {__version__}")
    parser.add_argument(
        "--no-daemon",
        action="store_true",
        help="the picker runs its own servers even when the gateway daemon runs (by default "
        "it attaches to the daemon, which serves its workspace to the hosts)",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    commands.add_parser("demo", parents=[common], help="open the picker on a fresh demo config")
    lens = argparse.ArgumentParser(add_help=False)
    lens.add_argument(
        "--host",
        metavar="HOST",
        help="one host's view: what its model gets (a switch: that host's alone)",
    )
    listing = commands.add_parser(
        "list", parents=[common, lens], help="connect and list servers, tools"
    )
    listing.add_argument("--json", action="store_true", help="one JSON object")

    where = argparse.ArgumentParser(add_help=False)
    where.add_argument(
        "--scope", choices=("user", "project", "local"), help="the workspace file to write"
    )
    where.add_argument("--source", metavar="PATH", help="the workspace file to write")
    add = commands.add_parser(
        "add",
        parents=[common, where],
        help="add a server to the config",
        usage=(
            "agentty-tui add NAME [--env KEY=VALUE]... [--cwd DIR] -- COMMAND [ARG]...\n"
            "       agentty-tui add NAME --url URL [--header 'KEY: VALUE']... [--sse]"
        ),
    )
    add.add_argument("name")
    add.add_argument("--url", help="a Streamable HTTP (or SSE) endpoint instead of a command")
    add.add_argument("--sse", action="store_true", help="the URL speaks the legacy SSE transport")
    add.add_argument("--header", action="append", default=[], metavar="'KEY: VALUE'")
    add.add_argument("--env", action="append", default=[], metavar="KEY=VALUE")
    add.add_argument("--cwd", help="working directory of the server")

    remove = commands.add_parser("remove", parents=[common, where], help="remove a server")
    remove.add_argument("name")
    for verb in ("enable", "disable"):
        toggle = commands.add_parser(
            verb,
            parents=[common, lens],
            help=f"{verb} one tool of a server, or (without TOOL) the server itself",
        )
        toggle.add_argument("server")
        toggle.add_argument("tool", nargs="?", help="without it, the server's disabled flag")
    for verb in ("pin", "unpin"):
        pinning = commands.add_parser(
            verb,
            parents=[common],
            help=f"{verb} one tool of a server (a pinned tool is trimmed only after every "
            "unpinned one), or (without TOOL) every tool of it",
        )
        pinning.add_argument("server")
        pinning.add_argument("tool", nargs="?", help="without it, the server's priority")

    catalog = commands.add_parser("catalog", parents=[common, lens], help="the wire catalog")
    catalog.add_argument("--json", action="store_true", help="one JSON object")
    catalog.add_argument("--budget", type=int, help="override the tool budget")
    catalog.add_argument(
        "--token-budget",
        type=int,
        metavar="N",
        help="override the token budget: the tools' definitions may take N tokens",
    )

    importing = commands.add_parser(
        "import", parents=[common], help="copy servers from another host's config into this one"
    )
    importing.add_argument("source", type=Path, help="the other config file")
    importing.add_argument("--yes", action="store_true", help="write without asking")
    importing.add_argument(
        "--from-format", choices=FORMAT_CHOICES, help="the other file's dialect (default: detected)"
    )

    login = commands.add_parser(
        "login", parents=[common], help="log in to a URL server that wants OAuth"
    )
    login.add_argument("name")
    logout = commands.add_parser(
        "logout", parents=[common], help="forget a URL server's tokens and client registration"
    )
    logout.add_argument("name")

    call = commands.add_parser("call", parents=[common], help="call one tool, print the result")
    call.add_argument("server")
    call.add_argument("tool")
    call.add_argument("arguments", nargs="?", default="{}", help="JSON object of arguments")
    call.add_argument("--json", action="store_true", help="print the whole result as JSON")
    call.add_argument(
        "--accept-defaults",
        action="store_true",
        help="answer a form the server asks for with its defaults (else the server is told "
        "forms are not supported); a request to open a URL is declined",
    )
    for verb, what in (
        ("connect", "route a host through agentty's gateway (it then runs agentty-tui serve)"),
        ("disconnect", "give a connected host its own servers back"),
    ):
        routing = commands.add_parser(verb, parents=[common], help=what)
        routing.add_argument("host", help="claude, claude-desktop, cursor, gemini, codex or vscode")
        routing.add_argument("--yes", action="store_true", help="write without asking")
    status = commands.add_parser(
        "status", parents=[common], help="the gateway daemon: its hosts and their servers"
    )
    status.add_argument("--json", action="store_true", help="one JSON object")
    sources = commands.add_parser(
        "sources", parents=[common], help="the workspace's files: which exist, what they hold"
    )
    sources.add_argument("--json", action="store_true", help="one JSON object")
    trust = commands.add_parser(
        "trust", parents=[common], help="trust a project's server (as its entry is now)"
    )
    trust.add_argument("name", nargs="?")
    trust.add_argument("--all", action="store_true", help="every server that waits for trust")
    serve = commands.add_parser(
        "serve",
        parents=[common, lens],
        help="be the one MCP server of a host, over stdio (or HTTP): the workspace's tools, live",
    )
    serve.add_argument(
        "--shared",
        action="store_true",
        help="attach to the user's gateway daemon (started if none runs), so every host shares "
        "its servers: the default, kept for the entries that name it",
    )
    serve.add_argument(
        "--no-daemon",
        dest="alone",
        action="store_true",
        help="run a bridge of this process's own, its servers for this host alone, instead of "
        "attaching to the gateway daemon",
    )
    serve.add_argument(
        "--http",
        action="store_true",
        help="serve Streamable HTTP on 127.0.0.1 (every host that has the bearer token), "
        "served by the gateway daemon (with --no-daemon, by this process)",
    )
    serve.add_argument(
        "--port",
        type=int,
        default=None,
        metavar="N",
        help="with --http: the port (default 8731; 0 takes a free one, which is printed)",
    )
    serve.add_argument(
        "--show-token", action="store_true", help="with --http: print the bearer token too"
    )
    serve.add_argument(
        "--wait",
        type=float,
        default=5.0,
        metavar="SECONDS",
        help=(
            "how long the host's first request waits for servers still connecting "
            "(default 5, at most 600)"
        ),
    )
    return parser, tuple(commands.choices or ())


def unknown_command(words: list[str], names: tuple[str, ...]) -> str | None:
    """The message for a mistyped COMMAND (``lst``), with the closest command; ``None`` when
    the words name a command, or none at all (argparse then reports what else is wrong)."""
    probe = argparse.ArgumentParser(add_help=False, parents=[_common_options()])
    probe.add_argument("command", nargs="?")
    known, _ = probe.parse_known_args(words)
    word: str | None = known.command
    if word is None or word in names:
        return None
    return f"unknown command {word!r}{did_you_mean(word, names)} ('agentty-tui --help' lists them)"
