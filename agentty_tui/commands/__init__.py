"""The headless commands behind ``agentty-tui list|add|remove|enable|disable|catalog|call``,
``import``, ``login`` and ``logout``.

Each ``cmd_*`` takes the config path and the parsed arguments and returns an exit status; the
errors they raise are turned into messages and statuses by ``cli.main``. What connects to a
server (``Bridge``, ``open_server``) is imported where it connects: it imports the SDK, which a
command that only reads or edits the config does without.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from agentty_tui.bridge.logs import default_log_dir, pointing_to_log
from agentty_tui.bridge.trust_gate import TrustGate
from agentty_tui.catalog import project_catalog
from agentty_tui.commands.auth import TerminalLoginUI, cmd_login, cmd_logout
from agentty_tui.commands.importing import cmd_import
from agentty_tui.commands.loading import Config, load_config, open_config, trusted, warn_about
from agentty_tui.commands.output import say, say_json, warn
from agentty_tui.commands.targets import add_target, edited_file, remove_target
from agentty_tui.commands.workspace import cmd_sources, cmd_trust
from agentty_tui.config import operations
from agentty_tui.config.edits import RemoveServer
from agentty_tui.config.entry_rules import EntryError, http_spec, stdio_spec
from agentty_tui.config.workspace import Workspace
from agentty_tui.errors import (
    ConfigError,
    OperationError,
    UnknownToolError,
    UsageError,
)
from agentty_tui.model import PluginConfig, PluginModel, ServerConfig, ServerSpec, SourceRef
from agentty_tui.report import catalog_json, catalog_text, model_json, model_text, result_text

__all__ = [
    "COMMANDS",
    "TerminalLoginUI",
    "cmd_add",
    "cmd_call",
    "cmd_catalog",
    "cmd_disable",
    "cmd_enable",
    "cmd_import",
    "cmd_list",
    "cmd_login",
    "cmd_logout",
    "cmd_remove",
    "cmd_sources",
    "cmd_trust",
]


SETTLE_MARGIN = 5.0
"""Seconds ``list`` and ``catalog`` wait beyond the longest connect timeout."""


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


def parse_arguments(text: str) -> dict[str, Any]:
    """The JSON object given to ``call``."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"arguments are not valid JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise UsageError('arguments must be a JSON object, e.g. \'{"text": "hi"}\'')
    return value


async def _settled_model(path: Path | None, args: argparse.Namespace) -> PluginModel:
    """The model once every server settled; the bridge's own load is the only one."""
    from agentty_tui.bridge import Bridge

    store = open_config(path, args)
    async with Bridge(store, trust=trusted(args)) as bridge:
        if bridge.snapshot.config_error:
            raise ConfigError(bridge.snapshot.config_error)
        config = bridge.config
        warn_about(config, args, runs_servers=True)
        timeout = max((s.connect_timeout for s in config.servers), default=0.0) + SETTLE_MARGIN
        model = await bridge.settled(timeout)
    if model.config_error:
        raise ConfigError(model.config_error)
    return model


async def cmd_list(path: Path | None, args: argparse.Namespace) -> int:
    """Connect every server concurrently, wait until each settled, print them, stop them."""
    model = await _settled_model(path, args)
    catalog = project_catalog(model)
    if args.json:
        say_json(model_json(model, catalog))
    else:
        say(model_text(model, catalog, workspace=path is None))
    return 0


async def cmd_catalog(path: Path | None, args: argparse.Namespace) -> int:
    """Print the wire catalog the model would see."""
    if args.budget is not None and args.budget < 0:
        raise UsageError("--budget must be zero or more")
    model = await _settled_model(path, args)
    catalog = project_catalog(model, budget=args.budget)
    if args.json:
        say_json(catalog_json(catalog))
    else:
        say(catalog_text(catalog))
    return 0


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


async def cmd_add(path: Path | None, args: argparse.Namespace) -> int:
    """Add a server to the config (it starts the next time the config is loaded)."""
    store, config = load_config(path, args, create=True)
    source = add_target(store, args)
    written = store.store(source or store.add_to) if isinstance(store, Workspace) else store
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
    if isinstance(store, Workspace):
        _say_shadowing(after, args.name, source or store.add_to)
    return 0


def _say_shadowing(config: PluginConfig, name: str, target: SourceRef) -> None:
    """Warn when the entry just added to ``target`` shadows another or is shadowed."""
    for hidden in config.shadowed:
        if hidden.name != name or hidden.source is None or hidden.shadowed_by is None:
            continue
        if hidden.source == target:
            warn(f"warning: it does not run: {name!r} of {hidden.shadowed_by.path} wins")
        elif hidden.shadowed_by == target:
            warn(f"warning: it shadows {name!r} of {hidden.source.path}")


async def cmd_remove(path: Path | None, args: argparse.Namespace) -> int:
    """Remove a server from the config."""
    store, config = load_config(path, args)
    source = remove_target(store, config, args.name, args)
    where = source.path if source is not None else edited_file(store, config, args.name, path)
    edit = operations.remove_server(config, args.name) if source is None else None
    store.apply(edit or RemoveServer(name=args.name), source=source)
    say(f"removed {args.name!r} from {where}")
    return 0


