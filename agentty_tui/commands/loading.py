"""Opening and loading the config a headless command works on, and its warnings.

The config is the file ``--config`` (or ``$AGENTTY_CONFIG``) names, or, without one, the
workspace of the current folder (``config.opening.open_workspace``): ``path`` is ``None`` then.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from agentty_tui.config import ConfigStore, dialect_by_name
from agentty_tui.config.workspace import Workspace, open_workspace
from agentty_tui.errors import ConfigError
from agentty_tui.model import PluginConfig

__all__ = [
    "Config",
    "existing_store",
    "load_config",
    "open_config",
    "open_store",
    "trusted",
    "warn_about",
    "workspace",
]

Config = ConfigStore | Workspace
"""What a command works on: one file, or the workspace."""


def workspace(args: argparse.Namespace) -> Workspace:
    """The workspace of the current folder, reading the hosts ``--hosts`` names (if given)."""
    hosts = getattr(args, "hosts", None)
    names = None if hosts is None else hosts.split(",")
    return open_workspace(Path.cwd(), home=Path.home(), env=os.environ, hosts=names)


def open_config(path: Path | None, args: argparse.Namespace) -> Config:
    """The file at ``path`` (which must exist), or the workspace when ``path`` is ``None``."""
    if path is None:
        return workspace(args)
    return existing_store(path, getattr(args, "format", None))


def open_store(path: Path, name: str | None) -> ConfigStore:
    """A store for ``path`` in the dialect ``name`` (detected when ``None``)."""
    return ConfigStore(path, dialect=dialect_by_name(name) if name else None)


def trusted(args: argparse.Namespace) -> bool:
    """Whether ``--trust`` was given."""
    return bool(getattr(args, "trust", False))


def existing_store(
    path: Path, format_name: str | None, what: str = "the config file"
) -> ConfigStore:
    """A store for ``path``, which must exist: a command that only reads or edits a config
    names a missing one (a typo in ``--config``) rather than showing it as empty."""
    store = open_store(path, format_name)
    if store.version() is None:
        hint = " (agentty-tui add creates it)" if what == "the config file" else ""
        raise ConfigError(f"{what} does not exist{hint}", path=str(path))
    return store


def load_config(
    path: Path | None,
    args: argparse.Namespace,
    *,
    runs_servers: bool = False,
    create: bool = False,
) -> tuple[Config, PluginConfig]:
    """The config's store and the config, loaded once; its warnings go to stderr, one line
    each (and, for a command that runs servers, why an untrusted file's servers wait).

    A missing file is an error unless ``create``: then it is an empty config, to be written.
    """
    format_name = getattr(args, "format", None)
    store: Config
    if path is None:
        store = workspace(args)
    else:
        store = open_store(path, format_name) if create else existing_store(path, format_name)
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
