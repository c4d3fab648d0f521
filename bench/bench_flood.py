"""What a hostile server costs the app: CPU time per second, and a bystander's call latency.

Each scenario runs one server next to a healthy ``plain_server.py`` under one ``Bridge`` in
this process, and measures over a window of wall time (after the servers settled and a short
warm-up), then over half as long again:

- **CPU**: this process's CPU time (``time.process_time``, all threads) per second of wall time
  in the window, where the app does nothing but serve the two servers;
- **bystander**: then the latency of ``echo`` calls to the healthy server, back to back;
- **log**: bytes the hostile server's logs hold at the end (the log and its one rotation).

Scenarios (``tests/servers/flood_server.py``), interleaved round by round against the
baseline, an idle server (the same script, no hostile option):

- ``stderr flood``: writes stderr without end (a thread);
- ``stdout garbage``: writes lines that are not JSON-RPC to stdout without end;
- ``list_changed loop``: sends ``notifications/tools/list_changed`` in a tight loop.

``python bench/bench_flood.py`` (3 rounds of 8 s windows) or ``--quick`` (1 round of 2 s).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import anyio
from _common import (
    bench_dirs,
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

from agentty_tui.bridge import Bridge
from agentty_tui.bridge.logs import ServerLog
from agentty_tui.config import ConfigStore
from tests.servers import flood_argv, plain_sdk_argv

SCENARIOS: dict[str, tuple[str, ...]] = {
    "idle server (baseline)": (),
    "stderr flood": ("--stderr", "-1"),
    "stdout garbage": ("--garbage", "-1"),
    "list_changed loop": ("--notify-loop",),
}
SETTLE_TIMEOUT = 60.0
WARM_UP = 0.5


async def _measure(config: Path, logs: Path, window: float) -> tuple[float, list[float], int, int]:
    """CPU seconds per wall second, bystander latencies, hostile log bytes, re-lists."""
    async with Bridge(ConfigStore(config), log_dir=logs) as bridge:
        model = await bridge.settled(SETTLE_TIMEOUT)
        for server in model.servers:
            assert server.status == "connected", (server.name, server.error)
        await anyio.sleep(WARM_UP)
        # First the app alone (nothing but the servers to serve), then the bystander's calls:
        # calls cost CPU themselves, and a faster bystander would make more of them.
        cpu0, wall0 = time.process_time(), time.perf_counter()
        await anyio.sleep(window)
        cpu = (time.process_time() - cpu0) / (time.perf_counter() - wall0)
        latencies: list[float] = []
        calls_from = time.perf_counter()
        while time.perf_counter() - calls_from < window / 2:
            start = time.perf_counter()
            result = await bridge.call_tool("healthy", "echo", {"text": "ping"})
            latencies.append(time.perf_counter() - start)
            assert result.content[0].text == "ping"  # type: ignore[union-attr]
        relists = bridge.session_relists("hostile")
    log = ServerLog(logs, "hostile", config)
    size = sum(path.stat().st_size for path in (log.path, log.rotated_path) if path.exists())
    return cpu, latencies, size, relists


async def main() -> None:
    args = parse_mode(__doc__ or "")
    rounds, window = (1, 2.0) if args.quick else (3, 8.0)
    token = marker("flood")
    samples: dict[str, dict[str, list[Any]]] = {
        name: {"cpu": [], "latency": [], "log_bytes": [], "relists": []} for name in SCENARIOS
    }
    with bench_dirs("flood") as dirs:
        for round_no in range(rounds):
            for name, options in SCENARIOS.items():
                config = write_config(
                    dirs.config_path(
                        f"round{round_no}-{len(samples[name]['cpu'])}-{name[:6]}.json"
                    ),
                    {
                        "hostile": server_entry(flood_argv(*options, "--name", token)),
                        "healthy": server_entry(plain_sdk_argv("--name", token)),
                    },
                )
                cpu, latencies, size, relists = await _measure(config, dirs.logs, window)
                sample = samples[name]
                sample["cpu"].append(cpu)
                sample["latency"] += latencies
                sample["log_bytes"].append(size)
                sample["relists"].append(relists)
    base_cpu = stats(samples["idle server (baseline)"]["cpu"]).median
    base_latency = stats(samples["idle server (baseline)"]["latency"]).median
    rows = []
    for name, sample in samples.items():
        cpu = stats(sample["cpu"]).median
        latency = stats(sample["latency"])
        rows.append(
            [
                name,
                f"{cpu * 100:.1f}%",
                f"{(cpu - base_cpu) * 100:+.1f}%",
                ms(latency.median),
                ms(latency.p95),
                f"{ratio(latency.median, base_latency):.2f}",
                latency.n,
                f"{max(sample['log_bytes']) / 2**20:.2f}",
                max(sample["relists"]),
            ]
        )
    print_table(
        f"app CPU and bystander latency, {rounds} round(s) of {window:g} s windows",
        [
            "scenario",
            "app CPU",
            "vs idle",
            "call ms (median)",
            "call ms (p95)",
            "latency / idle",
            "calls",
            "log MiB",
            "re-lists",
        ],
        rows,
    )
    leftovers = report_leftovers(token)
    if not args.quick:
        write_results(
            "flood",
            {
                "rounds": rounds,
                "window_s": window,
                "samples": samples,
                "leftover_processes": leftovers,
            },
        )


if __name__ == "__main__":
    anyio.run(main)