async def _advertised(
    store: Config, config: ServerConfig, reason_unchecked: str | None
) -> frozenset[str] | None:
    """The tools ``config``'s live server lists, or ``None`` (with a warning) when it cannot
    be asked: ``reason_unchecked`` says why not to start it, else it did not connect."""
    if reason_unchecked is None:
        from agentty_tui.bridge.probe import open_server

        async with open_server(config, default_log_dir(), store.path) as session:
            if session.state.status == "connected":
                return frozenset(t.name for t in session.state.tools)
            error = pointing_to_log(session.state.error or "", session.log)
            reason_unchecked = f"did not connect: {error}"
    warn(f"warning: could not check the tool name, {config.name!r} {reason_unchecked}")
    return None


async def _toggle(path: Path | None, args: argparse.Namespace, enabled: bool) -> int:
    if args.tool is None:
        return _set_server_disabled(path, args, not enabled)
    server, tool = args.server, args.tool
    store, loaded = load_config(path, args, runs_servers=True)
    config = operations.configured(loaded, server)
    advertised: frozenset[str] | None = None
    # A tool the config already names needs no live check: the server is asked only about a
    # name that is new to the file (an untrusted file's warning already said why it waits).
    if tool not in config.tools.exclude and tool not in (config.tools.include or ()):
        if config.problem is not None:
            advertised = await _advertised(store, config, f"cannot start: {config.problem}")
        elif config.disabled:
            advertised = await _advertised(store, config, "is disabled in the config")
        elif not TrustGate(everything=trusted(args)).gated(loaded, config):
            advertised = await _advertised(store, config, None)
    store.apply(operations.set_tool_enabled(loaded, server, tool, enabled, advertised))
    # One file says nothing of where; in a workspace the file is news.
    where = "" if path is not None else f" in {edited_file(store, loaded, server, path)}"
    say(f"{'enabled' if enabled else 'disabled'} {server}/{tool}{where}")
    return 0


def _set_server_disabled(path: Path | None, args: argparse.Namespace, disabled: bool) -> int:
    """``enable NAME`` / ``disable NAME``: the server's disabled flag, in the file's dialect."""
    store, loaded = load_config(path, args)
    server = operations.configured(loaded, args.server)
    verb = "disabled" if disabled else "enabled"
    where = edited_file(store, loaded, args.server, path)
    if server.disabled == disabled:
        say(f"{args.server!r} is already {verb} in {where}")
        return 0
    store.apply(operations.set_server_disabled(loaded, args.server, disabled))
    say(f"{verb} {args.server!r} in {where}")
    return 0


async def cmd_enable(path: Path | None, args: argparse.Namespace) -> int:
    """Turn one tool on in the config, or (without a tool) the server itself."""
    return await _toggle(path, args, True)


async def cmd_disable(path: Path | None, args: argparse.Namespace) -> int:
    """Turn one tool off in the config, or (without a tool) park the server itself."""
    return await _toggle(path, args, False)


async def cmd_call(path: Path | None, args: argparse.Namespace) -> int:
    """Call one tool of one server and print its result; status 1 when the tool reports an error."""
    from agentty_tui.bridge.elicit import accept_defaults
    from agentty_tui.bridge.probe import open_server

    arguments = parse_arguments(args.arguments)
    store, loaded = load_config(path, args, runs_servers=True)
    config = operations.configured(loaded, args.server)
    if config.problem is not None:
        raise ConfigError(config.problem)
    TrustGate(everything=trusted(args)).refuse_untrusted(loaded, config, "was not started")
    # Errors are raised once the session's task group is left, so they reach the command
    # line as themselves rather than wrapped in an exception group.
    problem: Exception | None = None
    elicitation = accept_defaults if args.accept_defaults else None
    # A step-up the server asks for during the call is completed in the browser.
    login_ui = TerminalLoginUI(config.name)
    async with open_server(
        config, default_log_dir(), store.path, elicitation=elicitation, login_ui=login_ui
    ) as session:
        state = session.state
        if state.status != "connected":
            error = pointing_to_log(state.error or "", session.log)
            problem = OperationError(f"server {args.server!r} did not connect: {error}")
        elif args.tool not in {t.name for t in state.tools}:
            problem = UnknownToolError(args.server, args.tool, [t.name for t in state.tools])
        else:
            try:
                result = await session.call_tool(args.tool, arguments)
            except OperationError as exc:
                # The server's stderr an error quotes goes to its log: the message says where.
                problem = OperationError(pointing_to_log(str(exc), session.log))
    if problem is not None:
        raise problem
    if args.json:
        say_json(result.model_dump(mode="json", by_alias=True, exclude_none=True))
    else:
        say(result_text(result))
    return 1 if result.is_error else 0


Command = Callable[[Path | None, argparse.Namespace], Awaitable[int]]
"""A headless command: the config path (``None``: the workspace) and the parsed arguments in,
an exit status out."""

COMMANDS: dict[str, Command] = {
    "list": cmd_list,
    "add": cmd_add,
    "remove": cmd_remove,
    "enable": cmd_enable,
    "disable": cmd_disable,
    "catalog": cmd_catalog,
    "import": cmd_import,
    "login": cmd_login,
    "logout": cmd_logout,
    "call": cmd_call,
    "sources": cmd_sources,
    "trust": cmd_trust,
}
"""Each headless COMMAND of ``agentty-tui`` and the function that runs it."""
