"""Codex's trust in a project: whether it reads the project's ``.codex/config.toml``.

Measured with Codex 0.171.0 (tests/hosts/test_codex.py, test_codex_project_trust.py) and read
in its loader: a project's ``.codex/config.toml`` is read only when the user's
``$CODEX_HOME/config.toml`` (``~/.codex/config.toml``) says ``trust_level = "trusted"`` in
``[projects."<root>"]``, the key being the project's real path (a symbolic link on the way is
resolved: a trust entry under the link's path does not count); in a git worktree without an
entry of its own, the main repository's entry decides. ``"untrusted"`` or no entry: the file
is ignored, whatever it holds. Any other value stops Codex altogether, as does a trusted
project's file that does not parse.

A trusted project's ``[mcp_servers.NAME]`` table is merged into the user's table of the same
name key by key (``merge_codex_tables``): a project table holding only ``enabled = false``
turns the user's server off in that project.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agentty_tui.config.files import read_text
from agentty_tui.errors import ConfigError

__all__ = [
    "CODEX_TRUST_KEY",
    "codex_config_file",
    "codex_untrusted",
    "merge_codex_tables",
]

CODEX_TRUST_KEY = "trust_level"
"""The key of a project's table under ``projects`` that trusts it."""

NOT_READ = "Codex reads .codex/config.toml only in a trusted project"
"""How every reason ``codex_untrusted`` gives begins."""


def codex_config_file(home: Path, env: Mapping[str, str]) -> Path:
    """The user's Codex config: ``$CODEX_HOME/config.toml``, by default
    ``~/.codex/config.toml``."""
    codex_home = Path(env["CODEX_HOME"]) if env.get("CODEX_HOME") else home / ".codex"
    return codex_home / "config.toml"


def _main_repository(root: Path) -> Path | None:
    """The main repository of a git worktree at ``root`` (its ``.git`` a file saying
    ``gitdir: <main>/.git/worktrees/<name>``), or ``None``."""
    try:
        text = read_text(root / ".git")
    except (ConfigError, OSError):  # a folder (not a worktree), or not to be read
        return None
    first = (text or "").partition("\n")[0]
    if not first.startswith("gitdir:"):
        return None
    gitdir = root / first.removeprefix("gitdir:").strip()
    if gitdir.parent.name == "worktrees" and gitdir.parent.parent.name == ".git":
        return gitdir.parent.parent.parent
    return None


def codex_untrusted(config_file: Path, root: Path) -> str | None:
    """Why Codex does not read ``root``'s ``.codex/config.toml`` (``None``: it does), by the
    ``projects`` table of the user's ``config_file``: the entry of ``root``'s real path, else,
    in a git worktree, its main repository's. Never raises: a file that cannot be read trusts
    nothing, and the reason says so."""
    key = os.path.realpath(root)
    where = f"{CODEX_TRUST_KEY} in {config_file}"
    try:
        text = read_text(config_file)
        value: dict[str, Any] = tomllib.loads(text) if text else {}
    except (ConfigError, tomllib.TOMLDecodeError) as error:
        return f"{NOT_READ}, and {config_file} could not be read ({error})"
    projects = value.get("projects")
    projects = projects if isinstance(projects, dict) else {}
    main = _main_repository(root)
    keys = [key] if main is None else [key, os.path.realpath(main)]
    found = [
        k for k in keys if isinstance(projects.get(k), dict) and CODEX_TRUST_KEY in projects[k]
    ]
    if found:
        key = found[0]
    level = projects[key][CODEX_TRUST_KEY] if found else None
    if level == "trusted":
        return None
    if level is None:
        return f"{NOT_READ}: no {where} for {key}"
    if level == "untrusted":
        return f'{NOT_READ}: {key} is "untrusted" ({where})'
    return f"{NOT_READ}: {where} for {key} is {level!r}, not trusted or untrusted (Codex stops)"


def merge_codex_tables(user: Mapping[str, Any], project: Mapping[str, Any]) -> dict[str, Any]:
    """The table Codex runs for a server both files name: ``project`` merged into ``user`` key
    by key, a table within merged the same way, any other value (an array included) replaced
    by the project's."""
    merged: dict[str, Any] = dict(user)
    for key, value in project.items():
        below = merged.get(key)
        if isinstance(below, Mapping) and isinstance(value, Mapping):
            merged[key] = merge_codex_tables(below, value)
        else:
            merged[key] = value
    return merged
