"""What an attaching ``serve --shared`` asks the gateway daemon for: its first line.

Kept apart from the daemon so that the attaching process, a relay of bytes, imports neither
the bridge, the SDK nor the model to say it (what it needs of the config is imported where it
is used, in the daemon).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentty_tui.config.workspace import Workspace

__all__ = ["DEFAULT_WAIT", "Attachment", "json_object"]

DEFAULT_WAIT = 5.0
"""Seconds the host's first request waits for servers still connecting (``serve --wait``)."""


@dataclass(frozen=True, slots=True)
class Attachment:
    """What an attaching ``serve`` asks for: the first line it sends."""

    cwd: str
    """The folder the host started ``serve`` in (its project's workspace is served)."""
    config: str | None = None
    """The one file ``--config`` names, instead of the workspace."""
    host: str | None = None
    """The host whose view is served (``--host``); ``None``: every host's servers."""
    trust: bool = False
    """``--trust``: run the servers of a file others can write."""
    wait: float = DEFAULT_WAIT
    """Seconds the host's first request waits for servers still connecting."""
    home: str | None = None
    """The home folder of the attaching ``serve``: a daemon serves the home it runs in, and
    refuses another (a workspace read from the wrong home would be another user's view)."""

    def line(self) -> bytes:
        """The attachment as the line sent."""
        fields = {
            "cwd": self.cwd,
            "config": self.config,
            "host": self.host,
            "trust": self.trust,
            "wait": self.wait,
            "home": self.home,
        }
        return (json.dumps(fields) + "\n").encode()

    @classmethod
    def of_line(cls, line: bytes) -> Attachment:
        """The attachment a line says; ``ValueError`` for one that is not."""
        value: Any = json.loads(line)
        if not isinstance(value, dict) or not isinstance(value.get("cwd"), str):
            raise ValueError("an attachment is a JSON object with a cwd")
        config, host, home = value.get("config"), value.get("host"), value.get("home")
        return cls(
            cwd=value["cwd"],
            config=config if isinstance(config, str) else None,
            host=host if isinstance(host, str) else None,
            trust=value.get("trust") is True,
            wait=float(value.get("wait", DEFAULT_WAIT)),
            home=home if isinstance(home, str) else None,
        )

    def key(self) -> tuple[str, str, bool]:
        """Which bridge serves it: attachments of one key share one."""
        from agentty_tui.config.sources import find_project_root

        if self.config is not None:
            return ("file", str(Path(self.config).absolute()), self.trust)
        return ("project", str(find_project_root(Path(self.cwd))), self.trust)

    def workspace(self) -> Workspace:
        """The workspace it asks for."""
        from agentty_tui.config.workspace import Workspace, open_workspace

        if self.config is not None:
            return Workspace.of_file(Path(self.config))
        return open_workspace(Path(self.cwd), home=Path.home(), env=os.environ)


def json_object(line: bytes) -> dict[str, Any]:
    """The JSON object a line of the daemon's socket holds, or an empty one (what is not ours
    to read is relayed or refused as it is)."""
    try:
        value = json.loads(line)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
