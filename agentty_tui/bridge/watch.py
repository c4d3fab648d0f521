"""Live reload on outside edits: watch a set of config files and call back, debounced.

The files may not exist yet (a ``.mcp.json`` added to the project later, a ``.cursor/`` folder
created later), and editors — like our own store — replace a file by renaming a new one over it,
which a watch on the file itself would lose. So the *parent directories* are watched (or, for a
missing parent, its nearest existing ancestor, re-armed when the parent appears), and only events
on the given paths count. A symlinked file is watched at its target's folder too.

Ignoring our own writes is the caller's job (it compares fingerprints after writing); the
callback receives the changed paths to make that easy. Nothing is printed: failures go to the
app log (``app_log``).
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
import anyio.lowlevel
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from watchfiles._rust_notify import RustNotify  # the documented direct backend

__all__ = ["SourceWatcher"]

log = logging.getLogger(__name__)

OnChange = Callable[[frozenset[Path]], Awaitable[None]]
"""The callback: awaited with the given paths that changed (as they were given)."""

_STEP_MS = 50
"""How often the watch thread checks its stop event (and groups raw events)."""


@dataclass(frozen=True)
class _Plan:
    """What to watch for a set of paths, from the file system as it is now."""

    keys: Mapping[Path, frozenset[Path]]
    """A resolved path whose events count -> the given paths it stands for."""
    dirs: Mapping[Path, frozenset[Path]]
    """A given path -> the directories watched for it (parents, or nearest existing ancestors)."""

    @property
    def roots(self) -> frozenset[Path]:
        """Every directory to watch."""
        return frozenset(d for ds in self.dirs.values() for d in ds)


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
        except (OSError, RuntimeError):  # a symlink loop: watch the name as given
            names = {absolute}
        for key in names:
            keys.setdefault(key, set()).add(given)
        dirs[given] = frozenset(_nearest_dir(key.parent) for key in names)
    return _Plan({k: frozenset(v) for k, v in keys.items()}, dirs)


def _pump(
    notify: RustNotify,
    stop: threading.Event,
    send: MemoryObjectSendStream[set[Path]],
    token: anyio.lowlevel.EventLoopToken,
) -> None:
    """The watch thread: hand each batch of raw event paths to the event loop until stopped."""
    try:
        while not stop.is_set():
            raw = notify.watch(_STEP_MS, _STEP_MS, 1000, stop)
            if isinstance(raw, set):
                batch = {Path(path) for _, path in raw}
                anyio.from_thread.run_sync(send.send_nowait, batch, token=token)
    except Exception:  # the loop closed under us, or the backend failed: stop quietly
        if not stop.is_set():
            log.exception("file watcher stopped")
    finally:
        notify.close()  # only here: close() while another thread is in watch() would fail


@dataclass
class _Arm:
    """One armed watch: its plan, its thread and the event that stops that thread."""

    plan: _Plan
    thread: threading.Thread
    stop: threading.Event


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
        self._debounce = debounce
        self._max_delay = max_delay
        self._armed: _Arm | None = None
        self._old: list[_Arm] = []
        self._send: MemoryObjectSendStream[set[Path]] | None = None
        self._token: anyio.lowlevel.EventLoopToken | None = None

    def set_paths(self, paths: Iterable[Path]) -> None:
        """Watch ``paths`` instead, from when this returns (call it on the event loop)."""
        self._paths = frozenset(paths)
        if self._armed is not None:
            self._rearm()

    def _rearm(self) -> frozenset[Path]:
        """Arm for the file system as it is now if that changed; return paths to report.

        A path whose watched directory changed is reported: a folder appeared (or went) and the
        file may have been written in it before the new watch was armed.
        """
        assert self._send is not None and self._token is not None
        for attempt in range(10):
            plan, old = _plan(self._paths), self._armed
            if old is not None and plan == old.plan:
                return frozenset()
            try:
                notify = RustNotify(
                    sorted(str(root) for root in plan.roots),
                    debug=False,  # it would print to the terminal
                    force_polling=os.environ.get("WATCHFILES_FORCE_POLLING", "")
                    not in ("", "false"),
                    poll_delay_ms=300,
                    recursive=False,
                    ignore_permission_denied=True,
                )
                break
            except FileNotFoundError:  # a folder went between the plan and the watch
                if attempt == 9:
                    raise
        stop = threading.Event()
        args = (notify, stop, self._send, self._token)
        thread = threading.Thread(target=_pump, args=args, name="source-watcher", daemon=True)
        thread.start()
        self._armed = _Arm(plan, thread, stop)
        if old is None:
            return frozenset()
        old.stop.set()  # after the new watch is armed, so no event falls between the two
        self._old = [arm for arm in self._old if arm.thread.is_alive()] + [old]
        return frozenset(p for p, ds in plan.dirs.items() if old.plan.dirs.get(p, ds) != ds)

    def _match(self, batch: set[Path]) -> set[Path]:
        """The given paths that a batch of raw event paths touched (and any re-arm reports)."""
        assert self._armed is not None
        keys = self._armed.plan.keys
        hits = {given for path in batch if path in keys for given in keys[path]}
        return hits | self._rearm()

    async def run(
        self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """Watch until cancelled; ``task_status.started()`` once the watch is armed."""
        send, receive = anyio.create_memory_object_stream[set[Path]](float("inf"))
        self._send, self._token = send, anyio.lowlevel.current_token()
        try:
            with receive, send:
                self._rearm()
                task_status.started()
                while True:
                    changed = self._match(await receive.receive())
                    if changed:
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
        arms = [*self._old, *([self._armed] if self._armed else [])]
        self._armed, self._old, self._send, self._token = None, [], None, None
        for arm in arms:
            arm.stop.set()
        with anyio.CancelScope(shield=True), anyio.move_on_after(2):
            for arm in arms:
                # Polled, not signalled: the thread must never wait on a loop that is closing.
                while arm.thread.is_alive():  # noqa: ASYNC110
                    await anyio.sleep(_STEP_MS / 1000 / 5)
