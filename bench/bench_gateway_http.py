"""The gateway over HTTP: a tool call through ``agentty-tui serve --http`` against the same call
made directly, and a toggle to the host's ``tools/list_changed`` over HTTP.

One ``light_plain_server.py`` (the plain server's four tools, no SDK) is reached five ways from
this process with the mcp SDK's client: directly over stdio (2025 handshake), through
``python -m agentty_tui serve --http --port 0 --config X`` (whose bridge runs its own copy of
the server), and through ``serve --http --shared`` (the user's gateway daemon serves the port,
over its bridge; here a daemon of the bench's own runtime folder), each over Streamable HTTP
once in the 2025 handshake era (a session, a POST per call) and once in the 2026-07-28 era
(each call a POST of its own). Calls of ``echo`` go round the five (a warm-up discarded; who
goes first rotates) and the medians are compared with the issue's target for the gateway:
≤ 1.1 × direct + 2 ms.

Then each HTTP path makes the same number of calls in a row while the CPU time (user and
system, ``/proc/PID/stat``) of the processes that serve it is read before and after: the serve
process, and with ``--shared`` the daemon too. That figure is what the gateway's code and the
libraries under it cost a call, whatever the machine's load does to the wall times.

Then toggles of one tool (off, on, ...) written by this process through a ``ConfigStore`` (the
write ``agentty-tui disable`` makes) reach the 2025-era host on its session's GET stream: from
the write to the notice (serve's live reload sees an outside edit: its 0.07 s of quiet
included).

``python bench/bench_gateway_http.py`` (400 calls each, 30 toggles) or ``--quick`` (60 calls,
6 toggles); ``--baseline-tree DIR`` adds the ``serve --http`` of another checkout (e.g.
``git archive REV agentty_tui | tar -x -C DIR``) to the same rounds.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from contextlib import AsyncExitStack
from pathlib import Path

import anyio
import anyio.abc
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
from agentty_tui.gateway.rendezvous import rendezvous
from tests.servers import plain_argv

ANNOUNCED = re.compile(rb"agentty gateway: (http://127\.0\.0\.1:\d+/mcp)")


async def started(
    stack: AsyncExitStack, argv: list[str], env: dict[str, str], cwd: Path | None = None
) -> tuple[anyio.abc.Process, str, str]:
    """``argv`` (a ``serve --http``) running in ``cwd`` until ``stack`` closes (then SIGTERM):
    the process, its URL and its token."""
    process = await stack.enter_async_context(await anyio.open_process(argv, env=env, cwd=cwd))
    stack.push_async_callback(stopped, process)
    assert process.stdout is not None
    reader = BufferedByteReceiveStream(process.stdout)
    with anyio.fail_after(60):
        found = ANNOUNCED.match(await reader.receive_until(b"\n", 1000))
        token_line = (await reader.receive_until(b"\n", 1000)).decode()
    assert found is not None
    secret = (await anyio.Path(token_line.removeprefix("bearer token in ")).read_text()).strip()
    return process, found.group(1).decode(), secret


def cpu_seconds(pid: int) -> float:
    """The CPU time (user and system) process ``pid`` has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def stopped(process: anyio.abc.Process) -> None:
    """SIGTERM, and the process's end."""
    if process.returncode is None:
        process.terminate()
    with anyio.fail_after(20):
        await process.wait()


def baseline_option(parser: argparse.ArgumentParser) -> None:
    """``--baseline-tree DIR``: also a ``serve --http`` of the checkout in ``DIR`` (its
    ``agentty_tui`` package, e.g. from ``git archive``), for a before and after in one run."""
    parser.add_argument("--baseline-tree", type=Path, default=None, metavar="DIR")


