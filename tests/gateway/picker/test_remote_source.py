"""A picker's source attached to the real gateway daemon (``picker.remote_source``,
``daemon.picker_service``).

The daemon is the real one a host's ``serve --shared`` starts (``test_daemon.attached``: an SDK
client as the host, the daemon's socket in the test's own runtime folder); the picker's source
attaches to it from this process, as the picker does.
"""

from __future__ import annotations

import os
import signal
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import anyio.abc
import pytest

from agentty_tui.errors import AgenttyError, UnknownToolError
from agentty_tui.gateway.attachment import Attachment
from agentty_tui.gateway.daemon.process import daemon_status
from agentty_tui.gateway.picker.link import LineReader, LineWriter
from agentty_tui.gateway.picker.remote_source import GONE, RemoteSource
from agentty_tui.gateway.picker.view import DaemonView
from agentty_tui.gateway.rendezvous import rendezvous
from agentty_tui.model import PluginModel
from tests.conftest import WriteConfig
from tests.gateway.daemon.test_process import IDLE, attached, daemon_gone, environment, text_of
from tests.gateway.hosts import Notices
from tests.helpers import process_alive, stdio_entry, wait_until_gone
from tests.servers import plain_argv

pytestmark = pytest.mark.anyio

TIMEOUT = 30.0


@pytest.fixture
def config(write_config: WriteConfig) -> Path:
    return write_config({"alpha": stdio_entry(plain_argv("--name", "alpha"))})


@asynccontextmanager
async def picker_source(config: Path, runtime: Path, tmp_path: Path) -> AsyncIterator[RemoteSource]:
    """The picker's source on ``config``, attached to the test's daemon (which must run).
    Its environment differs from the hosts' in ``TERM``, which a server inherits: the
    daemon still serves it from the hosts' bridge, not from a bridge of its own."""
    env = {**environment(runtime), "TERM": "picker-terminal"}
    attachment = Attachment(str(tmp_path), str(config), home=str(Path.home()), env=env)
    place = rendezvous({"XDG_RUNTIME_DIR": str(runtime)})
    async with RemoteSource.attached(attachment, place) as source:
        assert source is not None
        yield source


async def until_model(source: RemoteSource, check: Callable[[PluginModel], bool]) -> PluginModel:
    with anyio.fail_after(TIMEOUT):
        async for model in source.updates():
            if check(model):
                return model
    raise AssertionError("unreachable")


async def until_view(source: RemoteSource, check: Callable[[DaemonView], bool]) -> DaemonView:
    with anyio.fail_after(TIMEOUT):
        async for view in source.daemon_views():
            if check(view):
                return view
    raise AssertionError("unreachable")


def connected(model: PluginModel) -> bool:
    return [(s.name, s.status) for s in model.servers] == [("alpha", "connected")]


async def test_no_daemon_means_no_source(runtime: Path, config: Path, tmp_path: Path) -> None:
    attachment = Attachment(str(tmp_path), str(config))
    place = rendezvous({"XDG_RUNTIME_DIR": str(runtime)})
    async with RemoteSource.attached(attachment, place) as source:
        assert source is None


