"""Which file of a workspace a command edits: ``--scope`` and ``--source``."""

from __future__ import annotations

import argparse
from pathlib import Path

from agentty_tui.commands.loading import Config
from agentty_tui.config.workspace import Workspace
from agentty_tui.errors import UsageError
from agentty_tui.model import PluginConfig, SourceRef

__all__ = ["add_target", "edited_file", "remove_target"]


def _scope_source(workspace: Workspace, scope: str) -> SourceRef:
    """Where ``add --scope`` puts a server: our user file, the project's ``.mcp.json`` or
    Claude Code's local entry of this project."""
    if scope == "user":
        return workspace.add_to
    host, dialect = ("claude", "claude-local") if scope == "local" else ("claude", "claude")
    for source in workspace.sources:
        if source.ref.scope == scope and source.ref.host == host and source.dialect == dialect:
            return source.ref
    raise UsageError(f"this workspace has no {scope} file (is the host 'claude' read?)")


def _given(args: argparse.Namespace) -> tuple[str | None, str | None]:
    return getattr(args, "scope", None), getattr(args, "source", None)


def _refuse_for_one_file(store: Config, args: argparse.Namespace) -> None:
    if not isinstance(store, Workspace) and any(_given(args)):
        raise UsageError("--scope and --source choose a file of a workspace; --config is one file")


def _named(store: Config, args: argparse.Namespace) -> SourceRef | None:
    """The file ``--source`` names (``--scope`` telling apart the two of ``~/.claude.json``);
    ``None`` without ``--source``. Both options are refused on one file."""
    _refuse_for_one_file(store, args)
    scope, path = _given(args)
    if path is None or not isinstance(store, Workspace):
        return None
    return store.source_by_path(path, scope)


def add_target(store: Config, args: argparse.Namespace) -> SourceRef | None:
    """The file ``add`` writes: ``--source``, else ``--scope``, else the default (``None``)."""
    named = _named(store, args)
    scope = _given(args)[0]
    if named is not None or not isinstance(store, Workspace) or scope is None:
        return named
    return _scope_source(store, scope)


def remove_target(
    store: Config, config: PluginConfig, name: str, args: argparse.Namespace
) -> SourceRef | None:
    """The file ``remove`` edits: the one holding ``name`` among those ``--source`` and
    ``--scope`` name (every file without them); a ``UsageError`` listing them when several
    do. A named file or scope without ``name`` is an error that says where it is
    (``Workspace.holders_in``), never the entry of another file. ``None`` for one file."""
    named = _named(store, args)
    if not isinstance(store, Workspace):
        return None
    holders = store.holders_in(config, name, source=named, scope=_given(args)[0])
    if len(holders) > 1:
        listed = "; ".join(f"{ref.path} ({ref.label})" for ref in holders)
        raise UsageError(f"{name!r} is in {len(holders)} files; say which with --source: {listed}")
    return holders[0]


def edited_file(store: Config, config: PluginConfig, name: str, path: Path | None) -> str:
    """The file an edit of ``name`` went to, for the message that says so."""
    if isinstance(store, Workspace):
        server = config.server(name)
        if server is not None and server.source is not None:
            return server.source.path
        return str(store.add_to.path)
    return str(path)
