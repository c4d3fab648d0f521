"""The gateway on the command line: ``serve`` (a relay to the user's daemon, or a bridge of its
own with ``--no-daemon``; over stdio or HTTP), the daemon's own entry, and ``status``.

A relay of bytes to the daemon logs nothing and imports neither the model nor the SDK: what
``serve`` needs of the config and the bridge is imported by the way that needs it.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from agentty_tui.cli.output import say, say_json
from agentty_tui.terminal_text import safe_line

__all__ = [
    "cmd_status",
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
