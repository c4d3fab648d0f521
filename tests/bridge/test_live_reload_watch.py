"""The source watcher on real files: debounce, renames, late folders, symlinks, cancellation.

A negative (nothing for an unrelated file, one callback for a burst) is proved without a fixed
sleep: after it, a watched file is written, and the next callback must name only that file.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest

from agentty_tui.bridge.live_reload import SourceWatcher

WAIT = 5.0
"""Seconds a test waits for a callback before it fails."""


class Recorder:
    """The watcher's callback: keeps every call's set, and lets a test await the next one."""

    def __init__(self) -> None:
        self.calls: list[frozenset[Path]] = []
        self._send, self._receive = anyio.create_memory_object_stream[frozenset[Path]](100)

    async def __call__(self, changed: frozenset[Path]) -> None:
        self.calls.append(changed)
        self._send.send_nowait(changed)

    async def next(self) -> frozenset[Path]:
        """The next callback's set (fails after ``WAIT`` seconds)."""
        with anyio.fail_after(WAIT):
            return await self._receive.receive()

    async def until(self, path: Path) -> list[frozenset[Path]]:
        """Every callback's set up to and including the first that names ``path``."""
        seen: list[frozenset[Path]] = []
        while not seen or path not in seen[-1]:
            seen.append(await self.next())
        return seen

    def close(self) -> None:
        """Close the streams (a test's loop ends with them)."""
        self._send.close()
        self._receive.close()


@asynccontextmanager
async def watching(
    paths: Iterable[Path], on_change: Recorder | None = None, **options: float
) -> AsyncIterator[tuple[SourceWatcher, Recorder]]:
    """A running watcher of ``paths`` (armed on entry, cancelled on exit) and its recorder."""
    recorder = on_change or Recorder()
    watcher = SourceWatcher(paths, recorder, **options)
    try:
        async with anyio.create_task_group() as tg:
            await tg.start(watcher.run)
            yield watcher, recorder
            tg.cancel_scope.cancel()
    finally:
        recorder.close()


@pytest.mark.anyio
async def test_a_write_gives_one_callback_naming_the_file(tmp_path: Path) -> None:
    path, marker = tmp_path / "mcp.json", tmp_path / "marker.json"
    path.write_text("{}")
    async with watching([path, marker]) as (_, recorder):
        path.write_text('{"mcpServers": {}}')
        assert await recorder.next() == {path}
        marker.write_text("{}")
        assert await recorder.next() == {marker}  # no second callback for the one write
    assert recorder.calls == [{path}, {marker}]


@pytest.mark.anyio
async def test_a_burst_of_writes_gives_one_callback(tmp_path: Path) -> None:
    path, marker = tmp_path / "mcp.json", tmp_path / "marker.json"
    async with watching([path, marker], debounce=0.3) as (_, recorder):
        for n in range(20):
            path.write_text(f'{{"n": {n}}}')
            await anyio.sleep(0.02)  # a burst over ~0.4 s: gaps within the debounce, many batches
        marker.write_text("{}")
        seen = await recorder.until(marker)
    assert sum(path in call for call in seen) <= 2, seen
    assert all(call <= {path, marker} for call in seen), seen


