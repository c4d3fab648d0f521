"""Claude Code's own lock of ``~/.claude.json``, taken while we write the file.

Claude Code saves ``~/.claude.json`` under a lock of its own (read in its program, 2.1.197): the
folder ``<file>.lock`` made with ``mkdir`` (the npm ``proper-lockfile`` protocol: whoever made
the folder holds the lock, its mtime is refreshed every 5 s while held, and a folder untouched
for 10 s is stale and may be taken over); under it, it re-reads the file, applies its change and
writes. Its write does not check that the file is still what it read, so a replace of ours that
landed between its read and its write would be lost. Holding its lock while we read, edit and
replace closes that window for its locked saves (one that cannot take the lock falls back to a
save without it; the store's re-check before the rename covers what lands before ours).
"""

from __future__ import annotations

import contextlib
import errno
import os
import time
from collections.abc import Iterator
from pathlib import Path

from agentty_tui.config.files import CLAUDE_STATE_NAME
from agentty_tui.errors import ConfigError

__all__ = ["STALE_SECONDS", "claude_state_lock", "refresh", "state_lock_path"]

STALE_SECONDS = 10.0
"""How old (by its mtime) a lock folder is before a waiting writer takes it over, as in Claude
Code's lock."""


def state_lock_path(path: Path) -> Path | None:
    """Claude Code's lock folder of ``path`` (``<path>.lock``, the path as named), or ``None``
    when ``path`` is not Claude Code's state file."""
    if path.name != CLAUDE_STATE_NAME:
        return None
    return path.with_name(path.name + ".lock")


def refresh(lock: Path) -> None:
    """Touch the lock folder's mtime (a holder's sign of life; done before each replace)."""
    with contextlib.suppress(OSError):
        os.utime(lock)


@contextlib.contextmanager
def claude_state_lock(path: Path, timeout: float, shown: str) -> Iterator[None]:
    """Hold Claude Code's lock of its state file ``path`` (nothing for another file).

    Waits up to ``timeout`` seconds for a holder to let go; a folder older than
    ``STALE_SECONDS`` is taken over; ``ConfigError`` naming the lock when it stays held.
    """
    lock = state_lock_path(path)
    if lock is None:
        yield
        return
    deadline = time.monotonic() + timeout
    while True:
        try:
            os.mkdir(lock, 0o700)
            break
        except FileExistsError:
            try:
                age = time.time() - os.stat(lock).st_mtime
            except FileNotFoundError:
                continue  # let go meanwhile: try again at once
            if age > STALE_SECONDS:
                with contextlib.suppress(OSError):
                    os.rmdir(lock)
                continue
        except OSError as error:
            if error.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
                # A folder we may not write in: nobody's save goes there under a lock either.
                yield
                return
            raise ConfigError(
                f"cannot take Claude Code's lock {lock}: {error.strerror}", path=shown
            ) from None
        if time.monotonic() >= deadline:
            raise ConfigError(
                f"Claude Code has held its lock {lock} for over {timeout:g} s; try again",
                path=shown,
            )
        # Polling, as our own lock does: a stuck holder must not hang the app.
        time.sleep(0.01)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.rmdir(lock)
