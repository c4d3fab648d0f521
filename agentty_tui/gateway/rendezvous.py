"""Where the gateway daemon listens, and who may talk to it.

One daemon a user: its Unix socket is ``gateway.sock`` in ``$XDG_RUNTIME_DIR/agentty/``
(``/tmp/agentty-<uid>/`` where the variable is unset): ``agentty_tui.runtime_folder``, a folder
only the user may enter. Beside it, ``gateway.lock`` serializes starting the daemon, so that
two hosts starting at once start one. A connection is served only when its peer runs as the
same user (``peer_uid``, the kernel's word on it, not the peer's).
"""

from __future__ import annotations

import socket
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from agentty_tui.runtime_folder import private_runtime_folder

__all__ = ["Rendezvous", "peer_credentials", "peer_uid", "rendezvous"]


@dataclass(frozen=True, slots=True)
class Rendezvous:
    """The daemon's folder and the files in it."""

    folder: Path
    """The private folder."""

    @property
    def socket(self) -> Path:
        """Where the daemon listens."""
        return self.folder / "gateway.sock"

    @property
    def lock(self) -> Path:
        """Held while a daemon is being started."""
        return self.folder / "gateway.lock"

    @property
    def pid(self) -> Path:
        """The listening daemon's process id (written once it listens)."""
        return self.folder / "gateway.pid"


def rendezvous(env: Mapping[str, str], uid: int | None = None) -> Rendezvous:
    """The user's rendezvous, its folder made private if new; an ``AgenttyError`` naming the
    folder when it is not the user's alone."""
    return Rendezvous(private_runtime_folder(env, uid))


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
