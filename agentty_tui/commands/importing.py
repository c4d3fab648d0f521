"""The ``import`` command: copy servers from another host's config file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import anyio.to_thread

from agentty_tui.commands.loading import existing_store, load_config
from agentty_tui.commands.output import say, warn
from agentty_tui.config import ConfigStore, apply_import, plan_import
from agentty_tui.config.importing import disabled_additions
from agentty_tui.config.sources import is_project_file
from agentty_tui.config.workspace import Workspace
from agentty_tui.errors import UsageError

__all__ = ["cmd_import"]


async def cmd_import(path: Path | None, args: argparse.Namespace) -> int:
    """Copy servers from another host's config: show the plan, ask (unless --yes), add.

    A project's file (a repository's ``.mcp.json``, ``.cursor/mcp.json``, ...) names commands
    nobody vetted: its servers are copied disabled, as the picker's ``i`` copies them, so the
    import itself starts none of them in every project from then on.
    """
    source = existing_store(args.source, args.from_format, "the file to import from").load()
    opened, target = load_config(path, args, create=True)
    store: ConfigStore
    project: Path | None = None
    if not isinstance(opened, Workspace):
        store = opened
    else:
        # A workspace imports into our own user file, where ``add`` writes too.
        store = opened.store(opened.add_to)
        target = store.load()
        project = opened.root  # where its servers will start: its executables are flagged
    plan = plan_import(source, target, carried=store.dialect.timeout_fields)
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
    if not args.yes:
        if not sys.stdin.isatty():
            raise UsageError("not writing without --yes: standard input is not a terminal")
        question = f"add {len(plan.add)} server(s) to {store.path}? [y/N] "
        answer = await anyio.to_thread.run_sync(input, question)
        if answer.strip().lower() not in ("y", "yes"):
            say("nothing written")
            return 0
    result = apply_import(plan, store)
    for name in result.added:
        say(f"added {name!r}")
    for name, why in result.failed:
        warn(f"not added {name!r}: {why}")
    return 1 if result.failed else 0
