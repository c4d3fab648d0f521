"""Where the gateway daemon listens, and who may talk to it.

One daemon a user and home: its Unix socket is ``gw-<home>.sock`` in
``$XDG_RUNTIME_DIR/agentty/`` (``<home>``: 8 hex digits of the home folder's SHA-256), a
folder only the user may enter (made 0700; one that another user owns, or that others may
enter, is refused rather than used). Where the variable is unset (Codex passes a server only a
few variables), the user's ``/run/user/<uid>`` is used when it is private, as the session's
runtime folder is, so that every host of a login finds one daemon; else ``/tmp/agentty-<uid>/``.
A daemon serves the home it runs in: a host run with another ``HOME`` (a test's fake home, a
sandbox) gets a daemon of its own rather than another home's view. Beside the socket,
``gw-<home>.lock`` serializes starting the daemon, so that two hosts starting at once
start one. A connection is served only when its peer runs as the same user (``peer_uid``, the
kernel's word on it, not the peer's).
"""

from __future__ import annotations

import hashlib
import os
import socket
import stat
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from agentty_tui.errors import AgenttyError

__all__ = ["Rendezvous", "home_tag", "peer_credentials", "peer_uid", "rendezvous"]


@dataclass(frozen=True, slots=True)
class Rendezvous:
    """The daemon's folder and the files in it."""

    folder: Path
    """The private folder."""
    home: str = ""
    """Which home's daemon: a digest of the home folder (``home_tag``)."""

    @property
    def socket(self) -> Path:
        """Where the daemon listens."""
        return self.folder / f"gw-{self.home}.sock"

    @property
    def lock(self) -> Path:
        """Held while a daemon is being started."""
        return self.folder / f"gw-{self.home}.lock"

    @property
    def pid(self) -> Path:
        """The listening daemon's process id (written once it listens)."""
        return self.folder / f"gw-{self.home}.pid"


def home_tag(home: Path) -> str:
    """The home folder as part of a file name: 8 hex digits of its path's SHA-256 (short: a
    socket's whole path must fit in 107 bytes)."""
    return hashlib.sha256(os.fsencode(str(home))).hexdigest()[:8]


_SOCKET_PATH_MAX = 107
"""The longest path a Unix socket may be bound to (``sun_path`` is 108 bytes, with its NUL)."""


def _session_runtime(uid: int) -> Path | None:
    """The login's runtime folder ``/run/user/<uid>`` when it is the user's alone."""
    folder = Path("/run/user") / str(uid)
    try:
        info = os.lstat(folder)
    except OSError:
        return None
    private = stat.S_ISDIR(info.st_mode) and info.st_uid == uid and not info.st_mode & 0o077
    return folder if private else None


def rendezvous(
    env: Mapping[str, str], uid: int | None = None, home: Path | None = None
) -> Rendezvous:
    """The rendezvous of the user's daemon for ``home`` (default: ``HOME`` in ``env``, else
    the process's home), its folder made private if new; an ``AgenttyError`` naming the folder
    when it is not the user's alone."""
    uid = os.getuid() if uid is None else uid
    home = home if home is not None else Path(env.get("HOME") or Path.home())
    runtime = env.get("XDG_RUNTIME_DIR") or _session_runtime(uid)
    folder = Path(runtime) / "agentty" if runtime else Path("/tmp") / f"agentty-{uid}"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != uid or info.st_mode & 0o077:
        raise AgenttyError(
            f"{folder} is not a private folder of this user (owner {info.st_uid}, mode "
            f"{stat.S_IMODE(info.st_mode):o}): the gateway will not listen there"
        )
    place = Rendezvous(folder, home_tag(home))
    if len(os.fsencode(str(place.socket))) > _SOCKET_PATH_MAX:
        raise AgenttyError(
            f"{place.socket} is too long a path for a Unix socket (at most {_SOCKET_PATH_MAX} "
            "bytes): set XDG_RUNTIME_DIR to a shorter folder"
        )
    return place


_CREDENTIALS = struct.Struct("3i")  # pid, uid, gid


def peer_credentials(connection: socket.socket) -> tuple[int | None, int | None]:
    """The process id and the user id of the peer of a Unix socket, as the kernel says
    (``None`` where the system cannot say)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None, None
    data = connection.getsockopt(socket.SOL_SOCKET, option, _CREDENTIALS.size)
    pid, uid, _gid = _CREDENTIALS.unpack(data)
    return int(pid), int(uid)


def peer_uid(connection: socket.socket) -> int | None:
    """The user id the peer of a Unix socket runs as (``None`` where the system cannot say)."""
    return peer_credentials(connection)[1]
