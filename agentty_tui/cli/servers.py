"""``add`` and ``remove``: a server's entry written to, or taken out of, one file of the
workspace.

In a workspace an edit goes to the file ``--scope`` or ``--source`` chooses (``add_target``,
``remove_target``); on one file (``--config``) both options are refused. ``add`` builds the
entry by the config's rule book (``config.entry_rules``), so what it writes is what a read
would accept.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from agentty_tui.cli.context import load_config
from agentty_tui.cli.output import say, warn
from agentty_tui.config import operations
from agentty_tui.config.engine import RemoveServer
from agentty_tui.config.entry_rules import EntryError, http_spec, stdio_spec
from agentty_tui.config.workspace import Workspace
from agentty_tui.errors import UsageError
from agentty_tui.specs import PluginConfig, ServerSpec, SourceRef

__all__ = [
    "add_target",
    "cmd_add",
    "cmd_remove",
    "edited_file",
    "parse_pairs",
    "remove_target",
]


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


def _refuse_for_one_file(store: Workspace, args: argparse.Namespace) -> None:
    if store.single and any(_given(args)):
        raise UsageError("--scope and --source choose a file of a workspace; --config is one file")


def _named(store: Workspace, args: argparse.Namespace) -> SourceRef | None:
    """The file ``--source`` names (``--scope`` telling apart the two of ``~/.claude.json``);
    ``None`` without ``--source``. Both options are refused on one file."""
    _refuse_for_one_file(store, args)
    scope, path = _given(args)
    if path is None:
        return None
    return store.source_by_path(path, scope)


def add_target(store: Workspace, args: argparse.Namespace) -> SourceRef | None:
    """The file ``add`` writes: ``--source``, else ``--scope``, else the default (``None``)."""
    named = _named(store, args)
    scope = _given(args)[0]
    if named is not None or scope is None:
        return named
    return _scope_source(store, scope)


def remove_target(
    store: Workspace, config: PluginConfig, name: str, args: argparse.Namespace
) -> SourceRef:
    """The file ``remove`` edits: the one holding ``name`` among those ``--source`` and
    ``--scope`` name (every file without them); a ``UsageError`` listing them when several
    do. A named file or scope without ``name`` is an error that says where it is
    (``Workspace.holders_in``), never the entry of another file."""
    named = _named(store, args)
    holders = store.holders_in(config, name, source=named, scope=_given(args)[0])
    if len(holders) > 1:
        listed = "; ".join(f"{ref.path} ({ref.label})" for ref in holders)
        raise UsageError(f"{name!r} is in {len(holders)} files; say which with --source: {listed}")
    return holders[0]


def edited_file(store: Workspace, config: PluginConfig, name: str) -> str:
    """The file an edit of ``name`` went to, for the message that says so."""
    server = config.server(name)
    if server is not None and server.source is not None:
        return server.source.path
    return str(store.add_to.path)


def parse_pairs(items: Sequence[str], sep: str, what: str) -> dict[str, str]:
    """``KEY=VALUE`` (or ``Key: Value``) items as a dict; a malformed one is a usage error."""
    pairs: dict[str, str] = {}
    for number, item in enumerate(items, 1):
        key, found, value = item.partition(sep)
        if not found or not key.strip():
            # Not echoed: a malformed header is often a pasted token ("Bearer xyz").
            raise UsageError(
                f"{what} #{number} is not of the form KEY{sep}VALUE (its text is not shown)"
            )
        pairs[key.strip()] = value.strip() if sep == ":" else value
    return pairs


def _spec_from(args: argparse.Namespace) -> ServerSpec:
    """The spec ``add``'s arguments describe, built by the config's rule book."""
    argv = list(args.argv)
    if args.url:
        if argv or args.env or args.cwd:
            raise UsageError("give either --url or -- COMMAND [ARG]..., not both")
        headers = parse_pairs(args.header, ":", "header")
        # Without --sse the URL decides, as it does when the config is read (``/sse``).
        return http_spec(args.url, headers, sse=True if args.sse else None)
    if args.header or args.sse:
        raise UsageError("--header and --sse go with --url")
    if not argv:
        raise UsageError("give the server's command after --, or --url URL")
    return stdio_spec(argv, parse_pairs(args.env, "=", "--env"), args.cwd)


def _refused(name: str, error: EntryError) -> UsageError:
    """An entry the rules refuse, as a usage error naming the flag or the server."""
    if error.field in ("header", "env"):
        return UsageError(f"--{error.field} {error.key!r}: {error.message}")
    return UsageError(f"cannot add {name!r}: {error.message}")


def cmd_add(path: Path | None, args: argparse.Namespace) -> int:
    """Add a server to the config (it starts the next time the config is loaded)."""
    store, config = load_config(path, args, create=True)
    source = add_target(store, args)
    written = store.store(source or store.add_to)
    # A file named on purpose may hold a name another file has (a local entry over a user
    # one, as every host's scopes allow); without one, a name in use anywhere is refused.
    checked = written.load() if source is not None else config
    try:
        edit = operations.add_server(checked, args.name, _spec_from(args))
    except EntryError as exc:
        raise _refused(args.name, exc) from None
    created = written.version() is None
    after = store.apply(edit, source=source)
    say(f"added {args.name!r} to {written.path}" + (" (a new file)" if created else ""))
    _say_shadowing(after, args.name, source or store.add_to)
    return 0


def _say_shadowing(config: PluginConfig, name: str, target: SourceRef) -> None:
    """Warn when the entry just added to ``target`` shadows another or is shadowed; say the
    name it goes by where another host runs a different server of that name."""
    for server in config.servers:
        if server.source == target and server.entry == name:
            say(f"it is {server.name!r} here: another host runs a different {name!r}")
    for hidden in config.shadowed:
        if hidden.entry_name != name or hidden.source is None or hidden.shadowed_by is None:
            continue
        if hidden.source == target:
            warn(f"warning: it does not run: {name!r} of {hidden.shadowed_by.path} wins")
        elif hidden.shadowed_by == target:
            warn(f"warning: it shadows {name!r} of {hidden.source.path}")


def cmd_remove(path: Path | None, args: argparse.Namespace) -> int:
    """Remove a server from the config."""
    store, config = load_config(path, args)
    source = remove_target(store, config, args.name, args)
    store.apply(RemoveServer(name=args.name), source=source)
    say(f"removed {args.name!r} from {source.path}")
    return 0
