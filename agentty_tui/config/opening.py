"""Opening the workspace of the folder the user is in.

``open_workspace(cwd, home=..., env=...)`` finds the project root, reads which hosts to read
(``--hosts``, else the ``hosts`` setting of our user file, else all) and lists the sources.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from pathlib import Path

from agentty_tui.config.files import read_text
from agentty_tui.config.sources import (
    HOSTS,
    find_project_root,
    our_user_file,
    workspace_sources,
)
from agentty_tui.config.trust import TrustBook, default_trust_file
from agentty_tui.config.workspace import Workspace
from agentty_tui.errors import ConfigError

__all__ = ["hosts_setting", "open_workspace", "parse_hosts"]


def parse_hosts(names: Collection[str], where: str) -> tuple[str, ...]:
    """``names`` checked against ``HOSTS``; a ``ConfigError`` naming ``where`` for one that is
    not a host we read."""
    wanted = tuple(name.strip().lower() for name in names if name.strip())
    unknown = [name for name in wanted if name not in HOSTS]
    if unknown:
        raise ConfigError(
            f"unknown host {unknown[0]!r}; the hosts are {', '.join(HOSTS)}", path=where
        )
    return wanted


def hosts_setting(path: Path) -> tuple[str, ...] | None:
    """The ``hosts`` list of our user file, or ``None`` when it says nothing (all hosts).

    A file that does not parse says nothing here: the workspace reports its problem."""
    try:
        text = read_text(path)
        value = json.loads(text) if text and text.strip() else None
    except (ConfigError, ValueError):
        return None
    hosts = value.get("hosts") if isinstance(value, dict) else None
    if hosts is None:
        return None
    if not isinstance(hosts, list) or not all(isinstance(name, str) for name in hosts):
        raise ConfigError("must be an array of host names", path=str(path), field="hosts")
    return parse_hosts(hosts, str(path))


def open_workspace(
    cwd: Path,
    *,
    home: Path,
    env: Mapping[str, str],
    hosts: Collection[str] | None = None,
) -> Workspace:
    """The workspace of the project that holds ``cwd``; ``hosts`` (``--hosts``) overrides the
    ``hosts`` setting."""
    root = find_project_root(cwd)
    ours = our_user_file(home, env)
    chosen = parse_hosts(hosts, "--hosts") if hosts is not None else hosts_setting(ours)
    sources = workspace_sources(home, env, root, hosts=chosen)
    add_to = next(source.ref for source in sources if source.path == ours)
    trust = TrustBook(default_trust_file(home, env))
    return Workspace(sources, root=root, trust=trust, add_to=add_to)
