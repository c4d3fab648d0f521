"""Publication of model snapshots to any number of readers.

Readers always get the latest snapshot: a slow reader skips the ones it missed instead of
queueing them (a snapshot is complete, so nothing is lost by skipping). Publishing never
blocks and never waits for a reader.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import anyio

from agentty_tui.model import PluginModel

__all__ = ["FeedReader", "SnapshotFeed"]

Listener = Callable[[PluginModel], None]
"""A synchronous callback run on every publish, in the publisher's task."""


class SnapshotFeed:
    """Holds the current ``PluginModel`` and wakes whoever waits for the next one."""

    def __init__(self, first: PluginModel) -> None:
        self._latest = first
        self._changed = anyio.Event()
        self._listeners: list[Listener] = []
        self._closed = False

    @property
    def latest(self) -> PluginModel:
        """The snapshot published last."""
        return self._latest

    def publish(self, snapshot: PluginModel) -> None:
        """Make ``snapshot`` current and wake every reader."""
        self._latest = snapshot
        changed, self._changed = self._changed, anyio.Event()
        changed.set()
        for listener in tuple(self._listeners):
            listener(snapshot)

    def add_listener(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` on every publish; returns a function that removes it."""
        self._listeners.append(listener)

        def remove() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return remove

    def close(self) -> None:
        """End every ``updates`` iteration."""
        self._closed = True
        self._changed.set()

    async def updates(self) -> AsyncIterator[PluginModel]:
        """The current snapshot at once, then each newer one as it is published."""
        seen: PluginModel | None = None
        while not self._closed:
            latest = self._latest
            if latest is not seen:
                seen = latest
                yield latest
                continue
            await self._changed.wait()

    async def wait_for(
        self, predicate: Callable[[PluginModel], bool], timeout: float | None = None
    ) -> PluginModel:
        """The first snapshot, current or future, for which ``predicate`` holds."""
        with anyio.fail_after(timeout):
            while not predicate(self._latest):
                if self._closed:
                    raise anyio.ClosedResourceError("the bridge is closed")
                await self._changed.wait()
        return self._latest


class FeedReader:
    """The reading side of an owner of a ``SnapshotFeed`` (the bridge): snapshots, now and later."""

    _feed: SnapshotFeed

    @property
    def snapshot(self) -> PluginModel:
        """The current model. Immutable: hold it as long as you like."""
        return self._feed.latest

    def updates(self) -> AsyncIterator[PluginModel]:
        """The current snapshot, then every newer one (a slow reader skips to the latest)."""
        return self._feed.updates()

    def add_listener(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` synchronously with every new snapshot; returns a remover."""
        return self._feed.add_listener(listener)

    async def wait_for(
        self, predicate: Callable[[PluginModel], bool], timeout: float | None = None
    ) -> PluginModel:
        """The first snapshot, now or later, that satisfies ``predicate``."""
        return await self._feed.wait_for(predicate, timeout)

    async def settled(self, timeout: float | None = None) -> PluginModel:
        """The first snapshot in which no server is still connecting."""
        return await self._feed.wait_for(lambda model: model.settled, timeout)
