"""Coalescing: 100 reload requests fired during one reload.

Each trial, on a bridge running S servers:

1. the config file is edited (server ``s01``'s args change) and a first ``reload()`` starts;
2. once it is running (``bridge.reload_runs`` went up), the file is edited again (``s02``
   changes too) and 100 more ``reload()`` calls are fired concurrently;
3. when all 101 calls have returned: how many reloads actually ran (``bridge.reload_runs``;
   target <= 2 in all), whether both edits are live (no edit lost: both changed servers on a new
   process), how many processes were spawned (2 expected), and the time from the first request
   until the model settled with both edits.

For reference, the same trial is timed with a single reload covering both edits (one request,
one run), interleaved with the coalesced trials.

The changed servers start with a delay (``--delay``) so a reload takes real time.

``python bench/bench_coalesce.py`` (5 servers, 6 trials, 100 requests) or ``--quick``.
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

TARGET_RUNS = 2
REQUESTS = 100
SETTLE_TIMEOUT = 120.0
FIRST, SECOND = "s01", "s02"


def _status(model: PluginModel, name: str) -> str | None:
    state = model.server(name)
    return state.status if state is not None else None


async def _bench(
    dirs: BenchDirs, servers: int, tools: int, trials: int, delay: float, token: str
) -> dict[str, Any]:
    versions = {FIRST: 0, SECOND: 0}

    def entries() -> dict[str, dict[str, Any]]:
        result = {}
        for i in range(servers):
            name = f"s{i:02d}"
            version = versions.get(name)
            if version is None:
                argv = scalable_argv(tools, name=f"{token}-{i}")
            else:
                argv = scalable_argv(tools, delay=delay, name=f"{token}-{i}-v{version}")
            result[name] = server_entry(argv)
        return result

    def complete(model: PluginModel) -> bool:
        return all(s.status == "connected" and len(s.tools) == tools for s in model.servers)

    path = write_config(dirs.config_path(), entries())
    coalesced: list[float] = []
    single: list[float] = []
    runs: list[int] = []
    spawns: list[int] = []
    lost: list[int] = []
    async with Bridge(ConfigStore(path), log_dir=dirs.logs) as bridge:
        await bridge.wait_for(complete, SETTLE_TIMEOUT)

        async def settle_old() -> None:
            await poll_until(lambda: not pids_with_marker(token) - set(bridge.live_pids), 10)

        for trial in range(1, trials + 1):
            # --- coalesced: 1 reload, then an edit and 100 requests during it --------------
            await settle_old()
            old = {name: bridge.server_pid(name) for name in (FIRST, SECOND)}
            proc_before = pids_with_marker(token)
            runs_before = bridge.reload_runs
            versions[FIRST] += 1
            write_config(path, entries())
            t0 = time.perf_counter()
            async with anyio.create_task_group() as group:
                group.start_soon(bridge.reload)
                # The first reload is running once it has re-spawned the first changed server.
                await bridge.wait_for(lambda m: _status(m, FIRST) == "connecting", SETTLE_TIMEOUT)
                if bridge.reload_runs != runs_before + 1:
                    raise RuntimeError("the first reload is not running")
                versions[SECOND] += 1
                write_config(path, entries())
                for _ in range(REQUESTS):
                    group.start_soon(bridge.reload)
            model = await bridge.wait_for(complete, SETTLE_TIMEOUT)
            coalesced.append(time.perf_counter() - t0)
            runs.append(bridge.reload_runs - runs_before)
            spawns.append(len(pids_with_marker(token) - proc_before))
            lost.append(
                sum(1 for name in (FIRST, SECOND) if model.server(name) is None)
                + sum(1 for name in (FIRST, SECOND) if bridge.server_pid(name) == old[name])
            )

            # --- reference: both edits, one request ---------------------------------------
            await settle_old()
            versions[FIRST] += 1
            versions[SECOND] += 1
            write_config(path, entries())
            t0 = time.perf_counter()
            await bridge.reload()
            await bridge.wait_for(complete, SETTLE_TIMEOUT)
            single.append(time.perf_counter() - t0)
            print(f"  trial {trial}/{trials} done", flush=True)
        await settle_old()
    return {
        "coalesced": coalesced,
        "single": single,
        "runs": runs,
        "spawns": spawns,
        "lost": lost,
    }


def main() -> int:
    args = parse_mode(__doc__ or "")
    servers, tools, trials, delay = (3, 5, 2, 0.3) if args.quick else (5, 20, 6, 1.0)
    token = marker("coalesce")
    print(
        f"coalescing: {servers} servers, {REQUESTS} reload requests during one reload, "
        f"changed servers start with a {delay:g} s delay, {trials} trials"
    )
    with bench_dirs("coalesce") as dirs:
        result = anyio.run(_bench, dirs, servers, tools, trials, delay, token)
    leftovers = report_leftovers(token)

    coalesced = stats(result["coalesced"])
    single = stats(result["single"])
    print_table(
        "time from the first request until settled (ms)",
        ["case", "n", "median", "p90", "IQR", "max"],
        [
            [
                f"1 + {REQUESTS} requests, edit in between",
                coalesced.n,
                ms(coalesced.median),
                ms(coalesced.p90),
                ms(coalesced.iqr),
                ms(coalesced.maximum),
            ],
            [
                "1 request, both edits",
                single.n,
                ms(single.median),
                ms(single.p90),
                ms(single.iqr),
                ms(single.maximum),
            ],
        ],
    )
    worst_runs = max(result["runs"])
    print(
        f"\nreloads run per trial: {result['runs']}   target <= {TARGET_RUNS}: "
        f"{'MET' if worst_runs <= TARGET_RUNS else 'MISSED'}"
    )
    print(f"processes spawned per trial: {result['spawns']} (2 changed servers)")
    print(f"edits lost per trial: {result['lost']}")
    print(f"coalesced / single (medians): {ratio(coalesced.median, single.median):.2f}")
    ok = worst_runs <= TARGET_RUNS and not any(result["lost"])
    if not args.quick:
        write_results(
            "coalesce",
            {
                "servers": servers,
                "requests": REQUESTS,
                "delay_seconds": delay,
                "trials": trials,
                "stats_seconds": {"coalesced": coalesced.as_dict(), "single": single.as_dict()},
                "samples_seconds": {"coalesced": result["coalesced"], "single": result["single"]},
                "reload_runs": result["runs"],
                "spawns": result["spawns"],
                "edits_lost": result["lost"],
                "target_runs": TARGET_RUNS,
                "met": ok,
                "leftover_processes": leftovers,
            },
        )
    return 1 if leftovers or not ok else 0


if __name__ == "__main__":
    raise SystemExit(main())
