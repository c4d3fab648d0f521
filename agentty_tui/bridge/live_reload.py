"""Live reload: an outside edit of a config file is a reload, without ``r``.

The source files are watched (``watch.SourceWatcher``: debounced, parent folders, files that
appear later); a change that leaves the files' fingerprint as the bridge last read or wrote them
is our own write (or a touch that changed nothing we read) and is ignored, so a toggle does not
cause a second reload. Any other is the bridge's ordinary ``reload``: serialized, coalesced,
re-spawning only the servers whose entries changed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
import anyio.abc
import anyio.to_thread

from agentty_tui.bridge.reload_report import ReloadReport
from agentty_tui.bridge.watch import SourceWatcher
from agentty_tui.config.config_source import ConfigSource

__all__ = ["DEBOUNCE", "LiveReload"]

DEBOUNCE = 0.15
"""Seconds of quiet after an outside edit before the reload (an editor's save is a burst)."""


class LiveReload:
    """Watches a config's files and reloads on an outside edit."""

    def __init__(
        self,
        store: ConfigSource,
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
        """Watch until cancelled; ``task_status`` is told once the files are watched."""
        watcher = SourceWatcher(self._store.watched_paths(), self._changed, debounce=self._debounce)
        await watcher.run(task_status=task_status)

    async def next_check(self) -> None:
        """Wait until the next change the watcher reports has been checked (and reloaded, if
        it was an outside edit)."""
        await self._checked.wait()

    async def _changed(self, paths: frozenset[Path]) -> None:
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