@pytest.mark.anyio
async def test_an_endless_stream_of_writes_still_calls_back(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    async with watching([path], debounce=0.3, max_delay=0.6) as (_, recorder):
        called = anyio.Event()

        async def write_forever() -> None:
            n = 0
            while not called.is_set():  # every 50 ms: never 0.3 s of quiet
                path.write_text(str(n := n + 1))
                await anyio.sleep(0.05)

        async with anyio.create_task_group() as tg:
            tg.start_soon(write_forever)
            assert await recorder.next() == {path}
            called.set()


@pytest.mark.anyio
async def test_an_atomic_rename_over_the_file_is_seen(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text("{}")
    async with watching([path]) as (_, recorder):
        temporary = tmp_path / ".mcp.json.tmp"  # how editors and our store write
        temporary.write_text('{"mcpServers": {}}')
        os.replace(temporary, path)
        assert await recorder.next() == {path}
        temporary.write_text('{"mcpServers": {"a": {}}}')
        os.replace(temporary, path)  # the watch outlives the replaced file
        assert await recorder.next() == {path}


@pytest.mark.anyio
async def test_a_file_created_later_in_folders_created_later_is_seen(tmp_path: Path) -> None:
    shallow = tmp_path / "project" / ".mcp.json"
    deep = tmp_path / "project" / ".cursor" / "nested" / "mcp.json"
    async with watching([shallow, deep]) as (_, recorder):
        shallow.parent.mkdir()
        shallow.write_text("{}")
        await recorder.until(shallow)
        deep.parent.mkdir(parents=True)
        deep.write_text("{}")
        await recorder.until(deep)
        deep.write_text('{"mcpServers": {}}')  # and the new folder stays watched
        assert await recorder.next() == {deep}


@pytest.mark.anyio
async def test_a_folder_removed_and_made_again_is_watched_again(tmp_path: Path) -> None:
    path = tmp_path / ".cursor" / "mcp.json"
    path.parent.mkdir()
    path.write_text("{}")
    async with watching([path]) as (_, recorder):
        path.unlink()
        path.parent.rmdir()
        await recorder.until(path)
        path.parent.mkdir()
        path.write_text("{}")
        await recorder.until(path)
        path.write_text('{"mcpServers": {}}')
        assert await recorder.next() == {path}


@pytest.mark.anyio
async def test_a_file_gone_with_its_folder_is_reported(tmp_path: Path) -> None:
    path = tmp_path / ".cursor" / "mcp.json"
    path.parent.mkdir()
    path.write_text("{}")
    async with watching([path]) as (_, recorder):
        path.parent.rename(tmp_path / ".cursor.bak")  # no event names the file itself
        assert await recorder.next() == {path}


@pytest.mark.anyio
async def test_an_unrelated_file_in_the_same_folder_triggers_nothing(tmp_path: Path) -> None:
    path, quiet = tmp_path / "mcp.json", tmp_path / "other" / "settings.json"
    path.write_text("{}")
    async with watching([path, quiet]) as (_, recorder):
        (tmp_path / "notes.json").write_text("{}")
        (tmp_path / "mcp.json.bak").write_text("{}")
        (tmp_path / "other").mkdir()  # a watched path's folder appears, but not the file
        path.write_text('{"mcpServers": {}}')
        assert await recorder.next() == {path}
    assert recorder.calls == [{path}]


@pytest.mark.anyio
async def test_a_symlinked_file_is_followed_to_its_target(tmp_path: Path) -> None:
    target = tmp_path / "dotfiles" / "claude.json"
    target.parent.mkdir()
    target.write_text("{}")
    link = tmp_path / "home" / ".claude.json"
    link.parent.mkdir()
    link.symlink_to(target)
    async with watching([link]) as (_, recorder):
        target.write_text('{"mcpServers": {}}')  # an edit of the target, not through the link
        assert await recorder.next() == {link}


@pytest.mark.anyio
async def test_set_paths_adds_a_file(tmp_path: Path) -> None:
    first, added = tmp_path / "a.json", tmp_path / "elsewhere" / "b.json"
    async with watching([first]) as (watcher, recorder):
        watcher.set_paths([first, added])
        added.parent.mkdir()
        added.write_text("{}")
        assert added in await recorder.next()
        watcher.set_paths([added])
        first.write_text("{}")
        added.write_text('{"x": 1}')
        assert await recorder.next() == {added}  # and the one dropped no longer counts


@pytest.mark.anyio
async def test_a_failing_callback_is_logged_and_watching_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "mcp.json"
    recorder = Recorder()

    async def fail_once(changed: frozenset[Path]) -> None:
        await recorder(changed)
        if len(recorder.calls) == 1:
            raise ValueError("bad config")

    caplog.set_level(logging.ERROR, logger="agentty_tui.bridge.live_reload")
    watcher = SourceWatcher([path], fail_once)
    async with anyio.create_task_group() as tg:
        await tg.start(watcher.run)
        path.write_text("{")
        assert await recorder.next() == {path}
        path.write_text("{}")
        assert await recorder.next() == {path}
        tg.cancel_scope.cancel()
    recorder.close()
    [record] = caplog.records
    assert "mcp.json" in record.getMessage() and record.exc_info is not None


@pytest.mark.anyio
async def test_callbacks_are_awaited_one_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    recorder, running, overlap = Recorder(), [0], anyio.Event()

    async def slow(changed: frozenset[Path]) -> None:
        running[0] += 1
        if running[0] > 1:
            overlap.set()
        if not recorder.calls:
            path.write_text("{}")  # a change while this callback still runs
            # A bounded wait for an overlap that must not come (nothing can announce its absence).
            with anyio.move_on_after(0.6):
                await overlap.wait()
        running[0] -= 1
        await recorder(changed)

    watcher = SourceWatcher([path], slow)
    async with anyio.create_task_group() as tg:
        await tg.start(watcher.run)
        path.write_text("{")
        assert await recorder.next() == {path}
        assert await recorder.next() == {path}  # the change made during the first callback
        tg.cancel_scope.cancel()
    recorder.close()
    assert not overlap.is_set()


@pytest.mark.anyio
async def test_cancelling_leaves_no_thread(tmp_path: Path) -> None:
    before = threading.active_count()
    path = tmp_path / "later" / "mcp.json"
    async with watching([path]) as (watcher, recorder):
        assert threading.active_count() > before  # the watch thread runs
        path.parent.mkdir()  # a re-arm: a second thread, and the first one stopped
        path.write_text("{}")
        await recorder.until(path)
        watcher.set_paths([path, tmp_path / "other.json"])
    assert threading.active_count() == before


@pytest.mark.anyio
async def test_nothing_is_printed_to_the_terminal(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "later" / "mcp.json"
    async with watching([path]) as (_, recorder):
        path.parent.mkdir()
        path.write_text("{}")
        await recorder.until(path)
    assert capfd.readouterr() == ("", "")
