"""The gateway daemon keeps each host on the bridge its servers' environment calls for, also
when the config changes under a bridge that runs: a server added with a ``${VAR}`` whose value
differs between its hosts moves the host whose value differs to a bridge of its own.

Hosts are SDK clients starting ``serve --shared`` (``test_process.attached``), the daemon the
real one they start; the config is edited from outside, as a user's editor or another host
would.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp import Client

from agentty_tui.gateway.daemon.process import daemon_status
from agentty_tui.gateway.rendezvous import rendezvous
from tests.conftest import WriteConfig
from tests.gateway.daemon.test_process import attached, daemon_gone, text_of
from tests.gateway.hosts import MODES, Notices
from tests.gateway.http.test_endpoint import http_host
from tests.gateway.http.test_shared import bare_host, shared_gateway
from tests.gateway.picker.test_remote_source import picker_source, until_model
from tests.helpers import process_alive, stdio_entry, wait_until_gone
from tests.servers import plain_argv

pytestmark = pytest.mark.anyio


async def argv_of(pid: int) -> list[bytes]:
    """The command line of process ``pid``."""
    return (await anyio.Path(f"/proc/{pid}/cmdline").read_bytes()).split(b"\0")


async def until_bridges(runtime: Path, count: int) -> None:
    """Until the daemon reports ``count`` bridges (its status's workspaces)."""
    place = rendezvous({"XDG_RUNTIME_DIR": str(runtime)})
    with anyio.fail_after(60):
        while True:
            status = await daemon_status(place)
            if status is not None and len(status["workspaces"]) == count:
                return
            await anyio.sleep(0.05)  # another process's state: asked again, no event to wait on


async def test_a_server_added_with_a_variable_moves_the_host_whose_value_differs(
    write_config: WriteConfig, runtime: Path, tmp_path: Path
) -> None:
    """Two hosts, ``FOO=red`` (it opened the bridge) and ``FOO=blue``, share one bridge while
    no entry names ``${FOO}``. A server whose argument names it is added to the file while
    both run: the red host keeps its bridge (and its connection: its call in flight is
    answered there), the blue host is moved, once its own call in flight was answered, to a
    bridge of its own, and hears ``tools/list_changed``; each one's call reaches a process
    started with its own value. A picker attached meanwhile stays on the bridge it shows (its
    link never ends)."""
    config = write_config({"alpha": stdio_entry(plain_argv("--name", "alpha"))})
    folder = tmp_path / "hosts"
    red_heard, blue_heard = Notices(), Notices()
    async with attached(config, runtime, folder, red_heard, env={"FOO": "red"}) as red:
        red_alpha = int(text_of(await red.call_tool("alpha__pid", {})))  # red opens the bridge
        async with (
            attached(config, runtime, folder, blue_heard, env={"FOO": "blue"}) as blue,
            picker_source(config, runtime, folder) as picker,
            anyio.create_task_group() as following,
        ):
            assert int(text_of(await blue.call_tool("alpha__pid", {}))) == red_alpha
            links: list[bool] = []

            async def follow() -> None:
                async for view in picker.daemon_views():
                    links.append(view.attached)

            following.start_soon(follow)
            slept: dict[str, str] = {}

            async def sleep(name: str, host: Client) -> None:
                slept[name] = text_of(await host.call_tool("alpha__sleep", {"seconds": 2}))

            async with anyio.create_task_group() as group:
                group.start_soon(sleep, "red", red)
                group.start_soon(sleep, "blue", blue)
                beta = stdio_entry(plain_argv("--name", "beta-${FOO}"))
                write_config({"alpha": stdio_entry(plain_argv("--name", "alpha")), "beta": beta})
            # Neither call was lost to the move ("restarted: ask again" is an error).
            assert slept == {"red": "slept 2", "blue": "slept 2"}
            await until_bridges(runtime, 2)
            await blue_heard.until(1)  # its serve attached again, and said so
            await red_heard.until(1)  # beta's tools arrived on red's bridge
            blue_beta = int(text_of(await blue.call_tool("beta__pid", {})))
            red_beta = int(text_of(await red.call_tool("beta__pid", {})))
            assert b"beta-red" in await argv_of(red_beta)
            assert b"beta-blue" in await argv_of(blue_beta)
            # Red kept its bridge and its processes; blue has processes of its own now.
            assert int(text_of(await red.call_tool("alpha__pid", {}))) == red_alpha
            blue_alpha = int(text_of(await blue.call_tool("alpha__pid", {})))
            assert blue_alpha != red_alpha and process_alive(blue_alpha)
            await until_model(picker, lambda m: any(s.pid == red_beta for s in m.servers))
            assert links and all(links)  # the picker's link never ended
            following.cancel_scope.cancel()
    await daemon_gone(runtime)
    for pid in (red_alpha, red_beta, blue_alpha, blue_beta):
        await wait_until_gone(pid)


async def test_the_bridge_keeps_its_openers_environment_after_it_left(
    write_config: WriteConfig, runtime: Path, tmp_path: Path
) -> None:
    """The host that opened the bridge (``FOO=red``) leaves; the one left (``FOO=blue``) is
    still moved when a server naming ``${FOO}`` is added: the bridge starts its servers from
    its opener's environment, not from its oldest host's, so staying would give blue ``red``."""
    config = write_config({"alpha": stdio_entry(plain_argv("--name", "alpha"))})
    folder = tmp_path / "hosts"
    opened, leave, left = anyio.Event(), anyio.Event(), anyio.Event()

    async def red() -> None:
        async with attached(config, runtime, folder, env={"FOO": "red"}):
            opened.set()  # its serve attached first: it opened the bridge
            await leave.wait()
        left.set()

    async with anyio.create_task_group() as group:
        group.start_soon(red)
        await opened.wait()
        async with attached(config, runtime, folder, env={"FOO": "blue"}) as blue:
            leave.set()
            await left.wait()
            beta = stdio_entry(plain_argv("--name", "beta-${FOO}"))
            write_config({"alpha": stdio_entry(plain_argv("--name", "alpha")), "beta": beta})
            await until_bridges(runtime, 2)
            blue_beta = int(text_of(await blue.call_tool("beta__pid", {})))
            assert b"beta-blue" in await argv_of(blue_beta)
    await daemon_gone(runtime)
    await wait_until_gone(blue_beta)


@pytest.mark.parametrize("mode", MODES)
async def test_a_serve_http_shared_is_moved_as_a_stdio_host_is(
    write_config: WriteConfig, runtime: Path, tmp_path: Path, mode: str
) -> None:
    """A stdio host with ``FOO=red`` opens the bridge; a ``serve --http --shared`` without
    ``FOO`` shares it. A server whose argument names ``${FOO:-none}`` is added: the HTTP
    attachment is moved (its ``serve`` attaches again and hands its socket over anew), and its
    host, on the same port and token, calls a process started with its own value. A 2025-era
    host keeps its session (taken up by the new bridge: its reopened GET stream brings
    ``tools/list_changed``); a 2026-07-28 one holds no listen stream here (the move ends it, as
    a daemon's death does)."""
    config = write_config({"alpha": stdio_entry(plain_argv("--name", "alpha"))})
    red_heard, web_heard = Notices(), Notices()
    async with attached(config, runtime, tmp_path / "stdio", red_heard, env={"FOO": "red"}) as red:
        red_alpha = int(text_of(await red.call_tool("alpha__pid", {})))
        async with shared_gateway(config, runtime) as served:
            host = (
                http_host(served, mode, web_heard) if mode == "legacy" else bare_host(served, mode)
            )
            async with host as web:
                assert int(text_of(await web.call_tool("alpha__pid", {}))) == red_alpha
                beta = stdio_entry(plain_argv("--name", "beta-${FOO:-none}"))
                write_config({"alpha": stdio_entry(plain_argv("--name", "alpha")), "beta": beta})
                await until_bridges(runtime, 2)
                if mode == "legacy":
                    await web_heard.until(1, timeout=60)  # its session, taken up
                web_beta = int(text_of(await web.call_tool("beta__pid", {})))
                await red_heard.until(1)  # beta's tools arrived on red's bridge
                red_beta = int(text_of(await red.call_tool("beta__pid", {})))
                assert b"beta-none" in await argv_of(web_beta)
                assert b"beta-red" in await argv_of(red_beta)
                assert int(text_of(await red.call_tool("alpha__pid", {}))) == red_alpha
                assert served.process.returncode is None  # the serve process went on
    await daemon_gone(runtime)
