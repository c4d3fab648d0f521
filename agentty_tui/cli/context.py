"""What every command shares: the config it works on, and the shape of a command.

Every command works on the file ``--config`` (or ``$AGENTTY_CONFIG``) names, or, without one,
on the workspace of the current folder (``config.workspace.open_workspace``): ``path`` is
``None`` then. It is loaded once, its warnings on stderr. A command takes that path and the
parsed arguments and returns an exit status: a ``Command`` (a coroutine function, run as the
app) or a ``ConfigCommand`` (run without an event loop; see ``cli.headless.run_headless``).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from agentty_tui.config import ConfigStore, dialect_by_name
from agentty_tui.config.workspace import Workspace, open_workspace, parse_hosts
from agentty_tui.errors import HOST_WITH_CONFIG, ConfigError, UsageError
from agentty_tui.specs import PluginConfig

__all__ = [
    "Command",
    "ConfigCommand",
    "ServerCheck",
    "chosen_host",
    "existing_store",
    "load_config",
    "open_config",
    "trusted",
    "warn_about",
    "workspace",
    "workspace_only",
]


def workspace(args: argparse.Namespace) -> Workspace:
    """The workspace of the current folder, reading the hosts ``--hosts`` names (if given)."""
    hosts = getattr(args, "hosts", None)
    names = None if hosts is None else hosts.split(",")
    return open_workspace(Path.cwd(), home=Path.home(), env=os.environ, hosts=names)


def open_config(path: Path | None, args: argparse.Namespace, *, create: bool = False) -> Workspace:
    """What a command works on: the workspace of the current folder, or (``--config``) the
    workspace of the one file ``path``, which must exist unless ``create``: a command that
    only reads or edits a config names a missing one (a typo in ``--config``) rather than
    showing it as empty."""
    if path is None:
        return workspace(args)
    if getattr(args, "host", None) is not None:
        raise UsageError(HOST_WITH_CONFIG)
    format_name = getattr(args, "format", None)
    opened = Workspace.of_file(path, dialect_by_name(format_name) if format_name else None)
    if not create and not opened.exists():
        raise ConfigError(
            "the config file does not exist (agentty-tui add creates it)", path=str(path)
        )
    return opened


def trusted(args: argparse.Namespace) -> bool:
    """Whether ``--trust`` was given."""
    return bool(getattr(args, "trust", False))


def existing_store(path: Path, format_name: str | None, what: str) -> ConfigStore:
    """A store for ``path`` (``what`` it is, for the message), which must exist."""
    store = ConfigStore(path, dialect=dialect_by_name(format_name) if format_name else None)
    if store.version() is None:
        raise ConfigError(f"{what} does not exist", path=str(path))
    return store


def load_config(
    path: Path | None,
    args: argparse.Namespace,
    *,
    runs_servers: bool = False,
    create: bool = False,
) -> tuple[Workspace, PluginConfig]:
    """The config's workspace and the config, loaded once; its warnings go to stderr, one
    line each (and, for a command that runs servers, why an untrusted file's servers wait).

    A missing ``--config`` file is an error unless ``create``: then it is an empty config, to
    be written.
    """
    store = open_config(path, args, create=create)
    config = store.load()  # a config that does not load is exit status 2, before anything starts
    warn_about(config, args, runs_servers=runs_servers)
    return store, config


def warn_about(config: PluginConfig, args: argparse.Namespace, *, runs_servers: bool) -> None:
    """Print what is wrong with the file but did not stop it loading."""
    notes = list(config.warnings)
    if runs_servers and config.insecure is not None and not trusted(args):
        notes.insert(0, config.insecure)
    if runs_servers and not trusted(args):
        waiting = [s.name for s in config.servers if s.untrusted is not None and not s.disabled]
        if waiting:
            names = ", ".join(waiting)
            notes.append(f"not started until trusted (agentty-tui trust NAME, or --all): {names}")
    for note in notes:
        print(f"agentty-tui: warning: {note}", file=sys.stderr)


def chosen_host(args: argparse.Namespace) -> str | None:
    """The host ``--host`` names (checked against the hosts a workspace reads), or ``None``."""
    host = getattr(args, "host", None)
    if host is None:
        return None
    return parse_hosts([host], "--host")[0]


def workspace_only(path: Path | None, command: str) -> None:
    """Refuse ``--config`` (``path``) for a ``command`` that is about the whole workspace."""
    if path is not None:
        raise UsageError(f"{command} is about the workspace; --config names one file")


ServerCheck = Callable[[], Awaitable[int]]
"""The rest of a config-only command that has to ask a server after all (``enable`` or
``disable`` of a tool name new to the file): it runs as the app, which may spawn."""


Command = Callable[[Path | None, argparse.Namespace], Awaitable[int]]
"""A headless command that connects (or waits on a terminal): the config path (``None``: the
workspace) and the parsed arguments in, an exit status out, awaited as the app."""


ConfigCommand = Callable[[Path | None, argparse.Namespace], "int | ServerCheck"]
"""A headless command that only reads or edits the config: the same arguments, run without an
event loop; its exit status, or the ``ServerCheck`` it still has to run."""