async def main() -> None:
    args = parse_mode(__doc__ or "", baseline_option)
    calls = 60 if args.quick else 400
    toggles = 6 if args.quick else 30
    token = marker("gateway-http")
    with bench_dirs("gateway-http") as dirs:
        env = env_for_child(dirs)
        config = write_config(
            dirs.root / "mcp.json", {"alpha": server_entry(plain_argv("--name", token))}
        )
        runtime = dirs.root / "run"
        runtime.mkdir(mode=0o700)
        env["XDG_RUNTIME_DIR"] = str(runtime)
        env["AGENTTY_GATEWAY_IDLE"] = "1"
        serve = [sys.executable, "-m", "agentty_tui", "serve", "--http", "--port", "0"]
        async with AsyncExitStack() as processes, AsyncExitStack() as stack:
            gateways = {
                "serve --http": await started(
                    processes, [*serve, "--no-daemon", "--config", str(config)], env
                ),
                "serve --http --shared": await started(
                    processes, [*serve, "--shared", "--config", str(config)], env
                ),
            }
            if args.baseline_tree is not None:  # another checkout's serve --http, beside
                tree = args.baseline_tree.resolve()
                gateways["baseline serve --http"] = await started(
                    processes,
                    [*serve, "--config", str(config)],
                    {**env, "PYTHONPATH": str(tree)},
                    cwd=tree,  # ``-m`` puts the working folder first on the path
                )
            notices = {gateway: Notices() for gateway in gateways}
            direct = await stack.enter_async_context(
                Client(
                    StdioServerParameters(
                        command=sys.executable, args=plain_argv("--name", token)[1:], env=env
                    ),
                    mode="legacy",
                    cache=None,
                )
            )
            paths: list[tuple[str, Client, str]] = [("direct (stdio)", direct, "echo")]
            serving: dict[str, list[int]] = {}  # the processes that do a path's work
            for gateway, (process, url, secret) in gateways.items():
                for mode, era in (("legacy", "2025 session"), ("auto", "2026-07-28")):
                    http = await stack.enter_async_context(
                        httpx2.AsyncClient(
                            headers={"Authorization": f"Bearer {secret}"},
                            timeout=httpx2.Timeout(30, read=300),  # the SDK's own (quiet streams)
                        )
                    )
                    handler = notices[gateway].handler if mode == "legacy" else None
                    client = await stack.enter_async_context(
                        Client(
                            streamable_http_client(url, http_client=http),
                            mode=mode,
                            message_handler=handler,
                            cache=None,
                        )
                    )
                    listed = {tool.name for tool in (await client.list_tools()).tools}
                    assert "alpha__echo" in listed, listed
                    paths.append((f"{gateway}, {era}", client, "alpha__echo"))
                    serving[f"{gateway}, {era}"] = [process.pid]
            for name in serving:
                if "--shared" in name:  # the daemon serves; the serve process only holds the port
                    serving[name].append(int(rendezvous(env).pid.read_text()))
            times: dict[str, list[float]] = {name: [] for name, _, _ in paths}
            for i in range(calls + 20):
                turn = paths[i % len(paths) :] + paths[: i % len(paths)]
                for name, client, tool in turn:
                    elapsed = await timed_call(client, tool, {"text": f"call {i}"})
                    if i >= 20:
                        times[name].append(elapsed)
            # The CPU the gateway's processes spend a call: what our code (and the libraries
            # under it) costs, apart from the machine's load, which inflates every wait above.
            cpu_per_call: dict[str, float] = {}
            for name, client, tool in paths[1:]:
                before = sum(map(cpu_seconds, serving[name]))
                for i in range(calls):
                    await timed_call(client, tool, {"text": f"cpu {i}"})
                cpu_per_call[name] = (sum(map(cpu_seconds, serving[name])) - before) / calls
            store = ConfigStore(config)
            latency: dict[str, list[float]] = {gateway: [] for gateway in gateways}
            for i in range(toggles):
                seen = {gateway: len(heard.times) for gateway, heard in notices.items()}
                start = time.perf_counter()
                await anyio.to_thread.run_sync(
                    store.apply, SetToolEnabled("alpha", "add", i % 2 == 1)
                )
                for gateway, heard in notices.items():
                    latency[gateway].append(await heard.next_after(seen[gateway]) - start)
            notice_count = {gateway: len(heard.times) for gateway, heard in notices.items()}
            await stack.aclose()
        daemon_file = rendezvous(env).pid
        with anyio.move_on_after(20):  # the daemon's idle exit, which stops its server
            while daemon_file.exists():  # noqa: ASYNC110 - only the file tells
                await anyio.sleep(0.05)
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
    for name, s in summary.items():
        if s is not direct_stats:
            print(f"{name}: + {ms(s.minimum - direct_stats.minimum):.2f} ms by the minimums")
    print_table(
        f"CPU of the gateway's processes a call ({calls} calls in a row each)",
        ["path", "CPU ms a call"],
        [[name, f"{1000 * used:.2f}"] for name, used in cpu_per_call.items()],
    )
    toggles_seen = {gateway: stats(sample) for gateway, sample in latency.items()}
    print_table(
        "toggle written (ConfigStore) → tools/list_changed on the 2025 session's GET stream",
        ["gateway", "n", "median ms", "p90 ms", "max ms"],
        [
            [gateway, t.n, ms(t.median), ms(t.p90), ms(t.maximum)]
            for gateway, t in toggles_seen.items()
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
                "gateway_cpu_ms_per_call": {n: 1000 * u for n, u in cpu_per_call.items()},
                "toggle_written_ms": {
                    gateway: [ms(t) for t in sample] for gateway, sample in latency.items()
                },
                "notices": notice_count,
                "toggles": toggles,
                "leftovers": leftovers,
                "load_average": os.getloadavg(),
            },
        )


if __name__ == "__main__":
    anyio.run(main)
