"""The one way a config file (or a file a config names) is read from disk.

Config paths come from the user, the environment and other config files, so what they name is
not trusted to be a small regular file: a FIFO would block the reader for ever, ``/dev/zero``
never ends, and a huge file would fill memory. ``read_file`` opens without blocking
(``O_NONBLOCK``; symlinks are followed as every editor does), refuses anything but a regular
file, and reads at most ``MAX_CONFIG_BYTES``.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from agentty_tui.errors import ConfigError

__all__ = [
    "MAX_CONFIG_BYTES",
    "FileRead",
    "decode_text",
    "format_size",
    "read_file",
    "read_text",
]

MAX_CONFIG_BYTES = 16 * 1024 * 1024
"""The largest config file read (16 MiB): real ones are a few kilobytes."""

_LIMIT_TEXT = "16 MiB"

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


def _too_big(size: int, path: str) -> ConfigError:
    return ConfigError(
        f"{format_size(size)} is over the {_LIMIT_TEXT} limit of a config file", path=path
    )


def read_file(
    target: str | os.PathLike[str],
    path: str | None = None,
    *,
    limit: int = MAX_CONFIG_BYTES,
    follow_symlinks: bool = True,
) -> FileRead | None:
    """The bytes and metadata of the regular file at ``target``; ``None`` when it does not exist.

    ``path`` is how messages name the file (default: ``target``). Anything but a regular file,
    a file over ``limit`` bytes or one that cannot be read is a ``ConfigError``; so is a
    symbolic link at ``target`` when not ``follow_symlinks`` (a file of our own, which we never
    make a link, so one planted there is not ours).
    """
    shown = os.fspath(target) if path is None else path
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
            raise _too_big(info.st_size, shown)
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
                raise _too_big(max(total, os.fstat(fd).st_size), shown)
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
