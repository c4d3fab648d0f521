"""Config writes announced to the bridges running on this machine, so they reload at once.

A bridge's live reload learns of an outside edit from the file watcher, which must wait for
quiet (an editor's save is a burst of writes) and so takes a tenth of a second. A write of
ours needs no such wait: it is one whole atomic rename, complete when it lands. So after each
write the store tells every listening bridge of the same user: one datagram (``b"written"``,
nothing else; the listener reads no meaning into it) to each socket in ``listeners/`` of the
user's private runtime folder (``runtime_folder``). A bridge that hears it compares the files'
fingerprint at once, as the watcher's callback would, and reloads if its files changed; the
watcher's own event comes later and finds nothing new.

Sending never waits and never fails a write: a listener whose queue is full already has news
pending; a socket nobody listens on any more (its process was killed) is removed. The folder is
used only when it is the user's alone, so a poke reaches only the user's own processes.

Several writes that make one change (a switch written to each host's file) are announced once,
at the end: ``one_announcement``. A bridge writing for itself announces after it noted the
files' new fingerprint (``one_announcement`` around both), so that its own listener never
takes its own write for an outside edit.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import socket
import stat
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path

from agentty_tui.runtime_folder import private_runtime_folder, runtime_folder_path

__all__ = ["LISTENERS", "announce_written", "listener_path", "one_announcement", "written"]

log = logging.getLogger(__name__)

LISTENERS = "listeners"
"""The runtime folder's subfolder that holds the listening sockets."""

MESSAGE = b"written"
"""What a listener is sent."""

_SUFFIX = ".sock"


class _Pending:
    """Whether a write happened inside a ``one_announcement`` block."""

    def __init__(self) -> None:
        self.written = False
        """A write is waiting to be announced at the block's end."""


_batch: ContextVar[_Pending | None] = ContextVar("agentty_announce_batch", default=None)


@contextlib.contextmanager
def one_announcement() -> Iterator[None]:
    """Announce the writes made inside the block once, when it ends (inside an outer block:
    when that one ends). Announced even when the block raises after a write landed."""
    if _batch.get() is not None:
        yield
        return
    pending = _Pending()
    token = _batch.set(pending)
    try:
        yield
    finally:
        _batch.reset(token)
        if pending.written:
            announce_written()


def written() -> None:
    """A config file was just replaced: announce it now, or at the end of the enclosing
    ``one_announcement``."""
    pending = _batch.get()
    if pending is not None:
        pending.written = True
    else:
        announce_written()


def _private(folder: Path) -> bool:
    """Whether ``folder`` is a folder of this user that nobody else may enter."""
    try:
        info = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077


def announce_written() -> None:
    """Send the news to every listening bridge of this user (none listening: nothing)."""
    runtime = runtime_folder_path(os.environ, os.getuid())
    folder = runtime / LISTENERS
    if not (_private(runtime) and _private(folder)):
        return  # nobody listens (or the folder is not ours alone: nothing is sent there)
    try:
        names = [name for name in os.listdir(folder) if name.endswith(_SUFFIX)]
    except OSError:
        return
    if not names:
        return
    try:
        sender = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    except OSError as error:  # no descriptor left: the watchers will see the write
        log.debug("announcing a write: %s", error)
        return
    with sender:
        sender.setblocking(False)
        for name in names:
            path = folder / name
            try:
                sender.sendto(MESSAGE, os.fsencode(path))
            except ConnectionRefusedError:
                # Its process is gone (a name is never reused): nobody will listen there again.
                with contextlib.suppress(OSError):
                    path.unlink()
            except OSError as error:  # a full queue has news pending; a race with an unlink
                log.debug("announcing a write to %s: %s", path, error)


def listener_path() -> Path:
    """A new socket path for one listening bridge (the folder made private if new); an
    ``AgenttyError`` when the runtime folder is not the user's alone, ``OSError`` when it
    cannot be made."""
    folder = private_runtime_folder(os.environ) / LISTENERS
    folder.mkdir(mode=0o700, exist_ok=True)
    if not _private(folder):
        raise OSError(f"{folder} is not a private folder of this user")
    return folder / f"{secrets.token_hex(8)}{_SUFFIX}"
