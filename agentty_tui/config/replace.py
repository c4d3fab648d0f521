"""The steps of an atomic replace: a fsynced temp file beside the target, the directory fsynced
after the rename, and the temp files a killed writer left behind cleaned up.

The temp file has to be in the target's folder (a rename is atomic only within one file system);
it lives only while a write is under way.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
from pathlib import Path
from typing import Protocol

__all__ = ["FileMeta", "fsync_directory", "remove_orphaned_temps", "write_temp"]


class FileMeta(Protocol):
    """The metadata a rewrite keeps."""

    @property
    def mode(self) -> int:
        """Permission bits."""
        ...

    @property
    def uid(self) -> int:
        """Owner."""
        ...

    @property
    def gid(self) -> int:
        """Group."""
        ...


def fsync_directory(directory: Path) -> None:
    """Make a rename in ``directory`` durable."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    except OSError as error:
        # Some file systems cannot fsync a directory; the rename itself already happened.
        if error.errno not in (errno.EINVAL, errno.ENOTSUP):
            raise
    finally:
        os.close(fd)


def remove_orphaned_temps(target: Path) -> None:
    """Delete temp files a killed writer left behind.

    Only a writer holding the lock creates ``.<name>.<8 hex>.tmp`` next to the target, and it
    renames or deletes it before letting go; so one found by the lock's holder is an orphan.
    """
    pattern = re.compile(rf"\.{re.escape(target.name)}\.[0-9a-f]{{8}}\.tmp")
    try:
        names = os.listdir(target.parent)
    except OSError:
        return
    for name in names:
        if pattern.fullmatch(name):
            with contextlib.suppress(OSError):
                (target.parent / name).unlink()


def write_temp(target: Path, data: bytes, like: FileMeta | None) -> Path:
    """Write ``data`` to a new fsynced temp file next to ``target``, with ``like``'s mode."""
    temp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    # 0o666 filtered by the umask is what a plain open() would give a new config file.
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
    try:
        if like is not None:
            os.fchmod(fd, like.mode)
            if (like.uid, like.gid) != (os.geteuid(), os.getegid()):
                # Only root (or a group member) can keep the owner; otherwise the file
                # becomes ours, as it would with any editor's atomic save.
                with contextlib.suppress(PermissionError):
                    os.fchown(fd, like.uid, like.gid)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        temp.unlink(missing_ok=True)
        raise
    os.close(fd)
    return temp