async def test_the_picker_shows_the_daemons_server_and_a_toggle_reaches_the_host(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    """One server process for the host and the picker; the picker's toggle is the host's
    ``tools/list_changed``; the attached host and what it lists are seen, and follow."""
    notices = Notices()
    async with attached(config, runtime, tmp_path / "host", notices) as host:
        pid = int(text_of(await host.call_tool("alpha__pid", {})))
        async with picker_source(config, runtime, tmp_path / "picker") as source:
            model = await until_model(source, connected)
            assert model.servers[0].pid == pid  # the host's process: no second spawn
            view = await until_view(source, lambda v: len(v.hosts) == 1)
            (seen,) = view.hosts
            assert seen.host is None and seen.project == str(config)
            assert ("alpha", "add") in seen.tools and view.pid is not None
            assert view.seen_by("alpha", "add") == (seen,)
            status = await daemon_status(rendezvous({"XDG_RUNTIME_DIR": str(runtime)}))
            assert status is not None and len(status["hosts"]) == 1
            assert [picker["workspace"] for picker in status["pickers"]] == [str(config)]

            changed = await source.tool_set_enabled("alpha", "add", False)
            assert not changed.server("alpha").tool("add").enabled  # type: ignore[union-attr]
            await notices.until(1)
            listed = {tool.name for tool in (await host.list_tools()).tools}
            assert "alpha__add" not in listed and "alpha__echo" in listed
            await until_view(source, lambda v: not v.seen_by("alpha", "add"))

            with pytest.raises(UnknownToolError, match="no tool named 'nope'"):
                await source.tool_set_enabled("alpha", "nope", False)
            result = await source.call_tool("alpha", "echo", {"text": "through the daemon"})
            assert text_of(result) == "through the daemon"
            assert [s.pid for s in source.snapshot.servers] == [pid]
    await daemon_gone(runtime)
    await wait_until_gone(pid)


async def test_the_daemon_waits_for_an_attached_picker_before_it_leaves(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    """The host leaves, the picker stays: the daemon (idle 1 s) and its server stay with it,
    and go once the picker leaves too."""
    leave = anyio.Event()

    async def host(*, task_status: anyio.abc.TaskStatus[int]) -> None:
        async with attached(config, runtime, tmp_path / "host") as client:
            task_status.started(int(text_of(await client.call_tool("alpha__pid", {}))))
            await leave.wait()

    async with anyio.create_task_group() as group:
        pid = await group.start(host)
        async with picker_source(config, runtime, tmp_path / "picker") as source:
            await until_view(source, lambda v: len(v.hosts) == 1)
            leave.set()
            await until_view(source, lambda v: not v.hosts)
            # Nothing happens when the daemon stays: only time tells (3 idle periods).
            await anyio.sleep(IDLE * 3)
            assert source.daemon.attached and process_alive(pid)
            model = await source.tool_set_enabled("alpha", "echo", False)
            assert not model.server("alpha").tool("echo").enabled  # type: ignore[union-attr]
    await daemon_gone(runtime)
    await wait_until_gone(pid)


async def test_a_daemon_killed_under_the_picker_is_said_and_the_next_one_followed(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    """``kill -9`` of the daemon: the picker's view says it went away, an operation says so
    rather than hang; once the host's next request started a new daemon, the picker attaches
    to it by itself, shows its server process, and its toggles reach the host again."""
    notices = Notices()
    async with attached(config, runtime, tmp_path / "host", notices) as host:
        before = int(text_of(await host.call_tool("alpha__pid", {})))
        async with picker_source(config, runtime, tmp_path / "picker") as source:
            await until_model(source, connected)
            old = source.daemon.pid
            assert old == int(rendezvous({"XDG_RUNTIME_DIR": str(runtime)}).pid.read_text())
            os.kill(old, signal.SIGKILL)
            view = await until_view(source, lambda v: not v.attached)
            assert view.note == GONE and not view.hosts
            with pytest.raises(AgenttyError, match="went away"):
                await source.tool_set_enabled("alpha", "add", False)
            await notices.until(1, timeout=60)  # the host's serve started a new daemon
            after = int(text_of(await host.call_tool("alpha__pid", {})))
            view = await until_view(source, lambda v: v.attached and len(v.hosts) == 1)
            assert view.pid not in (None, old) and view.note is None
            await until_model(source, lambda m: connected(m) and m.servers[0].pid == after)
            assert after != before
            await source.tool_set_enabled("alpha", "add", False)
            await notices.until(2, timeout=60)
            assert "alpha__add" not in {tool.name for tool in (await host.list_tools()).tools}
    await daemon_gone(runtime)
    await wait_until_gone(after)


async def test_a_line_over_the_links_limit_ends_the_reading(tmp_path: Path) -> None:
    left, right = anyio.create_memory_object_stream[bytes](4)
    async with left, right:
        await left.send(b"x" * 40)
        reader = LineReader(right, limit=32)  # type: ignore[arg-type]
        with pytest.raises(anyio.DelimiterNotFound):
            await reader.line()


async def test_the_link_sends_a_server_the_picker_has_by_its_revision_alone(
    write_config: WriteConfig, runtime: Path, tmp_path: Path
) -> None:
    """On the raw link: the first snapshot has every server whole; after a toggle of alpha,
    the next has alpha whole and beta as ``{"same": revision}``; an operation the daemon does
    not do for a picker is answered with an error, and the link goes on."""
    config = write_config(
        {
            "alpha": stdio_entry(plain_argv("--name", "alpha")),
            "beta": stdio_entry(plain_argv("--name", "beta")),
        }
    )
    async with attached(config, runtime, tmp_path / "host") as host:
        await host.list_tools()
        place = rendezvous({"XDG_RUNTIME_DIR": str(runtime)})
        env = environment(runtime)
        line = Attachment(str(tmp_path), str(config), env=env, picker=True).line()
        async with await anyio.connect_unix(place.socket) as stream:
            await stream.send(line)
            reader, writer = LineReader(stream), LineWriter(stream)
            with anyio.fail_after(TIMEOUT):
                assert await reader.line() == b"ok"
                assert "hello" in await reader.message()
                while True:  # until both are connected, each sent whole
                    message = await reader.message()
                    servers = message.get("snapshot", {}).get("servers", [])
                    if [s.get("status") for s in servers] == ["connected", "connected"]:
                        break
                await writer.send({"id": 1, "op": "import_servers", "args": {}})
                await writer.send(
                    {
                        "id": 2,
                        "op": "tool_set_enabled",
                        "args": {"server": "alpha", "tool": "add", "enabled": False},
                    }
                )
                replies: dict[int, dict[str, object]] = {}
                changed: list[object] = []
                while len(replies) < 2 or not changed:
                    message = await reader.message()
                    if "reply" in message:
                        replies[message["reply"]] = message
                    elif "snapshot" in message and len(replies) == 2:
                        changed = message["snapshot"]["servers"]
        assert replies[1]["error"] == {
            "kind": "AgenttyError",
            "message": "the gateway daemon has no operation 'import_servers' for a picker",
        }
        assert isinstance(replies[2]["result"], dict) and "revision" in replies[2]["result"]
        alpha, beta = changed
        assert isinstance(alpha, dict) and alpha["name"] == "alpha"
        assert isinstance(beta, dict) and list(beta) == ["same"]
    await daemon_gone(runtime)
