"""The config store: reads one config file and writes edits to it without ever losing one.

``DocumentStore`` owns the file work for any document view (what a file holds and how an edit
changes its text: a ``Dialect`` for a server config, or a host's settings file); ``ConfigStore``
is the store of a server config, its format behind a ``Dialect``. Writes happen only through
``apply``, which
- serializes our own writers with an ``flock`` on a lock file of our own, never in the user's
  folder (``locking.py``);
- re-reads the file fresh every time (a cached document would overwrite an edit made meanwhile);
- refuses to write a file that does not parse (the user's bytes stay as they are);
- writes a temp file next to the target, fsyncs it, re-checks that the target still holds the
  bytes, mode and owner the edit was based on, renames over it and fsyncs the directory; if the
  target changed, it starts over from the new content (a bounded number of times);
- keeps the file's mode, its line endings and BOM, and writes through a symlink to its target;
- takes Claude Code's own lock too when the file is its ``~/.claude.json``
  (``hosts/claude/statelock.py``);
- refuses to edit a file that is read-only (no write bit the user has): a rename needs only
  the folder's permission, and would silently replace a file its owner chose to protect.

The steps of the atomic replace (``write_temp``, ``fsync_directory``, ``remove_orphaned_temps``):
a fsynced temp file beside the target, the directory fsynced
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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from agentty_tui.config.announce import written
from agentty_tui.config.detect import detect_file
from agentty_tui.config.dialect import Dialect
from agentty_tui.config.documents.formats import parses_whole, shared_text
from agentty_tui.config.engine import ConfigEdit
from agentty_tui.config.files import FileVersion, read_file
from agentty_tui.config.hosts.claude.statelock import claude_state_lock, refresh, state_lock_path
from agentty_tui.config.locking import locked
from agentty_tui.config.trust import file_trust_problem
from agentty_tui.errors import ConfigError, ReadOnlyFileError
from agentty_tui.specs import PluginConfig

__all__ = [
    "ConfigStore",
    "DocumentStore",
    "DocumentView",
    "FileMeta",
    "fsync_directory",
    "remove_orphaned_temps",
    "write_temp",
]

EditT = TypeVar("EditT")
"""The edits a store's view applies."""
EditT_contra = TypeVar("EditT_contra", contravariant=True)
ValueT = TypeVar("ValueT")
"""What a store's view reads from a text."""
ValueT_co = TypeVar("ValueT_co", covariant=True)


class DocumentView(Protocol[EditT_contra, ValueT_co]):
    """What a file holds, seen by one reader and writer: text to document and value, an edit
    applied to a document, a document back to text laid out like the file.

    ``Dialect`` is the view of a server config; a host's settings file has its own. Texts are
    passed with ``\\n`` line endings; the store restores the file's own.
    """

    def parse(self, text: str, path: str | None) -> tuple[Any, ValueT_co]:
        """The document and the value ``text`` holds; ``ConfigError`` names ``path`` and where."""
        ...

    def apply(self, document: Any, edit: EditT_contra, path: str | None) -> Any:
        """A new document with ``edit`` applied (equal to ``document`` when it is a no-op)."""
        ...

    def dump(self, document: Any, like: str | None) -> str:
        """The document's text, laid out like ``like`` (``None``: a new file)."""
        ...


_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True, slots=True)
class _Snapshot:
    """The target's bytes as read, with the metadata a rewrite must keep."""

    data: bytes
    mode: int
    uid: int
    gid: int


@dataclass(frozen=True, slots=True)
class _TextForm:
    """Byte-level form of a file that the dialects never see: BOM and line endings."""

    bom: bool = False
    crlf: bool = False

    def encode(self, text: str) -> bytes:
        """Turn ``\\n`` text back into the file's own bytes."""
        if self.crlf:
            text = text.replace("\n", "\r\n")
        return (_BOM if self.bom else b"") + text.encode("utf-8")


def _decode(data: bytes, path: str) -> tuple[str, _TextForm]:
    """Decode a config file to ``\\n`` text, remembering its BOM and line endings."""
    bom = data.startswith(_BOM)
    try:
        text = data[len(_BOM) if bom else 0 :].decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"not UTF-8 text ({error.reason} at byte {error.start})", path=path
        ) from None
    first_newline = text.find("\n")
    crlf = first_newline > 0 and text[first_newline - 1] == "\r"
    return text.replace("\r\n", "\n"), _TextForm(bom=bom, crlf=crlf)


def _read(target: Path, path: str) -> _Snapshot | None:
    """The target's bytes and metadata, or ``None`` when there is no file (``files.read_file``:
    a regular file of at most ``files.size_limit`` bytes)."""
    read = read_file(target, path)
    if read is None:
        return None
    return _Snapshot(data=read.data, mode=read.mode, uid=read.uid, gid=read.gid)


def _with_trust(config: PluginConfig, snapshot: _Snapshot | None, path: str) -> PluginConfig:
    """``config`` with ``insecure`` set when the file it was read from is not trusted."""
    if snapshot is None:
        return config
    problem = file_trust_problem(path, snapshot.mode, snapshot.uid)
    return config if problem is None else config.model_copy(update={"insecure": problem})


def _read_only(target: Path, snapshot: _Snapshot) -> bool:
    """Whether the user may not write ``target``, as its mode says.

    ``os.access`` answers for an ordinary user (owner, group or other bits, ACLs, a read-only
    mount). Root passes every access check, so for root a file without any write bit counts as
    read-only: that is what a ``chmod a-w`` means to every editor.
    """
    if snapshot.mode & 0o222 == 0:
        return True
    return not os.access(target, os.W_OK)


class DocumentStore(Generic[EditT, ValueT]):
    """One file seen through a ``DocumentView``: ``apply`` an edit to it atomically and without
    clobbering, or ``read`` what it holds.

    Nothing is cached: every ``read`` and every ``apply`` reads the file afresh; the store
    remembers only whether the file held text when last read (a blank file after that is
    half-saved, see ``_check_not_half_saved``).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        view: DocumentView[EditT, ValueT],
        *,
        attempts: int = 5,
        lock_timeout: float = 10.0,
    ) -> None:
        """Open the store of the file at ``path`` (which need not exist yet), read and written
        through ``view``."""
        self.path = Path(path)
        """The file as the user named it (possibly a symlink)."""
        self.view: DocumentView[EditT, ValueT] = view
        """How the file's text is read and edited."""
        self._attempts = attempts
        self._lock_timeout = lock_timeout
        # Whether the last read found text: a file that held text and is blank now is one a
        # non-atomic writer (truncate, then write) is in the middle of saving.
        self._held_text = False
        # Called after the temp file is written and before the pre-rename check: the seam tests
        # use to change the file mid-apply.
        self._before_replace: Callable[[Path], None] = lambda _target: None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.path)!r})"

    @property
    def _display(self) -> str:
        """The path as messages show it."""
        return str(self.path)

    def target(self) -> Path:
        """The file actually read and written: ``path`` with every symlink resolved."""
        return Path(os.path.realpath(self.path))

    def version(self) -> FileVersion | None:
        """A one-``stat`` fingerprint of the file, or ``None`` when it does not exist."""
        try:
            info = os.stat(self.path)
        except FileNotFoundError:
            return None
        except OSError as error:
            raise ConfigError(
                f"cannot stat the file: {error.strerror}", path=self._display
            ) from None
        return FileVersion.of(info)

    def read(self) -> ValueT:
        """What the file holds now (a missing file: what an empty text holds); ``ConfigError``
        for a file that does not parse or is half-saved."""
        snapshot = _read(self.target(), self._display)
        text = "" if snapshot is None else _decode(snapshot.data, self._display)[0]
        self._check_not_half_saved(snapshot, text)
        return self.view.parse(text, self._display)[1]

    def _check_not_half_saved(self, snapshot: _Snapshot | None, text: str) -> None:
        """Refuse a file that is blank now but held text when last read: an editor that
        truncates the file and writes it a moment later leaves it so in between, and read as
        an empty config it would stop every server it holds (and an edit written into it
        would be lost under the writer's bytes). A missing file is not this: atomic writers
        never leave one, and a deleted file means no servers."""
        blank = not text.strip()
        if self._held_text and snapshot is not None and blank:
            raise ConfigError(
                "the file is empty now but was not when last read: taken as half-saved until "
                "it holds text again (remove the file to drop its servers)",
                path=self._display,
            )
        self._held_text = not blank

    def apply(self, edit: EditT | Sequence[EditT]) -> ValueT:
        """Write ``edit`` (or several, as one write) into the file; return what it holds after.

        The edit is applied to the file's content as of now, not as of the last read. A file
        that does not parse is left untouched (``ConfigError``); so is one whose edit is a no-op,
        and a read-only one (``ReadOnlyFileError``). A missing file (and its directory) is
        created. Several edits are applied in order and written together: all of them land, or
        none.
        """
        edits: tuple[EditT, ...] = tuple(edit) if isinstance(edit, Sequence) else (edit,)
        target = self.target()
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ConfigError(
                f"cannot create the directory: {error.strerror}", path=self._display
            ) from None
        with (
            locked(target, self._lock_timeout, self._display),
            # ~/.claude.json: Claude Code's own lock too, so that its save never lands between
            # our read and our replace (claude/statelock.py).
            claude_state_lock(self.path, self._lock_timeout, self._display),
        ):
            remove_orphaned_temps(target)
            for _ in range(self._attempts):
                result = self._attempt(edits, target)
                if result is not None:
                    return result
        raise ConfigError(
            f"the file kept changing while the edit was written ({self._attempts} attempts); "
            "the edit was not applied",
            path=self._display,
        )

    def _result(self, value: ValueT, snapshot: _Snapshot | None) -> ValueT:
        """What ``apply`` returns for ``value``, read from a file whose metadata ``snapshot``
        holds (the value itself, unless a subclass adds to it)."""
        return value

    def _attempt(self, edits: tuple[EditT, ...], target: Path) -> ValueT | None:
        """One read-edit-write round; ``None`` when the file changed under it."""
        before = _read(target, self._display)
        if before is None:
            text, form, like = "", _TextForm(), None
        else:
            text, form = _decode(before.data, self._display)
            like = text
        self._check_not_half_saved(before, text)
        # The whole document, to write it back (~/.claude.json too); within the block the
        # dump reuses the parse (formats.whole_parses), which is dropped after it.
        with parses_whole():
            document, value = self.view.parse(text, self._display)
            edited = document
            for edit in edits:
                edited = self.view.apply(edited, edit, self._display)
            if edited == document:
                # Nothing to write; the file's mtime stays as it is.
                return self._result(value, before)
            new_text = self.view.dump(edited, like)
        # Validate what is about to be written: an edit must never produce a file we cannot read
        # (read as a load reads it: ~/.claude.json in parts, not parsed whole a second time).
        new_value = self.view.parse(new_text, self._display)[1]
        if before is not None and _read_only(target, before):
            raise ReadOnlyFileError(self._display, before.mode)
        temp = write_temp(target, form.encode(new_text), before)
        try:
            host_lock = state_lock_path(self.path)
            if host_lock is not None:
                refresh(host_lock)  # a long parse must not make the held lock look stale
            self._before_replace(target)
            # Bytes, mode and owner: a chmod or chown made meanwhile is an edit too, and the
            # temp file carries the metadata read before.
            if _read(target, self._display) != before:
                return None
            os.replace(temp, target)
        finally:
            temp.unlink(missing_ok=True)
        fsync_directory(target.parent)
        written()  # running bridges reload at once, not after the file watch's quiet
        self._held_text = bool(new_text.strip())
        return self._result(new_value, before)  # the file kept its mode and owner


class ConfigStore(DocumentStore[ConfigEdit, PluginConfig]):
    """One server config file: ``load`` it, or ``apply`` an edit to it atomically and without
    clobbering (``DocumentStore``, the format behind a ``Dialect``)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        dialect: Dialect | None = None,
        attempts: int = 5,
        lock_timeout: float = 10.0,
    ) -> None:
        """Open the store of the file at ``path`` (which need not exist yet).

        Without ``dialect`` the format is detected once, now, from the file's name and content
        (``detect.detect_dialect``).
        """
        chosen: Dialect = dialect if dialect is not None else detect_file(Path(path))
        super().__init__(path, chosen, attempts=attempts, lock_timeout=lock_timeout)
        self.dialect: Dialect = chosen
        """The file format."""

    def load(self) -> PluginConfig:
        """Read and validate the file. A missing or blank file is an empty config, except a
        file that held text when this store last read it and is blank now: that one is
        half-saved (``ConfigError``), as a file that stops parsing is.

        A file others may change comes with ``insecure`` set (``trust.file_trust_problem``).
        """
        target = self.target()

        def read() -> tuple[_Snapshot | None, str]:
            snapshot = _read(target, self._display)
            text = "" if snapshot is None else _decode(snapshot.data, self._display)[0]
            if snapshot is not None:
                # The bytes are not needed past here: a ~/.claude.json of hundreds of MiB is
                # not held twice (bytes and text) while it is parsed.
                snapshot = replace(snapshot, data=b"")
            return snapshot, text

        # ~/.claude.json is two sources: within a workspace's load it is read and decoded once.
        snapshot, text = shared_text(self._fingerprint(target), read)
        self._check_not_half_saved(snapshot, text)
        return _with_trust(self.dialect.parse(text, self._display)[1], snapshot, self._display)

    def read(self) -> PluginConfig:
        """``load``."""
        return self.load()

    def _fingerprint(self, target: Path) -> tuple[object, ...]:
        """What tells a read of ``target`` from another (``formats.shared_text``): the path
        this store names it by (messages say it) and one ``stat`` of it."""
        try:
            info = os.stat(target)
        except OSError:
            return (self._display, str(target), None)
        return (
            self._display,
            str(target),
            info.st_ino,
            info.st_dev,
            info.st_size,
            info.st_mtime_ns,
        )

    def apply(self, edit: ConfigEdit | Sequence[ConfigEdit]) -> PluginConfig:
        """Write ``edit`` (or several, as one write) into the file; return the config afterwards.

        The edit is applied to the file's content as of now, not as of the last ``load``. A file
        that does not parse is left untouched (``ConfigError``); so is one whose edit is a no-op,
        and a read-only one (``ReadOnlyFileError``).
        A missing file (and its directory) is created. Several edits are applied in order and
        written together: all of them land, or none.
        """
        return super().apply(edit)

    def _result(self, value: PluginConfig, snapshot: _Snapshot | None) -> PluginConfig:
        """The config with ``insecure`` set when the file is not trusted."""
        return _with_trust(value, snapshot, self._display)


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
