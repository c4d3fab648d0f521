"""The gateway over HTTP: a tool call through ``agentty-tui serve --http`` against the same call
made directly, and a toggle to the host's ``tools/list_changed`` over HTTP.

One ``light_plain_server.py`` (the plain server's four tools, no SDK) is reached three ways from
this process with the mcp SDK's client: directly over stdio (2025 handshake), and through
``python -m agentty_tui serve --http --port 0 --config X`` (whose bridge runs its own copy of
the server) over Streamable HTTP, once in the 2025 handshake era (a session, a POST per call
answered on an SSE stream) and once in the 2026-07-28 era (each call a POST of its own).
Calls of ``echo`` go round the three (a warm-up discarded; who goes first rotates) and the
medians are compared with the issue's target for the gateway: ≤ 1.1 × direct + 2 ms.

Then toggles of one tool (off, on, ...) written by this process through a ``ConfigStore`` (the
write ``agentty-tui disable`` makes) reach the 2025-era host on its session's GET stream: from
the write to the notice (serve's live reload sees an outside edit: its 0.15 s of quiet
included).

``python bench/bench_gateway_http.py`` (400 calls each, 30 toggles) or ``--quick`` (60 calls,
6 toggles).
"""

from __future__ import annotations

import os
import re
import sys
import time
from contextlib import AsyncExitStack

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
from _host_client import Notices, timed_call
from anyio.streams.buffered import BufferedByteReceiveStream
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from agentty_tui.config import ConfigStore, SetToolEnabled
from tests.servers import plain_argv

ANNOUNCED = re.compile(rb"agentty gateway: (http://127\.0\.0\.1:\d+/mcp)")


async def main() -> None:
    args = parse_mode(__doc__ or "")
    calls = 60 if args.quick else 400
    toggles = 6 if args.quick else 30
    token = marker("gateway-http")
    with bench_dirs("gateway-http") as dirs:
        env = env_for_child(dirs)
        config = write_config(
            dirs.root / "mcp.json", {"alpha": server_entry(plain_argv("--name", token))}
        )
        serve = [sys.executable, "-m", "agentty_tui", "serve", "--http", "--port", "0"]
        async with (
            await anyio.open_process([*serve, "--config", str(config)], env=env) as process,
            AsyncExitStack() as stack,
        ):
            assert process.stdout is not None
            reader = BufferedByteReceiveStream(process.stdout)
            with anyio.fail_after(30):
                found = ANNOUNCED.match(await reader.receive_until(b"\n", 1000))
                token_line = (await reader.receive_until(b"\n", 1000)).decode()
            assert found is not None
            url = found.group(1).decode()
            secret = (
                await anyio.Path(token_line.removeprefix("bearer token in ")).read_text()
            ).strip()
            notices = Notices()
            direct = await stack.enter_async_context(
                Client(
                    StdioServerParameters(
                        command=sys.executable, args=plain_argv("--name", token)[1:], env=env
                    ),
                    mode="legacy",
                    cache=None,
                )
            )
            hosts: dict[str, Client] = {}
            for mode in ("legacy", "auto"):
                http = await stack.enter_async_context(
                    httpx2.AsyncClient(
                        headers={"Authorization": f"Bearer {secret}"},
                        timeout=httpx2.Timeout(30, read=300),  # the SDK's own (quiet streams)
                    )
                )
                hosts[mode] = await stack.enter_async_context(
                    Client(
                        streamable_http_client(url, http_client=http),
                        mode=mode,
                        message_handler=notices.handler if mode == "legacy" else None,
                        cache=None,
                    )
                )
            for client in hosts.values():
                listed = {tool.name for tool in (await client.list_tools()).tools}
                assert "alpha__echo" in listed, listed
            paths = [
                ("direct (stdio)", direct, "echo"),
                ("serve --http, 2025 session", hosts["legacy"], "alpha__echo"),
                ("serve --http, 2026-07-28", hosts["auto"], "alpha__echo"),
            ]
            times: dict[str, list[float]] = {name: [] for name, _, _ in paths}
            for i in range(calls + 20):
                turn = paths[i % 3 :] + paths[: i % 3]
                for name, client, tool in turn:
                    elapsed = await timed_call(client, tool, {"text": f"call {i}"})
                    if i >= 20:
                        times[name].append(elapsed)
            store = ConfigStore(config)
            latency: list[float] = []
            for i in range(toggles):
                seen = len(notices.times)
                start = time.perf_counter()
                await anyio.to_thread.run_sync(
                    store.apply, SetToolEnabled("alpha", "add", i % 2 == 1)
                )
                latency.append(await notices.next_after(seen) - start)
            notice_count = len(notices.times)
            await stack.aclose()
            process.terminate()
            with anyio.fail_after(20):
                await process.wait()
    summary = {name: stats(sample) for name, sample in times.items()}
    direct_stats = summary["direct (stdio)"]
    target = 1.1 * direct_stats.median + 0.002
    print_table(
        f"tool call (echo), {calls} each, in turn",
        ["path", "median ms", "p90 ms", "p95 ms", "min ms"],
        [[name, ms(s.median), ms(s.p90), ms(s.p95), ms(s.minimum)] for name, s in summary.items()],
    )
    ratios: dict[str, float] = {}
    for name, s in summary.items():
        if s is direct_stats:
            continue
        ratios[name] = ratio(s.median, direct_stats.median)
        added = ms(s.median - direct_stats.median)
        met = "met" if s.median <= target else "NOT met"
        print(
            f"{name} / direct: {ratios[name]:.2f} (+{added:.2f} ms); "
            f"target ≤ 1.1× + 2 ms = {ms(target):.2f} ms: {met}"
        )
    toggle = stats(latency)
    print_table(
        "toggle → tools/list_changed on the 2025 session's GET stream",
        ["from", "n", "median ms", "p90 ms", "max ms"],
        [
            [
                "written (ConfigStore) → notice",
                toggle.n,
                ms(toggle.median),
                ms(toggle.p90),
                ms(toggle.maximum),
            ]
        ],
    )
    print(f"notices: {notice_count} for {toggles} toggles")
    leftovers = report_leftovers(token)
    if not args.quick:
        write_results(
            "gateway_http",
            {
                "calls": calls,
                "call_ms": {name: [ms(t) for t in sample] for name, sample in times.items()},
                "call_ratio": ratios,
                "toggle_written_ms": [ms(t) for t in latency],
                "notices": notice_count,
                "toggles": toggles,
                "leftovers": leftovers,
                "load_average": os.getloadavg(),
            },
        )


if __name__ == "__main__":
    anyio.run(main)
