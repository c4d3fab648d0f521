"""Token counts kept across processes, so that a catalog counted once never loads the encoding.

Loading the ``o200k_base`` encoding costs about 0.5 to 0.7 s of CPU and holds the interpreter's
lock throughout (:mod:`.tokens`); counting a tool once it is loaded costs microseconds. The
same servers' tools are counted by every ``list --json``, ``catalog`` and picker, so each count
is kept in one file per user, read before the encoding would be loaded: a catalog whose
definitions are all in it is counted without loading the encoding at all.

**Where.** ``$XDG_CACHE_HOME/agentty/token-counts.bin`` (``~/.cache/agentty/`` without the
variable), in a folder made private (0700).

**What a count is kept by.** A 16-byte BLAKE2b digest of the exact text counted (the tool's
serialised entry, :func:`.tokens.tool_definition`), the family and the encoding it is counted
in, and :data:`COUNT_RULE` (raised when the way a text is counted changes, so that counts of an
older rule are never used). No tool's text is kept, only digests and numbers.

**The file.** A header (:data:`MAGIC`, the number of records, a CRC-32 of the records), then
the records, each the digest and the count as a little-endian ``uint32``, oldest first. A file
whose magic, length or checksum does not match (another program's, a torn or corrupt write, an
older format) is ignored as if absent, and replaced by the next write; a file larger than the
bound is not read. Reading never raises: a cache that cannot be read is an empty one.

**Bounded.** At most :data:`MAX_ENTRIES` records (about 1.3 MiB). A write keeps the newest: the
records this process counted or used go last, and the oldest beyond the bound are dropped.

**Writers.** :meth:`TokenCache.save` writes only when this process counted something new. It
takes an ``flock`` on a lock file beside the cache (polling, at most :data:`LOCK_WAIT` seconds;
without the lock it gives up: it is only a cache), reads the file again so that another
process's counts written meanwhile are kept, and replaces the file atomically (a temporary file
in the same folder, then ``os.replace``): a reader sees the old file or the new, never a part.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import struct
import threading
import time
import zlib
from collections.abc import Iterator
from pathlib import Path

from agentty_tui.atomic_file import replace_file

__all__ = [
    "COUNT_RULE",
    "LOCK_WAIT",
    "MAGIC",
    "MAX_ENTRIES",
    "TokenCache",
    "default_cache_path",
    "definition_digest",
]

MAGIC = b"agtkc\x00\x01\n"
"""The first bytes of a cache file of this format (the last two: the format's version)."""

COUNT_RULE = b"1"
"""The counting rule's version, hashed into every digest: raise it when ``tokens._count`` or
the encodings' use changes, so that no count of the old rule is read."""

MAX_ENTRIES = 65_536
"""The most counts the file keeps (each 20 bytes)."""

LOCK_WAIT = 2.0
"""Seconds a writer waits for another's lock before it gives its write up."""

_HEADER = struct.Struct("<8sII")  # magic, number of records, CRC-32 of the records
_RECORD = struct.Struct("<16sI")  # digest, count
_DIGEST_SIZE = 16


def default_cache_path() -> Path:
    """``$XDG_CACHE_HOME/agentty/token-counts.bin``, else ``~/.cache/agentty/token-counts.bin``."""
    base = os.environ.get("XDG_CACHE_HOME")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".cache"
    return root / "agentty" / "token-counts.bin"


def definition_digest(family: str, encoding: str, text: str) -> bytes:
    """The key a count of ``text`` in ``family`` with ``encoding`` is kept by."""
    digest = hashlib.blake2b(digest_size=_DIGEST_SIZE, person=b"agentty-tokens")
    digest.update(COUNT_RULE + b"\x00" + family.encode() + b"\x00" + encoding.encode() + b"\x00")
    # A lone surrogate (a server's broken escape) has no UTF-8 form; keep it distinct anyway.
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.digest()


def _parse(data: bytes, max_entries: int) -> dict[bytes, int] | None:
    """The records of a cache file's bytes, oldest first; ``None`` when they are not a cache
    file of this format (foreign, torn, corrupt)."""
    if len(data) < _HEADER.size:
        return None
    magic, count, checksum = _HEADER.unpack_from(data)
    body = memoryview(data)[_HEADER.size :]
    if magic != MAGIC or count > max_entries or len(body) != count * _RECORD.size:
        return None
    if zlib.crc32(body) != checksum:
        return None
    return dict(_RECORD.iter_unpack(body))


def _serialise(records: dict[bytes, int]) -> bytes:
    body = b"".join(_RECORD.pack(key, value) for key, value in records.items())
    return _HEADER.pack(MAGIC, len(records), zlib.crc32(body)) + body


class TokenCache:
    """The persistent counts of one file: read once, on first use; written by :meth:`save`.

    Safe for several threads of one process (one lock) and several processes (see the module
    docstring). ``path=None``: :func:`default_cache_path`, resolved on first use;
    ``max_entries``: the bound (:data:`MAX_ENTRIES`).
    """

    __slots__ = (
        "_default",
        "_known",
        "_known_from",
        "_lock",
        "_max_entries",
        "_new",
        "_path",
        "_used",
    )

    def __init__(self, path: Path | None = None, *, max_entries: int = MAX_ENTRIES) -> None:
        self._path = path
        self._max_entries = max_entries
        self._lock = threading.Lock()
        # The file's records, once read, and the file they were read from (the default path
        # follows $XDG_CACHE_HOME: a test, or an embedder, may move it between uses).
        self._known: dict[bytes, int] | None = None
        self._known_from: Path | None = None
        # The default path as last resolved, by the variables it follows: a look-up builds no
        # Path while they are unchanged (a catalog's counts are hundreds of look-ups).
        self._default: tuple[tuple[str | None, str | None], Path] | None = None
        self._new: dict[bytes, int] = {}  # counted by this process, not written yet
        self._used: dict[bytes, int] = {}  # read from the file and used by this process

    @property
    def path(self) -> Path:
        """The cache file (the default one as the environment says now)."""
        if self._path is not None:
            return self._path
        environ = os.environ
        key = (environ.get("XDG_CACHE_HOME"), environ.get("HOME"))
        default = self._default
        if default is None or default[0] != key:
            default = self._default = (key, default_cache_path())
        return default[1]

    def get(self, key: bytes) -> int | None:
        """The count kept for ``key`` (a :func:`definition_digest`), or ``None``."""
        with self._lock:
            found = self._new.get(key)
            if found is not None:
                return found
            path = self.path
            if self._known is None or (self._known_from is not path and self._known_from != path):
                self._known, self._known_from = self._read(path), path
            found = self._known.get(key)
            if found is not None:
                self._used[key] = found
            return found

    def put(self, key: bytes, count: int) -> None:
        """Keep ``count`` for ``key``, to be written by the next :meth:`save`."""
        if not 0 <= count < 2**32:
            return
        with self._lock:
            self._new[key] = count

    @property
    def unsaved(self) -> int:
        """How many counts :meth:`save` would add to the file."""
        return len(self._new)

    def save(self) -> bool:
        """Write the counts made since the last save (merged with the file as it is now);
        whether the file was written. Never raises: a cache that cannot be written is left."""
        with self._lock:
            if not self._new:
                return False
            new, self._new = self._new, {}
            used, self._used = self._used, {}
            path = self.path
            try:
                written = self._write(path, new, used)
            except OSError:
                written = None
            if written is None:
                return False
            self._known, self._known_from = written, path
            return True

    def _read(self, path: Path) -> dict[bytes, int]:
        """The file's records; empty when it is absent, too large, foreign or corrupt."""
        limit = _HEADER.size + self._max_entries * _RECORD.size
        try:
            with open(path, "rb") as file:
                data = file.read(limit + 1)
        except OSError:
            return {}
        if len(data) > limit:
            return {}
        return _parse(data, self._max_entries) or {}

    def _write(
        self, path: Path, new: dict[bytes, int], used: dict[bytes, int]
    ) -> dict[bytes, int] | None:
        """Merge and replace the file under the writers' lock; what it holds now, or ``None``
        when the lock was not had."""
        folder = path.parent
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        with _locked(folder / (path.name + ".lock")) as had:
            if not had:
                return None
            records = self._read(path)  # another process may have written since we read
            for key in (*used, *new):
                records.pop(key, None)
            records.update(used)
            records.update(new)  # the newest last: the bound drops the oldest first
            if len(records) > self._max_entries:
                keys = list(records)[-self._max_entries :]
                records = {key: records[key] for key in keys}
            replace_file(path, _serialise(records), prefix=".token-counts-")
            return records


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[bool]:
    """Hold an exclusive ``flock`` on ``path`` (made if needed); yields whether it was had
    within :data:`LOCK_WAIT` seconds."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        deadline = time.monotonic() + LOCK_WAIT
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    yield False
                    return
                # Polling, not a blocking flock: a stuck holder must not hang the command.
                time.sleep(0.01)
        try:
            yield True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
