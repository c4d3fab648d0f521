"""The headless commands behind ``agentty-tui list|add|remove|enable|disable|catalog|call``,
``import``, ``login`` and ``logout``.

Each ``cmd_*`` takes the config path and the parsed arguments and returns an exit status; the
errors they raise are turned into messages and statuses by ``cli.main``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import anyio.to_thread

from agentty_tui.bridge import Bridge
from agentty_tui.bridge.auth import expires_in_words, login, login_spec, logout
from agentty_tui.bridge.elicit import accept_defaults
from agentty_tui.bridge.logs import default_log_dir, pointing_to_log
from agentty_tui.bridge.probe import open_server
from agentty_tui.catalog import project_catalog
from agentty_tui.config import (
    ConfigStore,
    apply_import,
    dialect_by_name,
    operations,
    plan_import,
)
from agentty_tui.config.entry_rules import EntryError, http_spec, stdio_spec
from agentty_tui.config.trust import needs_trust
from agentty_tui.errors import (
    ConfigError,
    OperationError,
    UnknownToolError,
    UsageError,
)
from agentty_tui.model import HttpSpec, PluginConfig, PluginModel, ServerConfig, ServerSpec
from agentty_tui.report import catalog_json, catalog_text, model_json, model_text, result_text
from agentty_tui.terminal_text import safe_block, safe_message

__all__ = [
    "COMMANDS",
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
]


SETTLE_MARGIN = 5.0
"""Seconds ``list`` and ``catalog`` wait beyond the longest connect timeout."""


def say(text: str) -> None:
    """Print ``text`` for a person on stdout.

    With ``warn`` and ``say_json``, the only ways these commands write: whatever a server, a
    file or an argument put into the text, its controls are shown as visible escapes.
    """
    print(safe_block(text))


def warn(message: str) -> None:
    """``agentty-tui: message`` on stderr, one line, as ``cli.main`` prints errors (every
    control visible)."""
    print(f"agentty-tui: {safe_message(message)}", file=sys.stderr)


def say_json(value: Any) -> None:
    """Print ``value`` as indented JSON, lossless: the encoder escapes every control (and
    every non-ASCII character, bidi controls included), so the text is safe on a terminal."""
    print(json.dumps(value, indent=2, ensure_ascii=True))


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


def _open(path: Path, name: str | None) -> ConfigStore:
    """A store for ``path`` in the dialect ``name`` (detected when ``None``)."""
    return ConfigStore(path, dialect=dialect_by_name(name) if name else None)


def _trusted(args: argparse.Namespace) -> bool:
    """Whether ``--trust`` was given."""
    return bool(getattr(args, "trust", False))


def _existing(path: Path, format_name: str | None, what: str = "the config file") -> ConfigStore:
    """A store for ``path``, which must exist: a command that only reads or edits a config
    names a missing one (a typo in ``--config``) rather than showing it as empty."""
    store = _open(path, format_name)
    if store.version() is None:
        hint = " (agentty-tui add creates it)" if what == "the config file" else ""
        raise ConfigError(f"{what} does not exist{hint}", path=str(path))
    return store


def _loaded(
    path: Path, args: argparse.Namespace, *, runs_servers: bool = False, create: bool = False
) -> tuple[ConfigStore, PluginConfig]:
    """The config's store and the config, loaded once; its warnings go to stderr, one line
    each (and, for a command that runs servers, why an untrusted file's servers wait).

    A missing file is an error unless ``create``: then it is an empty config, to be written.
    """
    format_name = getattr(args, "format", None)
    store = _open(path, format_name) if create else _existing(path, format_name)
    config = store.load()  # a config that does not load is exit status 2, before anything starts
    _warn_about(config, args, runs_servers=runs_servers)
    return store, config


def _warn_about(config: PluginConfig, args: argparse.Namespace, *, runs_servers: bool) -> None:
    """Print what is wrong with the file but did not stop it loading."""
    notes = list(config.warnings)
    if runs_servers and config.insecure is not None and not _trusted(args):
        notes.insert(0, config.insecure)
    for note in notes:
        print(f"agentty-tui: warning: {note}", file=sys.stderr)


async def _settled_model(path: Path, args: argparse.Namespace) -> PluginModel:
    """The model once every server settled; the bridge's own load is the only one."""
    store = _existing(path, getattr(args, "format", None))
    async with Bridge(store, trust=_trusted(args)) as bridge:
        if bridge.snapshot.config_error:
            raise ConfigError(bridge.snapshot.config_error)
        config = bridge.config
        _warn_about(config, args, runs_servers=True)
        timeout = max((s.connect_timeout for s in config.servers), default=0.0) + SETTLE_MARGIN
        model = await bridge.settled(timeout)
    if model.config_error:
        raise ConfigError(model.config_error)
    return model


async def cmd_list(path: Path, args: argparse.Namespace) -> int:
    """Connect every server concurrently, wait until each settled, print them, stop them."""
    model = await _settled_model(path, args)
    catalog = project_catalog(model)
    if args.json:
        say_json(model_json(model, catalog))
    else:
        say(model_text(model, catalog))
    return 0


async def cmd_catalog(path: Path, args: argparse.Namespace) -> int:
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


async def cmd_add(path: Path, args: argparse.Namespace) -> int:
    """Add a server to the config (it starts the next time the config is loaded)."""
    store, config = _loaded(path, args, create=True)
    try:
        edit = operations.add_server(config, args.name, _spec_from(args))
    except EntryError as exc:
        raise _refused(args.name, exc) from None
    created = store.version() is None
    store.apply(edit)
    say(f"added {args.name!r} to {path}" + (" (a new file)" if created else ""))
    return 0


async def cmd_remove(path: Path, args: argparse.Namespace) -> int:
    """Remove a server from the config."""
    store, config = _loaded(path, args)
    store.apply(operations.remove_server(config, args.name))
    say(f"removed {args.name!r} from {path}")
    return 0


async def _advertised(
    store: ConfigStore, config: ServerConfig, reason_unchecked: str | None
) -> frozenset[str] | None:
    """The tools ``config``'s live server lists, or ``None`` (with a warning) when it cannot
    be asked: ``reason_unchecked`` says why not to start it, else it did not connect."""
    if reason_unchecked is None:
        async with open_server(config, default_log_dir(), store.path) as session:
            if session.state.status == "connected":
                return frozenset(t.name for t in session.state.tools)
            error = pointing_to_log(session.state.error or "", session.log)
            reason_unchecked = f"did not connect: {error}"
    warn(f"warning: could not check the tool name, {config.name!r} {reason_unchecked}")
    return None


async def _toggle(path: Path, args: argparse.Namespace, enabled: bool) -> int:
    if args.tool is None:
        return _set_server_disabled(path, args, not enabled)
    server, tool = args.server, args.tool
    store, loaded = _loaded(path, args, runs_servers=True)
    config = operations.configured(loaded, server)
    advertised: frozenset[str] | None = None
    # A tool the config already names needs no live check: the server is asked only about a
    # name that is new to the file (an untrusted file's warning already said why it waits).
    if tool not in config.tools.exclude and tool not in (config.tools.include or ()):
        if config.problem is not None:
            advertised = await _advertised(store, config, f"cannot start: {config.problem}")
        elif config.disabled:
            advertised = await _advertised(store, config, "is disabled in the config")
        elif not (needs_trust(loaded, config) and not _trusted(args)):
            advertised = await _advertised(store, config, None)
    store.apply(operations.set_tool_enabled(loaded, server, tool, enabled, advertised))
    say(f"{'enabled' if enabled else 'disabled'} {server}/{tool}")
    return 0


def _set_server_disabled(path: Path, args: argparse.Namespace, disabled: bool) -> int:
    """``enable NAME`` / ``disable NAME``: the server's disabled flag, in the file's dialect."""
    store, loaded = _loaded(path, args)
    server = operations.configured(loaded, args.server)
    verb = "disabled" if disabled else "enabled"
    if server.disabled == disabled:
        say(f"{args.server!r} is already {verb} in {path}")
        return 0
    store.apply(operations.set_server_disabled(loaded, args.server, disabled))
    say(f"{verb} {args.server!r} in {path}")
    return 0


async def cmd_enable(path: Path, args: argparse.Namespace) -> int:
    """Turn one tool on in the config, or (without a tool) the server itself."""
    return await _toggle(path, args, True)


async def cmd_disable(path: Path, args: argparse.Namespace) -> int:
    """Turn one tool off in the config, or (without a tool) park the server itself."""
    return await _toggle(path, args, False)


async def cmd_call(path: Path, args: argparse.Namespace) -> int:
    """Call one tool of one server and print its result; status 1 when the tool reports an error."""
    arguments = parse_arguments(args.arguments)
    store, loaded = _loaded(path, args, runs_servers=True)
    config = operations.configured(loaded, args.server)
    if config.problem is not None:
        raise ConfigError(config.problem)
    if needs_trust(loaded, config) and not _trusted(args):
        raise OperationError(
            f"server {args.server!r} was not started: the config file is not trusted "
            "(--trust runs it)"
        )
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


def _url_server(path: Path, args: argparse.Namespace) -> tuple[str, HttpSpec, float]:
    """The named server's expanded URL spec and request timeout, for login and logout."""
    config = operations.configured(_loaded(path, args)[1], args.name)
    if config.problem is not None:
        raise ConfigError(config.problem)
    return config.name, login_spec(config), config.request_timeout


class TerminalLoginUI:
    """The command line's ``LoginUI``: the URL and progress on stderr, a paste on stdin."""

    def __init__(self, name: str) -> None:
        self.name = name

    def show_url(self, url: str) -> None:
        """Print the whole URL, so it can be copied when no browser opens."""
        print(
            f"To log in to {self.name!r}, open this URL in a browser:\n\n  {url}\n", file=sys.stderr
        )
        if sys.stdin.isatty():
            print("(or paste here the address the browser was sent to)", file=sys.stderr)
        print("waiting for the browser to come back…", file=sys.stderr)

    def tell(self, message: str) -> None:
        """One line of progress on stderr."""
        print(f"agentty-tui: {message}", file=sys.stderr)

    async def pasted_redirect(self) -> str | None:
        """A line typed on a terminal; nothing to read when stdin is not one."""
        if not sys.stdin.isatty():
            return None
        line = await anyio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)
        return line or None


