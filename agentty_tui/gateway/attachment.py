"""What an attaching ``serve --shared`` asks the gateway daemon for: its first line.

Kept apart from the daemon so that the attaching process, a relay of bytes, imports neither
the bridge, the SDK nor the model to say it (what it needs of the config is imported where it
is used, in the daemon).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentty_tui.config.workspace import Workspace

__all__ = ["DEFAULT_WAIT", "MAX_WAIT", "Attachment", "json_object"]

DEFAULT_WAIT = 5.0
"""Seconds the host's first request waits for servers still connecting (``serve --wait``)."""

MAX_WAIT = 600.0
"""The longest ``--wait`` taken: a host's first request waits at most this long (Claude Code
gives a server 30 s to start), whatever an attachment asks."""


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
    env: Mapping[str, str] | None = None
    """The environment the host started ``serve`` with: its workspace is read, and its
    servers started, as in that environment (``None``: the daemon's own). Sent over the
    user's private socket only; never logged nor shown."""
    picker: bool = False
    """A picker attaching (``picker.link``) rather than a host's ``serve``: it is served the
    workspace's snapshots and operations, not MCP."""
    http_token: str | None = None
    """``serve --http --shared``: the bearer token of the HTTP listener the daemon is to serve
    (the listening socket itself follows the daemon's ``ok``, passed as a descriptor:
    ``gateway/daemon/http_handover``). Sent over the user's private socket only; never logged nor
    shown."""
    http_sessions: Mapping[str, Mapping[str, Any]] | None = None
    """``serve --http --shared`` starting a daemon to replace one that went away: the 2025-era
    sessions the old one had open, by id, each with its host's ``initialize`` params, for the
    new one to take up (``gateway/http/kept_sessions``). Sent over the user's private socket
    only."""

    def line(self) -> bytes:
        """The attachment as the line sent."""
        fields = {
            "cwd": self.cwd,
            "config": self.config,
            "host": self.host,
            "trust": self.trust,
            "wait": self.wait,
            "home": self.home,
            "env": None if self.env is None else dict(self.env),
            "picker": self.picker,
            "http_token": self.http_token,
            "http_sessions": None
            if self.http_sessions is None
            else {key: dict(params) for key, params in self.http_sessions.items()},
        }
        return (json.dumps(fields) + "\n").encode()

    @classmethod
    def of_line(cls, line: bytes) -> Attachment:
        """The attachment a line says; ``ValueError`` for one that is not."""
        value: Any = json.loads(line)
        if not isinstance(value, dict) or not isinstance(value.get("cwd"), str):
            raise ValueError("an attachment is a JSON object with a cwd")
        config, host, home = value.get("config"), value.get("host"), value.get("home")
        env, http_token = value.get("env"), value.get("http_token")
        sessions = value.get("http_sessions")
        if env is not None and not (
            isinstance(env, dict)
            and all(isinstance(k, str) and isinstance(v, str) for k, v in env.items())
        ):
            raise ValueError("an attachment's env is an object of strings")
        return cls(
            cwd=value["cwd"],
            config=config if isinstance(config, str) else None,
            host=host if isinstance(host, str) else None,
            trust=value.get("trust") is True,
            wait=_wait(value.get("wait", DEFAULT_WAIT)),
            home=home if isinstance(home, str) else None,
            env=env,
            picker=value.get("picker") is True,
            http_token=http_token if isinstance(http_token, str) else None,
            http_sessions=sessions if isinstance(sessions, dict) else None,
        )

    def key(self) -> tuple[str, str, bool]:
        """Which bridge serves it: attachments of one key share one."""
        from agentty_tui.config.sources import find_project_root

        if self.config is not None:
            return ("file", str(Path(self.config).absolute()), self.trust)
        return ("project", str(find_project_root(Path(self.cwd))), self.trust)

    def folder(self) -> Path:
        """Where its servers without a ``cwd`` start: the project's root, or the folder of the
        file ``--config`` names (the same for every host that shares the bridge)."""
        kind, path, _trust = self.key()
        return Path(path) if kind == "project" else Path(path).parent

    def workspace(self) -> Workspace:
        """The workspace it asks for."""
        from agentty_tui.config.workspace import Workspace, open_workspace

        if self.config is not None:
            return Workspace.of_file(Path(self.config))
        return open_workspace(Path(self.cwd), home=Path.home(), env=self.environ())

    def environ(self) -> Mapping[str, str]:
        """The environment the host's workspace is read and its servers started in."""
        return os.environ if self.env is None else self.env


def json_object(line: bytes) -> dict[str, Any]:
    """The JSON object a line of the daemon's socket holds, or an empty one (what is not ours
    to read is relayed or refused as it is)."""
    try:
        value = json.loads(line)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _wait(value: object) -> float:
    """An attachment's ``wait``: a number of seconds from 0 to ``MAX_WAIT`` (a larger one is
    cut to it); ``ValueError`` for anything else (``NaN``, a string, ``true``)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        raise ValueError("an attachment's wait is a number of seconds")
    return min(max(float(value), 0.0), MAX_WAIT)
