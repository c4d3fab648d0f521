"""``sources`` and ``trust``: the workspace's own files, and the trust of its project servers.

Both are about the whole workspace, never one ``--config`` file: ``sources`` lists every file
the workspace considers and what it holds; ``trust`` lets a project's server start, as its
entry is now.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from agentty_tui.cli.context import workspace, workspace_only
from agentty_tui.cli.output import say, say_json
from agentty_tui.errors import ConfigError, UnknownServerError, UsageError
from agentty_tui.terminal_text import safe_line

__all__ = [
    "cmd_sources",
    "cmd_trust",
]


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
