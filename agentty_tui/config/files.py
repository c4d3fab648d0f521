"""The one way a config file (or a file a config names) is read from disk.

Config paths come from the user, the environment and other config files, so what they name is
not trusted to be a small regular file: a FIFO would block the reader for ever, ``/dev/zero``
never ends, and a huge file would fill memory. ``read_file`` opens without blocking
(``O_NONBLOCK``; symlinks are followed as every editor does), refuses anything but a regular
file, and reads at most ``size_limit(path)``: ``MAX_CONFIG_BYTES`` for a config file, and the
larger ``MAX_CLAUDE_STATE_BYTES`` for Claude Code's ``~/.claude.json``, which holds its servers
among its per-project history and grows past 16 MiB for a heavy user.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from agentty_tui.errors import ConfigError

__all__ = [
    "CLAUDE_STATE_NAME",
    "MAX_CLAUDE_STATE_BYTES",
    "MAX_CONFIG_BYTES",
    "FileRead",
    "FileVersion",
    "decode_text",
    "format_size",
    "read_file",
    "read_text",
    "size_limit",
]

_MIB = 1024 * 1024

MAX_CONFIG_BYTES = 16 * _MIB
"""The largest config file read (16 MiB): real ones are a few kilobytes."""

CLAUDE_STATE_NAME = ".claude.json"
"""The name of Claude Code's state file (``~/.claude.json``): its user and local servers sit
among everything else it keeps, per-project history included."""

MAX_CLAUDE_STATE_BYTES = 256 * _MIB
"""The largest ``~/.claude.json`` read (256 MiB). A heavy Claude Code user's is over 16 MiB;
reading one costs time and memory linear in its size (``bench/bench_claude_json.py``: the
figures are in the README)."""

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


@dataclass(frozen=True, slots=True)
class FileRead:
    """A regular file's bytes, with the metadata of the inode they were read from."""

    data: bytes
    """The whole content."""
    mode: int
    """Permission bits (``stat.S_IMODE``)."""
    uid: int
    """Owner."""
    gid: int
    """Group."""


def format_size(size: int) -> str:
    """A byte count in decimal units, as ``1.0 GB`` or ``17 MB``."""
    value = float(size)
    for unit in ("B", "kB", "MB"):
        if value < 1000:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} GB"


def _kind(mode: int) -> str:
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a file"


def size_limit(*names: str | os.PathLike[str]) -> int:
    """The most bytes read of a file known by ``names`` (its path as given, and the file a
    symlink leads to): ``MAX_CLAUDE_STATE_BYTES`` when one is ``~/.claude.json``'s name, else
    ``MAX_CONFIG_BYTES``."""
    if any(os.path.basename(os.fspath(name)) == CLAUDE_STATE_NAME for name in names):
        return MAX_CLAUDE_STATE_BYTES
    return MAX_CONFIG_BYTES


def _too_big(size: int, limit: int, path: str) -> ConfigError:
    what = "Claude Code's state file" if limit == MAX_CLAUDE_STATE_BYTES else "a config file"
    shown = f"{limit // _MIB} MiB" if limit % _MIB == 0 else f"{limit:,}-byte"
    return ConfigError(f"{format_size(size)} is over the {shown} limit of {what}", path=path)


def read_file(
    target: str | os.PathLike[str],
    path: str | None = None,
    *,
    limit: int | None = None,
    follow_symlinks: bool = True,
) -> FileRead | None:
    """The bytes and metadata of the regular file at ``target``; ``None`` when it does not exist.

    ``path`` is how messages name the file (default: ``target``). Anything but a regular file,
    a file over ``limit`` bytes (default: ``size_limit`` of ``path`` and ``target``) or one that
    cannot be read is a ``ConfigError``; so is a symbolic link at ``target`` when not
    ``follow_symlinks`` (a file of our own, which we never make a link, so one planted there is
    not ours).
    """
    shown = os.fspath(target) if path is None else path
    if limit is None:
        limit = size_limit(shown, target)
    # O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting for one;
    # on a regular file the flag changes nothing.
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC
    if not follow_symlinks:
        flags |= os.O_NOFOLLOW
    try:
        fd = os.open(target, flags)
    except FileNotFoundError:
        return None
    except OSError as error:
        if error.errno == errno.ELOOP and not follow_symlinks:
            raise ConfigError("a symbolic link (this file is never one)", path=shown) from None
        raise ConfigError(f"cannot read the file: {error.strerror or error}", path=shown) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ConfigError(f"not a regular file ({_kind(info.st_mode)})", path=shown)
        if info.st_size > limit:
            raise _too_big(info.st_size, limit, shown)
        chunks: list[bytes] = []
        total = 0
        # Read to the end but never past the limit: the file may grow after the fstat.
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise _too_big(max(total, os.fstat(fd).st_size), limit, shown)
    except OSError as error:
        raise ConfigError(f"cannot read the file: {error.strerror or error}", path=shown) from None
    finally:
        os.close(fd)
    return FileRead(
        data=b"".join(chunks),
        mode=stat.S_IMODE(info.st_mode),
        uid=info.st_uid,
        gid=info.st_gid,
    )


def decode_text(data: bytes, path: str) -> str:
    """A file's bytes as UTF-8 text (a BOM dropped); ``ConfigError`` naming ``path`` if not."""
    try:
        return data.removeprefix(b"\xef\xbb\xbf").decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"not UTF-8 text ({error.reason} at byte {error.start})", path=path
        ) from None


def read_text(target: Path, path: str | None = None) -> str | None:
    """``read_file`` decoded as UTF-8 (a BOM dropped); ``None`` when the file does not exist."""
    read = read_file(target, path)
    if read is None:
        return None
    return decode_text(read.data, os.fspath(target) if path is None else path)


@dataclass(frozen=True, slots=True)
class FileVersion:
    """A cheap fingerprint of the file on disk (one ``stat``), to notice outside changes."""

    mtime_ns: int
    """Last modification time."""
    size: int
    """Size in bytes."""
    inode: int
    """Inode number: an atomic replace changes it even within one mtime tick."""
    device: int
    """Device of the inode."""

    @classmethod
    def of(cls, info: os.stat_result) -> FileVersion:
        """The fingerprint a ``stat`` gave."""
        return cls(info.st_mtime_ns, info.st_size, info.st_ino, info.st_dev)
