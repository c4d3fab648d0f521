"""Reload with a small change: 10 servers, one of them edited in the config file.

Each round, interleaved:

1. **reload, one changed**: the config file is rewritten with one server's args changed;
   ``await bridge.reload()`` until the model is complete again (every server connected, the
   changed one on its new process). Spawns are counted from PIDs (``bridge.server_pid`` and a
   /proc scan): exactly 1 new process, and the 9 unchanged servers keep theirs.
2. **that one server alone**: a fresh ``Bridge`` on a config holding only the changed server,
   from entering it until settled (what the reload cannot beat: one spawn + connect + list).
3. **full restart of all ten**: close the bridge (stopping all ten) and open a new one on the
   same config, until settled (what hosts without a diffing reload do).

Target: median(reload) / median(alone) <= 1.30, exactly one spawn per reload.

``python bench/bench_reload.py`` (10 servers x 20 tools, 8 rounds) or ``--quick`` (4 x 5, 2).
"""

from __future__ import annotations

import time
from typing import Any

import anyio
from _common import (
    BenchDirs,
    bench_dirs,
    marker,
    ms,
    parse_mode,
    pids_with_marker,
    poll_until,
    print_table,
    ratio,
    report_leftovers,
    server_entry,
    stats,
    write_config,
    write_results,
)

from agentty_tui.bridge import Bridge
from agentty_tui.config import ConfigStore
from agentty_tui.model import PluginModel
from tests.servers import scalable_argv

TARGET = 1.30
SETTLE_TIMEOUT = 120.0
CHANGED = "s03"


def _complete(servers: int, tools: int) -> Any:
    def check(model: PluginModel) -> bool:
        return len(model.servers) == servers and all(
            s.status == "connected" and len(s.tools) == tools for s in model.servers
        )

    return check


async def _open(path: Any, dirs: BenchDirs) -> Bridge:
    bridge = Bridge(ConfigStore(path), log_dir=dirs.logs)
    await bridge.__aenter__()
    return bridge


async def _wait_gone(pids: set[int], token: str, timeout: float = 10.0) -> None:
    await poll_until(lambda: not pids & pids_with_marker(token), timeout)


async def _bench(
    dirs: BenchDirs, servers: int, tools: int, rounds: int, token: str
) -> dict[str, Any]:
    def entries(version: int) -> dict[str, dict[str, Any]]:
        result = {}
        for i in range(servers):
            name = f"s{i:02d}"
            tag = f"{token}-{i}" + (f"-v{version}" if name == CHANGED else "")
            result[name] = server_entry(scalable_argv(tools, name=tag))
        return result

    path = write_config(dirs.config_path(), entries(0))
    alone_path = dirs.config_path("alone.json")
    complete = _complete(servers, tools)
    reload_times: list[float] = []
    alone_times: list[float] = []
    restart_times: list[float] = []
    restart_close: list[float] = []
    spawns: list[int] = []
    kept: list[int] = []
    reload_runs: list[int] = []

    bridge = await _open(path, dirs)
    try:
        await bridge.wait_for(complete, SETTLE_TIMEOUT)
        for round_index in range(1, rounds + 1):
            # 1. reload with one server changed
            await _wait_gone(pids_with_marker(token) - set(bridge.live_pids), token)
            before = {s.name: bridge.server_pid(s.name) for s in bridge.snapshot.servers}
            proc_before = pids_with_marker(token)
            runs_before = bridge.reload_runs
            write_config(path, entries(round_index))
            t0 = time.perf_counter()
            await bridge.reload()
            model = await bridge.wait_for(complete, SETTLE_TIMEOUT)
            reload_times.append(time.perf_counter() - t0)
            reload_runs.append(bridge.reload_runs - runs_before)
            after = {s.name: bridge.server_pid(s.name) for s in model.servers}
            spawns.append(len(pids_with_marker(token) - proc_before))
            kept.append(sum(1 for name, pid in before.items() if after.get(name) == pid))
            if after[CHANGED] == before[CHANGED]:
                raise RuntimeError("the changed server kept its process")
            await _wait_gone(pids_with_marker(token) - set(bridge.live_pids), token)

            # 2. the changed server alone
            write_config(alone_path, {CHANGED: entries(round_index)[CHANGED]})
            t0 = time.perf_counter()
            alone = await _open(alone_path, dirs)
            try:
                await alone.wait_for(_complete(1, tools), SETTLE_TIMEOUT)
                alone_times.append(time.perf_counter() - t0)
            finally:
                await alone.aclose()

            # 3. full restart of all ten
            t0 = time.perf_counter()
            await bridge.aclose()
            t1 = time.perf_counter()
            bridge = await _open(path, dirs)
            await bridge.wait_for(complete, SETTLE_TIMEOUT)
            restart_times.append(time.perf_counter() - t0)
            restart_close.append(t1 - t0)
            print(f"  round {round_index}/{rounds} done", flush=True)
    finally:
        await bridge.aclose()
    return {
        "reload one changed": reload_times,
        "start that one alone": alone_times,
        "full restart (close + start all)": restart_times,
        "  of which: close all": restart_close,
        "spawns": spawns,
        "kept": kept,
        "reload_runs": reload_runs,
    }