async def cmd_login(path: Path, args: argparse.Namespace) -> int:
    """Run the OAuth login for one URL server; 0 once authorized, 1 with the reason if not."""
    name, spec, request_timeout = _url_server(path, args)
    state = await login(spec, TerminalLoginUI(name), request_timeout=request_timeout)
    scopes = " ".join(state.scopes) or "none named"
    print(f"logged in to {name!r} (scopes: {scopes}; {expires_in_words(state)})")
    return 0


async def cmd_logout(path: Path, args: argparse.Namespace) -> int:
    """Forget one URL server's tokens and client registration."""
    name, spec, _ = _url_server(path, args)
    if logout(spec):
        print(f"logged out of {name!r}: its tokens and client registration are forgotten")
    else:
        print(f"{name!r} was not logged in")
    return 0


async def cmd_import(path: Path, args: argparse.Namespace) -> int:
    """Copy servers from another host's config: show the plan, ask (unless --yes), add."""
    source = _existing(args.source, args.from_format, "the file to import from").load()
    store, target = _loaded(path, args, create=True)
    plan = plan_import(source, target, carried=store.dialect.timeout_fields)
    say(plan.describe())
    if not plan.add:
        return 0
    if not args.yes:
        if not sys.stdin.isatty():
            raise UsageError("not writing without --yes: standard input is not a terminal")
        question = f"add {len(plan.add)} server(s) to {path}? [y/N] "
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


Command = Callable[[Path, argparse.Namespace], Awaitable[int]]
"""A headless command: the config path and the parsed arguments in, an exit status out."""

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
}
"""Each headless COMMAND of ``agentty-tui`` and the function that runs it."""
