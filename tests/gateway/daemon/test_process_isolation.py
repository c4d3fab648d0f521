"""A bridge of the gateway daemon that fails ends alone: its servers stop, its hosts attach
again to a bridge opened anew, and the daemon's other workspaces go on untouched.

The daemon runs in this process (so that one bridge can be made to fail: its live reload
raises once told to), its hosts are SDK clients starting ``serve --shared`` against its socket.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import anyio
import anyio.abc
import pytest

from agentty_tui.bridge import Bridge
from agentty_tui.gateway.daemon import process as daemon
from agentty_tui.gateway.rendezvous import rendezvous
from tests.gateway.daemon.test_process import IDLE, attached, text_of
from tests.gateway.hosts import Notices
from tests.gateway.picker.test_remote_source import picker_source, until_model
from tests.helpers import process_alive, stdio_entry, wait_until_gone, write_file
from tests.servers import plain_argv

pytestmark = pytest.mark.anyio

SECRET = "the-failure-text-4242"
"""What the failing bridge's exception says: never logged (a failure's text may hold what a
server or a config said)."""


def config_file(folder: Path, name: str) -> Path:
    """A ``--config`` file of its own folder with one server, ``name``."""
    servers = {name: stdio_entry(plain_argv("--name", name))}
    return write_file(folder / name / "mcp.json", json.dumps({"mcpServers": servers}))


async def test_one_bridge_failing_ends_it_alone_and_its_host_attaches_to_a_fresh_one(
    runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Two workspaces, a host on each. The second one's bridge fails (its watch raises): the
    daemon goes on; that bridge's server process is stopped; its host's ``serve`` attaches
    again, hears ``tools/list_changed`` and calls a server process started anew (its picker
    attaches again too); the first host keeps its connection (no notice, no restart) and its
    server process. The failure is logged by its kind, not its text."""
    first, second = config_file(tmp_path, "alpha"), config_file(tmp_path, "beta")
    fail, failing = anyio.Event(), list[Bridge]()
    watch = Bridge.watch

    async def failing_watch(
        bridge: Bridge, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        if Path(bridge.store.path) == second and not failing:
            failing.append(bridge)  # the second workspace's first bridge alone
            task_status.started()
            await fail.wait()
            raise RuntimeError(SECRET)
        await watch(bridge, task_status=task_status)

    monkeypatch.setattr(Bridge, "watch", failing_watch)
    caplog.set_level(logging.ERROR, logger=daemon.__name__)
    place = rendezvous({"XDG_RUNTIME_DIR": str(runtime)})
    heard = [Notices(), Notices()]
    with anyio.fail_after(120):
        async with anyio.create_task_group() as group:
            group.start_soon(daemon.run_daemon, place, IDLE)
            while not place.socket.exists():  # noqa: ASYNC110 (no event for a file made)
                await anyio.sleep(0.01)
            async with (
                attached(first, runtime, tmp_path / "one", heard[0]) as one,
                attached(second, runtime, tmp_path / "two", heard[1]) as two,
                picker_source(second, runtime, tmp_path / "two") as picker,
            ):
                alpha = int(text_of(await one.call_tool("alpha__pid", {})))
                beta = int(text_of(await two.call_tool("beta__pid", {})))
                fail.set()
                await wait_until_gone(beta)  # stopped with its bridge: no orphan
                await heard[1].until(1, timeout=60)  # its serve attached again
                again = int(text_of(await two.call_tool("beta__pid", {})))
                assert again != beta and process_alive(again)
                # The picker of that workspace attached again too: it shows a live process.
                await until_model(
                    picker, lambda m: any(s.pid not in (None, beta) for s in m.servers)
                )
                # The other workspace's host: the same connection and the same process.
                assert text_of(await one.call_tool("alpha__echo", {"text": "still"})) == "still"
                assert int(text_of(await one.call_tool("alpha__pid", {}))) == alpha
                assert heard[0].count == 0
            # The daemon leaves when idle (it was not ended by the failure), stopping the rest.
    assert not place.socket.exists()
    for pid in (alpha, again):
        await wait_until_gone(pid)
    (record,) = [r for r in caplog.records if "failed" in r.getMessage()]
    assert "(RuntimeError)" in record.getMessage() and str(second) in record.getMessage()
    assert SECRET not in caplog.text


async def test_a_bridge_no_attachment_holds_closes_after_the_idle_time_alone(
    runtime: Path, tmp_path: Path
) -> None:
    """Two workspaces, a host on each. The second host leaves: once its bridge has been held
    by nobody for the idle time, its server process stops, while the daemon goes on serving
    the first host (same process). A host that comes back to that workspace gets a bridge
    opened anew, with a new process."""
    first, second = config_file(tmp_path, "alpha"), config_file(tmp_path, "beta")
    place = rendezvous({"XDG_RUNTIME_DIR": str(runtime)})
    with anyio.fail_after(120):
        async with anyio.create_task_group() as group:
            group.start_soon(daemon.run_daemon, place, IDLE)
            while not place.socket.exists():  # noqa: ASYNC110 (no event for a file made)
                await anyio.sleep(0.01)
            async with attached(first, runtime, tmp_path / "one", Notices()) as one:
                alpha = int(text_of(await one.call_tool("alpha__pid", {})))
                async with attached(second, runtime, tmp_path / "two", Notices()) as two:
                    beta = int(text_of(await two.call_tool("beta__pid", {})))
                await wait_until_gone(beta)  # its bridge closed, the daemon still up
                assert place.socket.exists() and process_alive(alpha)
                assert int(text_of(await one.call_tool("alpha__pid", {}))) == alpha
                async with attached(second, runtime, tmp_path / "two", Notices()) as two:
                    again = int(text_of(await two.call_tool("beta__pid", {})))
                    assert again != beta and process_alive(again)
    for pid in (alpha, again):
        await wait_until_gone(pid)
