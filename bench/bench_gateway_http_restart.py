"""A 2025-era HTTP host through ``serve --http --shared`` when the daemon is killed (``kill -9``).

One ``serve --http --shared --port 0`` (the user's gateway daemon serves the port; here a daemon
of the bench's own runtime folder) over one ``light_plain_server.py``; a host is the mcp SDK's
client in the 2025 handshake era (a session, its GET stream). Each round kills the daemon with
SIGKILL, then times, from the kill:

- the new daemon's pid file (the serve process starts it at once and hands it the socket);
- the old host's next ``tools/list`` answered, in its old session (the new daemon takes the
  session up: ``gateway/http/kept_sessions``);
- that host's ``tools/list_changed`` on its GET stream, which its client reopens (a second after
  the old stream broke, the SDK's wait): the notice alone, then the stream ends and the client
  opens the session's own 100 ms later (so the next kill finds it reconnecting again);
- the baseline, in the same round: a new host opening a session and listing (what a host that
  follows the spec's "start a new session" on 404 does instead, and what the SDK's client,
  which does not, could only do by restarting).

``python bench/bench_gateway_http_restart.py`` (8 rounds) or ``--quick`` (2 rounds).
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

import anyio
import httpx2
from _common import (
    bench_dirs,
    env_for_child,
    marker,
    ms,
    parse_mode,
    print_table,
    ratio,
    report_leftovers,
    server_entry,
    stats,
    write_config,
    write_results,
)
from _host_client import Notices
from bench_gateway_http import started
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from agentty_tui.gateway.rendezvous import rendezvous
from tests.servers import plain_argv


@asynccontextmanager
async def host(url: str, secret: str, notices: Notices | None = None) -> AsyncIterator[Client]:
    """A 2025-era host on ``url`` (its GET stream's notices into ``notices``)."""
    async with (
        httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {secret}"},
            timeout=httpx2.Timeout(30, read=300),  # the SDK's own (quiet streams)
        ) as http,
        Client(
            streamable_http_client(url, http_client=http),
            mode="legacy",
            message_handler=None if notices is None else notices.handler,
            cache=None,
        ) as client,
    ):
        yield client


def daemon_pid(env: dict[str, str]) -> int | None:
    """The daemon's pid file, or ``None`` while there is none."""
    try:
        return int(rendezvous(env).pid.read_text())
    except (OSError, ValueError):
        return None


async def main() -> None:
    args = parse_mode(__doc__ or "")
    rounds = 2 if args.quick else 8
    token = marker("gateway-http-restart")
    times: dict[str, list[float]] = {
        "new daemon's pid file": [],
        "old host: next tools/list (session taken up)": [],
        "old host: tools/list_changed on its GET stream": [],
        "baseline: a new host's session and tools/list": [],
    }
    with bench_dirs("gateway-http-restart") as dirs:
        env = env_for_child(dirs)
        config = write_config(
            dirs.root / "mcp.json", {"alpha": server_entry(plain_argv("--name", token))}
        )
        runtime = dirs.root / "run"
        runtime.mkdir(mode=0o700)
        env["XDG_RUNTIME_DIR"] = str(runtime)
        env["AGENTTY_GATEWAY_IDLE"] = "1"
        argv = [sys.executable, "-m", "agentty_tui", "serve", "--http", "--shared", "--port", "0"]
        async with AsyncExitStack() as processes:
            _process, url, secret = await started(processes, [*argv, "--config", str(config)], env)
            notices = Notices()
            async with host(url, secret, notices) as old:
                await old.list_tools()
                for _ in range(rounds):
                    daemon = daemon_pid(env)
                    assert daemon is not None
                    seen = len(notices.times)
                    start = time.perf_counter()
                    os.kill(daemon, signal.SIGKILL)
                    with anyio.fail_after(60):
                        while daemon_pid(env) in (None, daemon):  # noqa: ASYNC110 - its file
                            await anyio.sleep(0.005)
                    times["new daemon's pid file"].append(time.perf_counter() - start)
                    async with anyio.create_task_group() as group:

                        async def fresh(begun: float) -> None:
                            async with host(url, secret) as new:
                                await new.list_tools()
                                key = "baseline: a new host's session and tools/list"
                                times[key].append(time.perf_counter() - begun)

                        group.start_soon(fresh, start)
                        listed = await old.list_tools()
                        assert "alpha__echo" in {tool.name for tool in listed.tools}
                        key = "old host: next tools/list (session taken up)"
                        times[key].append(time.perf_counter() - start)
                        noticed = await notices.next_after(seen, timeout=60)
                        key = "old host: tools/list_changed on its GET stream"
                        times[key].append(noticed - start)
        daemon_file = rendezvous(env).pid
        with anyio.move_on_after(20):  # the daemon's idle exit, which stops its server
            while daemon_file.exists():  # noqa: ASYNC110 - only the file tells
                await anyio.sleep(0.05)
    rows = []
    summary: dict[str, dict[str, float]] = {}
    for name, sample in times.items():
        found = stats(sample)
        summary[name] = {"median_ms": ms(found.median), "p90_ms": ms(found.p90)}
        rows.append((name, f"{ms(found.median):.0f}", f"{ms(found.p90):.0f}", len(sample)))
    print_table(
        f"from kill -9 of the daemon ({rounds} rounds)", ("", "median ms", "p90 ms", "n"), rows
    )
    taken = stats(times["old host: next tools/list (session taken up)"]).median
    baseline = stats(times["baseline: a new host's session and tools/list"]).median
    against = ratio(taken, baseline)
    print(f"\nthe old host's next list against a new host's session and list: {against:.2f}×")
    leftovers = report_leftovers(token)
    if not args.quick:
        write_results(
            "gateway_http_restart",
            {
                "rounds": rounds,
                "times": summary,
                "ratio": ratio(taken, baseline),
                "leftovers": leftovers,
            },
        )


if __name__ == "__main__":
    anyio.run(main)
