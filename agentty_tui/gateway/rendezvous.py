"""Where the gateway daemon listens, and who may talk to it.

One daemon a user and home: its Unix socket is ``gw-<home>.sock`` (``<home>``: 8 hex digits
of the home folder's SHA-256) in the user's runtime folder (``agentty_tui.runtime_folder``:
``$XDG_RUNTIME_DIR/agentty/``, a folder only the user may enter). A daemon serves the home it
runs in: a host run with another ``HOME`` (a test's fake home, a sandbox) gets a daemon of its
own rather than another home's view. Beside the socket, ``gw-<home>.lock`` serializes starting
the daemon, so that two hosts starting at once start one. A connection is served only when its
peer runs as the same user (``peer_uid``, the kernel's word on it, not the peer's).
"""

from __future__ import annotations

import hashlib
import os
import socket
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from agentty_tui.errors import AgenttyError
from agentty_tui.runtime_folder import private_runtime_folder

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


def rendezvous(
    env: Mapping[str, str], uid: int | None = None, home: Path | None = None
) -> Rendezvous:
    """The rendezvous of the user's daemon for ``home`` (default: ``HOME`` in ``env``, else
    the process's home), its folder made private if new; an ``AgenttyError`` naming the folder
    when it is not the user's alone, or a socket path too long."""
    home = home if home is not None else Path(env.get("HOME") or Path.home())
    place = Rendezvous(private_runtime_folder(env, uid), home_tag(home))
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
