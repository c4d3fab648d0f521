"""``agentty-tui`` with no COMMAND, and ``demo``: the picker on the workspace, one file, or a
fresh copy of the demo config; attached to the user's gateway daemon when one runs.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from agentty_tui.errors import AgenttyError

__all__ = [
    "default_demo_dir",
    "demo_config",
    "open_picker",
]


def default_demo_dir() -> Path:
    """Where ``demo`` puts its copy of the config: ``$XDG_STATE_HOME/agentty/demo``, else
    ``~/.local/state/agentty/demo`` (a folder of its own, wherever the logs go)."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "agentty" / "demo"


def open_picker(
    config_path: Path | None,
    format_name: str | None,
    trust: bool = False,
    hosts: str | None = None,
    *,
    no_daemon: bool = True,
) -> int:
    """The picker on the workspace or the one file, attached to the user's gateway daemon when
    one runs (the daemon reads a workspace of every host, or the file as its name says: with
    ``--hosts`` or ``--format`` the picker runs alone)."""
    from agentty_tui.bridge.starting import StartingSource
    from agentty_tui.config import dialect_by_name
    from agentty_tui.config.workspace import Workspace, open_workspace
    from agentty_tui.ui import run_picker

    if config_path is None:
        names = None if hosts is None else hosts.split(",")
        found = open_workspace(Path.cwd(), home=Path.home(), env=os.environ, hosts=names)
    else:
        dialect = dialect_by_name(format_name) if format_name else None
        found = Workspace.of_file(config_path, dialect)
    daemon = None
    if not no_daemon and hosts is None and format_name is None:
        from agentty_tui.gateway.attachment import Attachment
        from agentty_tui.gateway.rendezvous import rendezvous

        config = None if config_path is None else str(config_path.absolute())
        home, env = str(Path.home()), dict(os.environ)
        attachment = Attachment(str(Path.cwd()), config, None, trust, home=home, env=env)
        try:
            daemon = (attachment, rendezvous(os.environ))
        except AgenttyError:  # no private runtime folder: no daemon could listen there
            daemon = None
    return run_picker(StartingSource(found, trust=trust), daemon)


def demo_config() -> Path:
    """A fresh copy of the packaged demo config, so toggling never edits the shipped one.

    The demo servers are console scripts installed next to this interpreter; that folder is
    put first on PATH so they are found even when the virtual environment is not activated.
    """
    import shutil  # here: it imports the compression modules, which nothing else needs

    source = Path(__file__).parent.parent / "demo" / "mcp.example.json"
    target = default_demo_dir() / "mcp.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    scripts = str(Path(sys.executable).parent)
    os.environ["PATH"] = scripts + os.pathsep + os.environ.get("PATH", "")
    return target
