"""A 2025-era HTTP host through ``serve --http --shared`` when the daemon is killed (``kill -9``).

One ``serve --http --shared --port 0`` (the user's gateway daemon serves the port; here a daemon
of the bench's own runtime folder) over one ``light_plain_server.py``; a host is the mcp SDK's
client in the 2025 handshake era (a session, its GET stream). Each round kills the daemon with
SIGKILL, then times, from the kill:

- the new daemon's pid file (the serve process starts it at once and hands it the socket);
- the old host's next ``tools/list`` answered, in its old session (the new daemon takes the
  session up: ``gateway/http/kept_sessions``);
- that host's ``tools/list_changed`` on its GET stream, which its client reopens
  (``GET_RETRY``, 5 s, after the old stream broke): the notice alone, then the stream ends and
  the client opens the session's own 100 ms later (the next round waits a second for it);
- the baseline, in the same round: a new host opening a session and listing (what a host that
  follows the spec's "start a new session" on 404 does instead, and what the SDK's client,
  which does not, could only do by restarting).

Then the same host of a ``serve --http`` (a bridge of its own) whose process is killed and run
again on the same port at once, each round timed from the kill: the new serve's announcement,
the old host's next ``tools/list`` (its session taken up from the sessions file), its
``tools/list_changed`` on the GET stream its client reopens (``GET_RETRY`` after the old one
broke), and the baseline, a new host's session and list once the serve announced.

Last, the cost of the sessions file (``KeptSessions`` with a file, rewritten whole at each
session opened or ended) against the same book in memory, with 64 sessions kept.

``python bench/bench_gateway_http_restart.py`` (8 rounds) or ``--quick`` (2 rounds).
"""

from __future__ import annotations

import os
import signal
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

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

from agentty_tui.gateway.http.kept_sessions import MAX_KEPT, KeptSessions
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
                    # As below: the next kill once the session's own GET stream is open (a kill
                    # in the client's 100 ms would time its retry, not ``GET_RETRY``).
                    await anyio.sleep(1)
        daemon_file = rendezvous(env).pid
        with anyio.move_on_after(20):  # the daemon's idle exit, which stops its server
            while daemon_file.exists():  # noqa: ASYNC110 - only the file tells
                await anyio.sleep(0.05)
    restarted = await serve_restarts(rounds)
    rows = []
    summary: dict[str, dict[str, float]] = {}
    for name, sample in {**times, **restarted}.items():
        found = stats(sample)
        summary[name] = {"median_ms": ms(found.median), "p90_ms": ms(found.p90)}
        rows.append((name, f"{ms(found.median):.0f}", f"{ms(found.p90):.0f}", len(sample)))
    print_table(
        f"from kill -9 of the daemon, then of serve --http ({rounds} rounds each)",
        ("", "median ms", "p90 ms", "n"),
        rows,
    )
    taken = stats(times["old host: next tools/list (session taken up)"]).median
    baseline = stats(times["baseline: a new host's session and tools/list"]).median
    against = ratio(taken, baseline)
    print(f"\nthe old host's next list against a new host's session and list: {against:.2f}×")
    again = stats(restarted["serve restarted: old host's next tools/list"]).median
    newcomer = stats(restarted["serve restarted: a new host's session and tools/list"]).median
    print(f"after serve --http restarted, the same: {ratio(again, newcomer):.2f}×")
    summary["sessions file"] = file_cost(200 if args.quick else 2000)
    leftovers = report_leftovers(token)
    if not args.quick:
        write_results(
            "gateway_http_restart",
            {
                "rounds": rounds,
                "times": summary,
                "ratio": ratio(taken, baseline),
                "ratio_serve_restarted": ratio(again, newcomer),
                "leftovers": leftovers,
            },
        )


async def serve_restarts(rounds: int) -> dict[str, list[float]]:
    """``serve --http`` (its own bridge) killed and run again on its port, ``rounds`` times
    under one host: the seconds from each kill."""
    times: dict[str, list[float]] = {
        "serve restarted: announced": [],
        "serve restarted: old host's next tools/list": [],
        "serve restarted: old host's tools/list_changed": [],
        "serve restarted: a new host's session and tools/list": [],
    }
    token = marker("gateway-http-serve-restart")
    with bench_dirs("gateway-http-serve-restart") as dirs:
        env = env_for_child(dirs)
        config = write_config(
            dirs.root / "mcp.json", {"alpha": server_entry(plain_argv("--name", token))}
        )
        argv = [sys.executable, "-m", "agentty_tui", "serve", "--http", "--no-daemon"]
        argv += ["--config", str(config), "--port"]
        async with AsyncExitStack() as processes:
            process, url, secret = await started(processes, [*argv, "0"], env)
            port = url.rsplit(":", 1)[1].split("/", 1)[0]
            notices = Notices()
            async with host(url, secret, notices) as old:
                await old.list_tools()
                for _ in range(rounds):
                    seen = len(notices.times)
                    start = time.perf_counter()
                    process.kill()
                    await process.wait()
                    process, url, secret = await started(processes, [*argv, port], env)
                    times["serve restarted: announced"].append(time.perf_counter() - start)
                    async with anyio.create_task_group() as group:

                        async def newcomer(begun: float, url: str, secret: str) -> None:
                            async with host(url, secret) as new:
                                await new.list_tools()
                                key = "serve restarted: a new host's session and tools/list"
                                times[key].append(time.perf_counter() - begun)

                        group.start_soon(newcomer, start, url, secret)
                        await old.list_tools()
                        key = "serve restarted: old host's next tools/list"
                        times[key].append(time.perf_counter() - start)
                        noticed = await notices.next_after(seen, timeout=60)
                        key = "serve restarted: old host's tools/list_changed"
                        times[key].append(noticed - start)
                    # The client opens the session's own GET stream 100 ms after the notice
                    # (its ``retry``); killed before, it would retry after 100 ms, refused.
                    await anyio.sleep(1)
    report_leftovers(token)
    return times


def file_cost(changes: int) -> dict[str, float]:
    """Microseconds a session opened and one ended take the book with its file and in memory
    (64 sessions kept, each with a host's usual ``initialize``), and their ratio."""
    params = {
        "protocolVersion": "2025-11-25",
        "capabilities": {"elicitation": {"form": {}, "url": {}}, "roots": {"listChanged": True}},
        "clientInfo": {"name": "claude-code", "version": "2.0.14"},
    }
    costs = {}
    with tempfile.TemporaryDirectory() as folder:
        for name, book in [
            ("in memory", KeptSessions()),
            ("with its file", KeptSessions(Path(folder) / "http-sessions-1.json")),
        ]:
            for number in range(MAX_KEPT):
                book.opened(f"{number:032x}", params)
            start = time.perf_counter()
            for number in range(MAX_KEPT, MAX_KEPT + changes):
                book.opened(f"{number:032x}", params)  # the oldest dropped: 64 kept
                book.ended(f"{number - 1:032x}")
            costs[name] = (time.perf_counter() - start) / (2 * changes) * 1e6
    print_table(
        f"the sessions book, {MAX_KEPT} kept ({changes} sessions opened and ended)",
        ("", "µs a change"),
        [(name, f"{cost:.1f}") for name, cost in costs.items()],
    )
    print(f"the file against memory: {ratio(costs['with its file'], costs['in memory']):.0f}×")
    return {"memory_us": costs["in memory"], "file_us": costs["with its file"]}


if __name__ == "__main__":
    anyio.run(main)
