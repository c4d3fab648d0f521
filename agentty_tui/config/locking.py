"""The lock that orders our own writers of one config file, kept out of the user's folders.

A lock file beside the config would show up in the user's folder (and in a ``git status``); the
config itself cannot carry the lock either, since every write replaces it with a new inode. So
the lock of a config is a file in a folder of our own, named after a hash of the config's real
path: ``$XDG_RUNTIME_DIR/agentty/locks`` (a per-user folder that the system empties at logout),
else ``$XDG_STATE_HOME/agentty/locks`` (``~/.local/state/agentty/locks``), else a per-user folder
under the system's temp folder. Every process of the same user that writes the same file finds
the same lock, whatever name (symlink, relative path) it reached the file by.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from agentty_tui.errors import ConfigError

__all__ = ["lock_folders", "lock_path", "locked"]


def lock_folders() -> list[Path]:
    """Where locks may live, in the order they are tried."""
    folders: list[Path] = []
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime):
        folders.append(Path(runtime) / "agentty" / "locks")
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    folders.append(Path(state) / "agentty" / "locks")
    folders.append(Path(tempfile.gettempdir()) / f"agentty-{os.geteuid()}" / "locks")
    return folders


def _own_folder(folder: Path) -> bool:
    """Make ``folder`` (mode 0700) if needed; whether it is a folder of ours that only we can
    write, so that nobody else can take or replace our locks."""
    try:
        # The ``agentty`` folder above it too: ``mkdir -p`` would make it 0755, and in the
        # runtime folder it is the private one the gateway's socket needs (``runtime_folder``).
        folder.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        folder.mkdir(mode=0o700, exist_ok=True)
        info = os.lstat(folder)
    except OSError:
        return False
    return (
        stat.S_ISDIR(info.st_mode)
        and info.st_uid == os.geteuid()
        and info.st_mode & (stat.S_IWGRP | stat.S_IWOTH) == 0
    )


def lock_path(target: Path) -> Path:
    """The lock file of the config at ``target`` (its real path), in the first usable folder."""
    key = hashlib.sha256(os.fsencode(os.path.realpath(target))).hexdigest()[:32]
    for folder in lock_folders():
        if _own_folder(folder):
            return folder / f"{key}.lock"
    raise ConfigError(f"no folder for lock files ({', '.join(map(str, lock_folders()))})")


@contextlib.contextmanager
def locked(target: Path, timeout: float, path: str) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``target``'s lock; ``ConfigError`` after ``timeout``.

    The lock is advisory: it orders agentty processes among themselves. Other editors do not take
    it, which is why the store also re-checks the bytes before renaming.
    """
    try:
        where = lock_path(target)
        fd = os.open(where, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    except ConfigError as error:
        raise ConfigError(error.detail, path=path) from None
    except OSError as error:
        raise ConfigError(f"cannot open the lock file: {error.strerror}", path=path) from None
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as error:
                if error.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                    raise
                # Polling instead of a blocking flock: a stuck holder must not hang the app.
                if time.monotonic() >= deadline:
                    raise ConfigError(
                        f"another process has held the file's lock ({where}) for over "
                        f"{timeout:g} s",
                        path=path,
                    ) from None
                time.sleep(0.01)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock
