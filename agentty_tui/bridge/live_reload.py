"""Live reload: an outside edit of a config file is a reload, without ``r``.

Two ways in, one check. The source files are watched (``SourceWatcher``, below: debounced,
parent folders, files that appear later), which sees every writer, an editor's burst of writes
as one change after its quiet. And a write by agentty itself (another bridge's toggle, an
``agentty-tui disable`` in another terminal) is announced to every listening bridge of the user
as it lands (``config.announce``): one whole atomic rename, so it is checked at once, with no
quiet to wait for; the watcher's own event comes later and finds nothing new.

Either way the check is the same: a change that leaves the files' fingerprint as the bridge
last read or wrote them is our own write (or a touch that changed nothing we read) and is
ignored, so a toggle does not cause a second reload. Any other is the bridge's ordinary
``reload``: serialized, coalesced, re-spawning only the servers whose entries changed.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import anyio
import anyio.abc
import anyio.to_thread
from anyio.lowlevel import EventLoopToken, current_token
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from watchfiles._rust_notify import RustNotify  # the documented direct backend

from agentty_tui.bridge.reload_report import ReloadReport
from agentty_tui.config.announce import listener_path
from agentty_tui.config.workspace import Workspace
from agentty_tui.errors import AgenttyError

__all__ = ["DEBOUNCE", "VANISHED_WAIT", "LiveReload", "SourceWatcher"]


DEBOUNCE = 0.07
"""Seconds of quiet after an outside edit before the reload (an editor's save is a burst).

With the watch thread's own step (``_STEP_MS``), two writes less than ``DEBOUNCE`` minus a step
(50 ms) apart are always one edit, and a save reaches the reload in about 0.1 s (0.25 s with
0.15 s and a 50 ms step: ``bench/bench_gateway.py``). Editors write the steps of a save
microseconds apart; a file that went missing in between is waited for (``VANISHED_WAIT``)."""

VANISHED_WAIT = 0.25
"""Seconds a changed file that is missing is given to come back before the check: an editor
that saves in steps (vim: the file renamed to its backup, then written again) leaves no file
for a moment, and a check then would stop the file's servers and start them again."""


class LiveReload:
    """Watches a config's files and reloads on an outside edit."""

    def __init__(
        self,
        store: Workspace,
        seen: Callable[[], object],
        reload: Callable[[], Awaitable[ReloadReport]],
        *,
        debounce: float = DEBOUNCE,
    ) -> None:
        """``seen``: the files' fingerprint as of the bridge's last read or write;
        ``reload``: the bridge's reload."""
        self._store = store
        self._seen = seen
        self._reload = reload
        self._debounce = debounce
        self.reloads = 0
        """How many outside edits caused a reload (our own writes do not count)."""
        self.ignored = 0
        """How many changes were seen and left alone: our own writes, and touches that left
        every file as the bridge last read it."""
        self.last_report: ReloadReport | None = None
        """What the last of them changed."""
        self._checked = anyio.Event()
        self._listeners: list[Callable[[ReloadReport], None]] = []
        self._checking = anyio.Lock()  # one check at a time, whichever way the news came
        self._announced = anyio.Event()  # set by an announced write, replaced by its check

    def add_listener(self, listener: Callable[[ReloadReport], None]) -> Callable[[], None]:
        """Call ``listener`` with the report of every reload an outside edit caused (the
        picker says what changed); returns a remover."""
        self._listeners.append(listener)

        def remove() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return remove

    async def run(
        self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """Watch until cancelled; ``task_status`` is told once the files are watched and
        announced writes are heard."""
        watcher = SourceWatcher(self._store.watched_paths(), self._changed, debounce=self._debounce)
        async with anyio.create_task_group() as group:
            await group.start(self._hear_announcements)
            await watcher.run(task_status=task_status)

    async def _hear_announcements(
        self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """Check the files at once on every announced write, until cancelled. Without a
        socket (no private runtime folder, a path too long) the watcher alone is left, as
        before: a tenth of a second slower, nothing lost."""
        try:
            path = listener_path()
            listener = await anyio.create_unix_datagram_socket(local_path=path, local_mode=0o600)
        except (OSError, AgenttyError) as error:
            log.warning("announced config writes not heard (the file watch still is): %s", error)
            task_status.started()
            return
        try:
            async with listener, anyio.create_task_group() as group:
                group.start_soon(self._check_announced)
                task_status.started()
                async for _ in listener:  # what it says does not matter: the files do
                    self._announced.set()
        finally:
            path.unlink(missing_ok=True)

    async def _check_announced(self) -> None:
        """One check for every run of announcements (those that arrive during a check make
        one more)."""
        while True:
            await self._announced.wait()
            self._announced = anyio.Event()
            await self._check()

    async def next_check(self) -> None:
        """Wait until the next change the watcher reports has been checked (and reloaded, if
        it was an outside edit)."""
        await self._checked.wait()

    async def _changed(self, paths: frozenset[Path]) -> None:
        missing = await anyio.to_thread.run_sync(_any_missing, paths)
        if missing:  # mid-save, or deleted for good
            await anyio.sleep(VANISHED_WAIT)
        await self._check()

    async def _check(self) -> None:
        """Reload if the files' fingerprint is not the one the bridge last read or wrote."""
        async with self._checking:
            try:
                version = await anyio.to_thread.run_sync(self._store.version)
                if version == self._seen():
                    self.ignored += 1
                    return
                self.reloads += 1
                report = self.last_report = await self._reload()
                for listener in list(self._listeners):
                    listener(report)
            finally:
                self._checked.set()
                self._checked = anyio.Event()


def _any_missing(paths: Iterable[Path]) -> bool:
    """Whether one of ``paths`` is not there (a dangling symlink is there)."""
    return not all(os.path.lexists(path) for path in paths)


# --- Live reload on outside edits: watch a set of config files and call back, debounced.
#
# The files may not exist yet (a ``.mcp.json`` added later, a ``.cursor/`` folder made later), and
# editors, like our own store, replace a file by renaming a new one over it, which a watch on the
# file itself would lose. So *parent folders* are watched (a missing one through its nearest
# existing ancestor, re-armed when it appears), and only events on the given paths count; a
# symlinked file is watched at its target too. Ignoring our own writes is the caller's job (it
# compares fingerprints); the callback gets the changed paths for that. Failures go to the app log
# (``logs.quiet_logging``), never to the terminal.

log = logging.getLogger(__name__)

OnChange = Callable[[frozenset[Path]], Awaitable[None]]
"""The callback: awaited with the given paths that changed (as they were given)."""

_Send = MemoryObjectSendStream[set[Path]]

_STEP_MS = 20
"""How often the watch thread checks its stop event (and groups raw events): a batch comes one
or two steps after its last event. 20 ms costs the thread 0.9 ms of CPU a second idle (0.4 ms
at 50 ms), and takes about 45 ms off every edit's way to the reload."""


@dataclass(frozen=True)
class _Plan:
    """What to watch for a set of paths, from the file system as it is now."""

    keys: Mapping[Path, frozenset[Path]]
    """A resolved path whose events count -> the given paths it stands for."""
    dirs: Mapping[Path, frozenset[Path]]
    """A given path -> the directories watched for it (parents, or nearest existing ancestors)."""


def _nearest_dir(path: Path) -> Path:
    """``path`` if it is a directory, else its nearest existing ancestor."""
    while not path.is_dir() and path.parent != path:
        path = path.parent
    return path


def _plan(paths: Iterable[Path]) -> _Plan:
    """Watch each path under its name (parent resolved) and, if it is a symlink, its target."""
    keys: dict[Path, set[Path]] = {}
    dirs: dict[Path, frozenset[Path]] = {}
    for given in paths:
        absolute = given.absolute()
        try:
            names = {absolute.parent.resolve() / absolute.name, absolute.resolve()}
            dirs[given] = frozenset(_nearest_dir(name.parent) for name in names)
        except (OSError, RuntimeError):  # a symlink loop, an unreadable folder: as given
            names, dirs[given] = {absolute}, frozenset({_nearest_dir(absolute.parent)})
        for name in names:
            keys.setdefault(name, set()).add(given)
    return _Plan({k: frozenset(v) for k, v in keys.items()}, dirs)


def _pump(notify: RustNotify, stop: threading.Event, send: _Send, token: EventLoopToken) -> None:
    """The watch thread: hand each batch of raw event paths to the event loop until stopped."""
    try:
        while not stop.is_set():
            raw = notify.watch(_STEP_MS, _STEP_MS, 0, stop)  # 0: no timeout
            if isinstance(raw, set):
                batch = {Path(path) for _, path in raw}
                anyio.from_thread.run_sync(send.send_nowait, batch, token=token)
    except Exception:  # the loop closed under us, or the backend failed
        if not stop.is_set():  # (once stopped, the stream's close is expected)
            log.exception("file watcher stopped")
    finally:
        notify.close()  # only here: close() while another thread is in watch() would fail


class SourceWatcher:
    """Watches a set of config files (that may not exist yet) and calls back, debounced.

    A burst of events gives one callback after ``debounce`` seconds of quiet, or after
    ``max_delay`` seconds when the events never stop. Callbacks are awaited one at a time; one
    that fails is logged and the watching goes on.
    """

    def __init__(
        self,
        paths: Iterable[Path],
        on_change: OnChange,
        *,
        debounce: float = 0.15,
        max_delay: float = 1.0,
    ) -> None:
        self._paths = frozenset(paths)
        self._on_change = on_change
        self._debounce, self._max_delay = debounce, max_delay
        self._plan: _Plan | None = None  # None: not running
        self._threads: list[tuple[threading.Thread, threading.Event]] = []  # the last is armed
        self._send: _Send | None = None

    def set_paths(self, paths: Iterable[Path]) -> None:
        """Watch ``paths`` instead, from when this returns (call it on the event loop)."""
        self._paths = frozenset(paths)
        if self._plan is not None and self._send is not None:
            self._send.send_nowait(self._rearm_or_log())  # the loop reports what the re-arm found

    def _rearm(self) -> set[Path]:
        """Arm for the file system as it is now, if that changed; return what to report.

        A path whose watched folder changed may have changed unseen, before the new watch was
        armed; it is reported (as one of its event paths) if it is there now or its folder went.
        """
        old = self._plan
        for attempt in range(10):
            plan = _plan(self._paths)
            if plan == old:
                return set()
            try:
                notify = RustNotify(
                    sorted({str(d) for dirs in plan.dirs.values() for d in dirs}),
                    debug=False,  # it would print to the terminal
                    force_polling=bool(os.environ.get("WATCHFILES_FORCE_POLLING")),  # WSL, NFS
                    poll_delay_ms=300,
                    recursive=False,
                    ignore_permission_denied=True,
                )
                break
            except FileNotFoundError:  # a folder went between the plan and the watch
                if attempt == 9:
                    raise
        assert self._send is not None
        for _, stop in self._threads:
            stop.set()  # after the new watch is armed, so no event falls between the two
        self._threads = [(thread, stop) for thread, stop in self._threads if thread.is_alive()]
        stop = threading.Event()
        args = (notify, stop, self._send, current_token())
        thread = threading.Thread(target=_pump, args=args, name="source-watcher", daemon=True)
        thread.start()
        self._threads.append((thread, stop))
        self._plan = plan
        if old is None:
            return set()
        moved = {p for p, ds in plan.dirs.items() if old.dirs.get(p, ds) != ds}
        # Written in a folder that just appeared, or gone with a folder (``mv``, ``rm -r``).
        hit = {p for p in moved if os.path.lexists(p) or not all(d.is_dir() for d in old.dirs[p])}
        return {key for key, given in plan.keys.items() if given & hit}

    def _rearm_or_log(self) -> set[Path]:
        """``_rearm``, or if that fails (no inotify watches left...) log it, keep the old watch."""
        try:
            return self._rearm()
        except (OSError, RuntimeError):
            log.exception("could not re-arm the file watcher")
            return set()

    def _match(self, batch: set[Path]) -> set[Path]:
        """The given paths a batch of event paths touched, re-arming if the folders changed."""
        batch = batch | self._rearm_or_log()
        assert self._plan is not None
        keys = self._plan.keys
        return {given for path in batch if path in keys for given in keys[path]}

    async def run(
        self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """Watch until cancelled; ``task_status.started()`` once the watch is armed.

        Raises ``OSError`` if the first watch cannot be armed (no inotify watches left).
        """
        send, receive = anyio.create_memory_object_stream[set[Path]](float("inf"))
        self._send = send
        try:
            with receive, send:
                self._rearm()
                task_status.started()
                while True:
                    if changed := self._match(await receive.receive()):
                        await self._settle(receive, changed)
        finally:
            await self._disarm()

    async def _settle(
        self, receive: MemoryObjectReceiveStream[set[Path]], changed: set[Path]
    ) -> None:
        """Gather events until ``debounce`` s of quiet (at most ``max_delay``), then call back."""
        deadline = anyio.current_time() + self._max_delay
        while (left := deadline - anyio.current_time()) > 0:
            with anyio.move_on_after(min(self._debounce, left)) as quiet:
                changed |= self._match(await receive.receive())
            if quiet.cancelled_caught:
                break
        try:
            await self._on_change(frozenset(changed))
        except Exception:
            log.exception("reload after an outside edit of %s failed", sorted(map(str, changed)))

    async def _disarm(self) -> None:
        """Stop every watch thread and wait (shielded, bounded) until each has ended."""
        threads, self._threads, self._plan, self._send = self._threads, [], None, None
        for _, stop in threads:
            stop.set()
        with anyio.CancelScope(shield=True), anyio.move_on_after(2):
            for thread, _ in threads:
                # Polled, not signalled: the thread must never wait on a loop that is closing.
                while thread.is_alive():  # noqa: ASYNC110
                    await anyio.sleep(_STEP_MS / 1000 / 5)