def main() -> int:
    args = parse_mode(__doc__ or "")
    servers, tools, rounds = (4, 5, 2) if args.quick else (10, 20, 8)
    token = marker("reload")
    print(f"reload: {servers} servers x {tools} tools, one changed, {rounds} interleaved rounds")
    with bench_dirs("reload") as dirs:
        result = anyio.run(_bench, dirs, servers, tools, rounds, token)
    leftovers = report_leftovers(token)

    timed = [
        "reload one changed",
        "start that one alone",
        "full restart (close + start all)",
        "  of which: close all",
    ]
    summary = {name: stats(result[name]) for name in timed}
    alone = summary["start that one alone"].median
    print_table(
        "time until the model is complete (ms)",
        ["operation", "n", "median", "p90", "IQR", "min", "max", "/ one alone"],
        [
            [
                name,
                s.n,
                ms(s.median),
                ms(s.p90),
                ms(s.iqr),
                ms(s.minimum),
                ms(s.maximum),
                ratio(s.median, alone),
            ]
            for name, s in summary.items()
        ],
    )
    per_round = [
        a / b
        for a, b in zip(result["reload one changed"], result["start that one alone"], strict=True)
    ]
    pr = stats(per_round)
    headline = ratio(summary["reload one changed"].median, alone)
    vs_restart = ratio(
        summary["reload one changed"].median, summary["full restart (close + start all)"].median
    )
    spawns_ok = all(count == 1 for count in result["spawns"])
    print(
        f"\nreload / alone (medians): {headline:.3f}   target <= {TARGET:.2f}: "
        f"{'MET' if headline <= TARGET else 'MISSED'}"
    )
    print(f"per-round ratio reload / alone: median {pr.median:.3f}, IQR {pr.q1:.3f}-{pr.q3:.3f}")
    print(f"reload / full restart (medians): {vs_restart:.3f}")
    print(
        f"spawns per reload: {result['spawns']} (target exactly 1: "
        f"{'MET' if spawns_ok else 'MISSED'}); unchanged servers that kept their PID: "
        f"{result['kept']} of {servers - 1}; reloads run per request: {result['reload_runs']}"
    )
    if not args.quick:
        write_results(
            "reload",
            {
                "servers": servers,
                "tools_per_server": tools,
                "rounds": rounds,
                "stats_seconds": {name.strip(): s.as_dict() for name, s in summary.items()},
                "samples_seconds": {name.strip(): result[name] for name in timed},
                "ratio_reload_vs_alone": headline,
                "per_round_ratio": pr.as_dict(),
                "ratio_reload_vs_full_restart": vs_restart,
                "target": TARGET,
                "met": headline <= TARGET,
                "spawns": result["spawns"],
                "kept_pids": result["kept"],
                "leftover_processes": leftovers,
            },
        )
    return 1 if leftovers or not spawns_ok else 0


if __name__ == "__main__":
    raise SystemExit(main())
