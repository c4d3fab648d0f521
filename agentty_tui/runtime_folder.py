"""The user's private runtime folder: where running agentty processes find each other.

``$XDG_RUNTIME_DIR/agentty/`` made 0700 when new. Where the variable is unset (Codex passes the
servers it starts only a few variables), the login's ``/run/user/<uid>`` is used when it is
private, as the session's runtime folder is, so that every process of a login finds the same
folder; else ``/tmp/agentty-<uid>/``. A folder that another user owns, or that others may
enter, is refused rather than used: what is in it (the gateway daemon's socket, the sockets
that hear of config writes) must be reachable by this user alone.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

from agentty_tui.errors import AgenttyError

__all__ = ["made_private", "private_runtime_folder", "runtime_folder_path"]


def _session_runtime(uid: int) -> Path | None:
    """The login's runtime folder ``/run/user/<uid>`` when it is the user's alone."""
    folder = Path("/run/user") / str(uid)
    try:
        info = os.lstat(folder)
    except OSError:
        return None
    private = stat.S_ISDIR(info.st_mode) and info.st_uid == uid and not info.st_mode & 0o077
    return folder if private else None


def runtime_folder_path(env: Mapping[str, str], uid: int) -> Path:
    """Where the folder is for ``env`` and ``uid`` (nothing is made or checked)."""
    runtime = env.get("XDG_RUNTIME_DIR") or _session_runtime(uid)
    return Path(runtime) / "agentty" if runtime else Path("/tmp") / f"agentty-{uid}"


def private_runtime_folder(env: Mapping[str, str], uid: int | None = None) -> Path:
    """The user's runtime folder, made private if new; an ``AgenttyError`` naming the folder
    when it is not the user's alone."""
    uid = os.getuid() if uid is None else uid
    return made_private(runtime_folder_path(env, uid), uid)


def made_private(folder: Path, uid: int | None = None) -> Path:
    """``folder``, made (0700) if it is gone (a cleaner of ``/tmp`` may take it while agentty
    runs); an ``AgenttyError`` naming it when it is not the user's alone."""
    uid = os.getuid() if uid is None else uid
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != uid or info.st_mode & 0o077:
        raise AgenttyError(
            f"{folder} is not a private folder of this user (owner {info.st_uid}, mode "
            f"{stat.S_IMODE(info.st_mode):o}): agentty will not use it"
        )
    return folder
