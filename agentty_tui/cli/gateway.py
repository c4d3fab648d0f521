"""The gateway on the command line: ``serve`` (a relay to the user's daemon, or a bridge of its
own with ``--no-daemon``; over stdio or HTTP), the daemon's own entry, and ``status``.

A relay of bytes to the daemon logs nothing and imports neither the model nor the SDK: what
``serve`` needs of the config and the bridge is imported by the way that needs it.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

from agentty_tui.cli.output import say, say_json
from agentty_tui.errors import HOST_WITH_CONFIG, ConfigError, UsageError
from agentty_tui.terminal_text import safe_line

if TYPE_CHECKING:
    from agentty_tui.gateway.attachment import Attachment

__all__ = [
    "cmd_serve",
    "cmd_status",
    "run_gateway_daemon",
]


async def cmd_status(path: Path | None, args: argparse.Namespace) -> int:
    """What the user's gateway daemon holds: itself, the hosts attached to it, the servers of
    each workspace it serves (``--json``: one object, ``{"daemon": null}`` when none runs)."""
    from agentty_tui.gateway.daemon.process import daemon_status
    from agentty_tui.gateway.rendezvous import rendezvous

    place = rendezvous(os.environ)
    found = await daemon_status(place)
    if getattr(args, "json", False):
        say_json({"daemon": found, "socket": str(place.socket)})
        return 0
    if found is None:
        say(f"no gateway daemon answers at {place.socket} (agentty-tui serve --shared starts one)")
        return 0
    say(f"gateway daemon {found.get('pid')} at {place.socket}")
    hosts = found.get("hosts") or []
    say(f"{len(hosts)} host(s) attached" + (":" if hosts else ""))
    for host in hosts:
        line = f"{host.get('host') or 'every host'}  {host.get('workspace')}"
        say(f"  {safe_line(line)}  since {host.get('since')}")
    for picker in found.get("pickers") or []:
        line = f"picker {picker.get('pid')} on {picker.get('workspace')}"
        say(f"{safe_line(line)}  since {picker.get('since')}")
    for workspace in found.get("workspaces") or []:
        say(f"workspace {safe_line(str(workspace.get('workspace')))}")
        for server in workspace.get("servers") or []:
            pid = f"  pid {server['pid']}" if server.get("pid") else ""
            line = f"{server.get('name')}  {server.get('status')}  {server.get('tools')} tools{pid}"
            say(f"  {safe_line(line)}")
    return 0


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
    from agentty_tui.cli.context import open_config, trusted
    from agentty_tui.config.workspace import parse_hosts
    from agentty_tui.gateway.stdio.serve import serve_stdio

    host = None if args.host is None else parse_hosts([args.host], "--host")[0]
    workspace = open_config(config_path, args)
    return run_command(serve_stdio, workspace, host, trusted(args), args.wait)


def _serve_http(config_path: Path | None, args: argparse.Namespace) -> int:
    """``serve --http``: the gateway over Streamable HTTP on 127.0.0.1 (``gateway/http``)."""
    from agentty_tui.bridge.shutdown import run_command
    from agentty_tui.cli.context import open_config, trusted
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
