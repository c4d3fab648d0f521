"""Codex's trust in a project: whether it reads the project's ``.codex/config.toml``.

Measured with Codex 0.171.0 (tests/hosts/test_codex.py, test_codex_project_trust.py) and read
in its loader: a project's ``.codex/config.toml`` is read only when the user's
``$CODEX_HOME/config.toml`` (``~/.codex/config.toml``) says ``trust_level = "trusted"`` in
``[projects."<root>"]``, the key being the project's real path (a symbolic link on the way is
resolved: a trust entry under the link's path does not count). ``"untrusted"`` or no entry:
the file is ignored, whatever it holds. Any other value stops Codex altogether, as does a
trusted project's file that does not parse.

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


def codex_untrusted(config_file: Path, root: Path) -> str | None:
    """Why Codex does not read ``root``'s ``.codex/config.toml`` (``None``: it does), by the
    ``projects`` table of the user's ``config_file``. Never raises: a file that cannot be read
    trusts nothing, and the reason says so."""
    key = os.path.realpath(root)
    where = f"{CODEX_TRUST_KEY} in {config_file}"
    try:
        text = read_text(config_file)
        value: dict[str, Any] = tomllib.loads(text) if text else {}
    except (ConfigError, tomllib.TOMLDecodeError) as error:
        return f"{NOT_READ}, and {config_file} could not be read ({error})"
    projects = value.get("projects")
    project = projects.get(key) if isinstance(projects, dict) else None
    level = project.get(CODEX_TRUST_KEY) if isinstance(project, dict) else None
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
