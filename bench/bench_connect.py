"""Connect fan-out: ``agentty-tui list --json`` against the bare mcp SDK, side by side.

Three commands, each a fresh process (interpreter start-up and imports included), each
connecting the same N stdio servers (``scalable_server.py``, T tools each), listing their tools
and exiting:

  A  ``python -m agentty_tui list --json --config X`` with a warm token-count cache (the
     counts kept by an earlier run, ``catalog/token_cache.py``: the encoding is not loaded)
  A0 the same with a cold cache (an empty ``$XDG_CACHE_HOME`` each run: every count is new,
     the encoding loads, about 0.5 s of CPU holding the interpreter's lock, once the servers
     settled, while they are stopped)
  A' ``python -m agentty_tui list --config X`` (the same without the token counts)
  B  ``python bench/_baseline_connect.py S concurrent``  (bare SDK, one anyio task group)
  C  ``python bench/_baseline_connect.py S sequential``  (bare SDK, one server after another)

Runs are interleaved (A, B, C, then B, C, A, ...: the order rotates each round so no command
always runs first after the previous one's teardown), after one discarded warm-up round.
Target (issue 25): median(A) / median(B) <= 0.85 (printed for A0 too): ``list`` starts its
stdio servers before it imports the SDK (``bridge/early.py``), so they boot while it loads.

Beside each wall time, the **CPU time** of the command's process tree (user + system of the
command and every process it waited for, its servers included: ``getrusage(RUSAGE_CHILDREN)``
of this process before and after the run, which runs one command at a time). Both sides start
the same servers, so the CPU ratio says what the command itself costs, and a loaded machine,
which stretches wall times by whatever else runs, moves it far less. The load average is
printed before and after.

Every child runs with its bytecode cached (``PYTHONPYCACHEPREFIX`` in the benchmark's temp dir,
filled by the first run), as an installed program runs: pip compiles the SDK's modules when it
installs them, and this environment's ``PYTHONDONTWRITEBYTECODE=1`` would otherwise compile
every one of our modules at every start (about 0.2 s of CPU) while the SDK's come compiled.

``python bench/bench_connect.py`` (10 servers x 20 tools, 12 rounds) or ``--quick``;
``--npm-memory PREFIX`` runs the npm reference server ``@modelcontextprotocol/server-memory``
instead (installed with ``npm install --prefix PREFIX @modelcontextprotocol/server-memory``), a
real server in another runtime, as issue 25 measures it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from _common import (
    BENCH_DIR,
    REPO_ROOT,
    BenchDirs,
    bench_dirs,
    env_for_child,
    marker,
    ms,
    parse_mode,
    pids_with_marker,
    print_table,
    ratio,
    report_leftovers,
    server_entry,
    stats,
    timed_command,
    with_cached_bytecode,
    write_config,
    write_results,
)

from tests.servers import scalable_argv

TARGET = 0.85
RUN_TIMEOUT = 120.0


def _run(argv: list[str], dirs: BenchDirs, cache: Path) -> tuple[float, float, str]:
    """Wall time of one command from spawn to exit, the CPU time of its process tree (see the
    module docstring), and its stdout; ``cache`` is its ``$XDG_CACHE_HOME``."""
    env = with_cached_bytecode(env_for_child(dirs), dirs)
    env["XDG_CACHE_HOME"] = str(cache)
    return timed_command(argv, env, REPO_ROOT, RUN_TIMEOUT)


def _check_agentty(output: str, servers: int, tools: int | None) -> None:
    data = json.loads(output)
    listed = data["servers"]
    counts = {len(s["tools"]) for s in listed}
    bad = [s["name"] for s in listed if s["status"] != "connected"]
    if len(listed) != servers or bad or not _expected(counts, tools):
        raise RuntimeError(f"agentty-tui list did not connect everything: {bad or listed}")


def _check_text(output: str, servers: int, tools: int | None) -> None:
    if output.count(" connected ") != servers:
        raise RuntimeError(f"agentty-tui list did not connect everything:\n{output[-2000:]}")


def _check_baseline(output: str, servers: int, tools: int | None) -> None:
    data: dict[str, list[str]] = json.loads(output)
    if len(data) != servers or not _expected({len(names) for names in data.values()}, tools):
        raise RuntimeError("the baseline did not list every server's tools")


def _expected(counts: set[int], tools: int | None) -> bool:
    """Every server listed ``tools`` tools (``None``: the same number, at least one)."""
    if tools is None:
        return len(counts) == 1 and min(counts) > 0
    return counts == {tools}


def _options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--servers", type=int, help="override the number of servers")
    parser.add_argument("--tools", type=int, help="override the tools per server")
    parser.add_argument("--rounds", type=int, help="override the number of rounds")
    parser.add_argument(
        "--npm-memory",
        type=Path,
        metavar="PREFIX",
        help="run @modelcontextprotocol/server-memory installed under PREFIX (npm --prefix)",
    )


def main() -> int:
    args = parse_mode(__doc__ or "", _options)
    servers, tools, rounds = (2, 5, 1) if args.quick else (10, 20, 12)
    servers = args.servers or servers
    tools = args.tools or tools
    rounds = args.rounds or rounds
    custom = bool(args.servers or args.tools or args.rounds)
    token = marker("connect")
    python = sys.executable
    expected: int | None = tools
    with bench_dirs("connect") as dirs:
        argvs = [scalable_argv(tools, name=f"{token}-{i}") for i in range(servers)]
        if args.npm_memory is not None:
            program = args.npm_memory.resolve() / "node_modules" / ".bin" / "mcp-server-memory"
            if not program.exists():
                raise SystemExit(
                    f"{program} is missing: npm install --prefix {args.npm_memory} "
                    "@modelcontextprotocol/server-memory"
                )
            # The token rides along as an argument the server ignores: leftovers are found by it.
            argvs = [[str(program), f"{token}-{i}"] for i in range(servers)]
            expected = None
        config = write_config(
            dirs.config_path(), {f"s{i:02d}": server_entry(argv) for i, argv in enumerate(argvs)}
        )
        listing = dirs.root / "servers.json"
        listing.write_text(json.dumps(argvs))
        baseline = str(BENCH_DIR / "_baseline_connect.py")
        list_json = [python, "-m", "agentty_tui", "list", "--json", "--config", str(config)]
        commands: dict[str, list[str]] = {
            "agentty list --json": list_json,
            "agentty list --json (cold cache)": list_json,
            "agentty list": [python, "-m", "agentty_tui", "list", "--config", str(config)],
            "SDK concurrent": [python, baseline, str(listing), "concurrent"],
            "SDK sequential": [python, baseline, str(listing), "sequential"],
        }
        checks = {
            "agentty list --json": _check_agentty,
            "agentty list --json (cold cache)": _check_agentty,
            "agentty list": _check_text,
            "SDK concurrent": _check_baseline,
            "SDK sequential": _check_baseline,
        }
        names = list(commands)
        # The warm cache is one folder for every run (primed here, once); the cold one is
        # emptied before each run.
        warm, cold = dirs.root / "cache-warm", dirs.root / "cache-cold"
        _run(list_json, dirs, warm)
        _run(commands["SDK concurrent"], dirs, warm)  # both sides' bytecode cached
        times: dict[str, list[float]] = {name: [] for name in names}
        cpus: dict[str, list[float]] = {name: [] for name in names}
        load_before = os.getloadavg()
        orphans = dict.fromkeys(names, 0)
        kind = "npm server-memory" if args.npm_memory else f"scalable_server.py x {tools} tools"
        print(
            f"connect fan-out: {servers} stdio servers ({kind}), "
            f"{rounds} interleaved rounds (+{1 if not args.quick else 0} warm-up)"
        )
        warmup = 0 if args.quick else 1
        for round_index in range(1 - warmup, rounds + 1):
            shift = round_index % len(names)
            order = names[shift:] + names[:shift]
            for name in order:
                shutil.rmtree(cold, ignore_errors=True)
                cache = cold if name == "agentty list --json (cold cache)" else warm
                elapsed, cpu, output = _run(commands[name], dirs, cache)
                checks[name](output, servers, expected)
                if round_index > 0:
                    times[name].append(elapsed)
                    cpus[name].append(cpu)
                # Every command must have stopped its servers before it exited.
                orphans[name] += len(pids_with_marker(token))
            label = "warm-up" if round_index == 0 else f"round {round_index}/{rounds}"
            print(f"  {label} done", flush=True)

        load_after = os.getloadavg()

    summary = {name: stats(sample) for name, sample in times.items()}
    cpu_summary = {name: stats(sample) for name, sample in cpus.items()}
    cpu_base = cpu_summary["SDK concurrent"].median
    base = summary["SDK concurrent"].median
    rows = [
        [
            name,
            s.n,
            ms(s.median),
            ms(s.p90),
            ms(s.iqr),
            ms(s.minimum),
            ms(s.maximum),
            ratio(s.median, base),
        ]
        for name, s in summary.items()
    ]
    print_table(
        "wall time from spawn to exit (ms)",
        ["command", "n", "median", "p90", "IQR", "min", "max", "/ SDK concurrent"],
        rows,
    )
    print_table(
        "CPU time of the process tree, user + system, servers included (ms)",
        ["command", "n", "median", "IQR", "min", "max", "/ SDK concurrent"],
        [
            [
                name,
                s.n,
                ms(s.median),
                ms(s.iqr),
                ms(s.minimum),
                ms(s.maximum),
                ratio(s.median, cpu_base),
            ]
            for name, s in cpu_summary.items()
        ],
    )
    # Per-round ratios (each pair measured back to back) as a spread of the headline ratio.
    per_round = [
        a / b for a, b in zip(times["agentty list --json"], times["SDK concurrent"], strict=True)
    ]
    rs = stats(per_round)
    agentty = summary["agentty list --json"].median
    headline = ratio(agentty, base)
    vs_seq = ratio(agentty, summary["SDK sequential"].median)
    print(
        f"\nagentty list --json, warm cache / SDK concurrent (medians): {headline:.3f}   "
        f"target <= {TARGET:.2f}: "
        f"{'MET' if headline <= TARGET else 'MISSED'}"
    )
    print(
        f"per-round ratio agentty / SDK concurrent: median {rs.median:.3f}, "
        f"IQR {rs.q1:.3f}-{rs.q3:.3f}, p90 {rs.p90:.3f}"
    )
    cold_cache = ratio(summary["agentty list --json (cold cache)"].median, base)
    per_round_cold = stats(
        [
            a / b
            for a, b in zip(
                times["agentty list --json (cold cache)"], times["SDK concurrent"], strict=True
            )
        ]
    )
    print(
        f"agentty list --json, cold cache / SDK concurrent (medians): {cold_cache:.3f} "
        f"(per round: median {per_round_cold.median:.3f}, "
        f"IQR {per_round_cold.q1:.3f}-{per_round_cold.q3:.3f})   target <= {TARGET:.2f}: "
        f"{'MET' if cold_cache <= TARGET else 'MISSED'}"
    )
    cpu_headline = ratio(cpu_summary["agentty list --json"].median, cpu_base)
    cpu_extra = cpu_summary["agentty list --json"].median - cpu_base
    print(
        f"agentty list --json, warm cache / SDK concurrent, CPU time (medians): "
        f"{cpu_headline:.3f} ({ms(cpu_extra):+.0f} ms)   target <= {TARGET:.2f}: "
        f"{'MET' if cpu_headline <= TARGET else 'MISSED'}"
    )
    print(
        "load average (1, 5, 15 min) before: "
        + ", ".join(f"{x:.1f}" for x in load_before)
        + "; after: "
        + ", ".join(f"{x:.1f}" for x in load_after)
    )
    text = ratio(summary["agentty list"].median, base)
    print(f"agentty list (no token counts) / SDK concurrent (medians): {text:.3f}")
    print(f"agentty / SDK sequential (medians): {vs_seq:.3f}")
    print(f"servers still running right after a command exited: {orphans}")
    leftovers = report_leftovers(token)

    if not args.quick and (not custom or args.npm_memory):
        results: dict[str, Any] = {
            "servers": servers,
            "tools_per_server": tools,
            "server": "npm server-memory" if args.npm_memory else "scalable_server.py",
            "rounds": rounds,
            "stats_seconds": {name: s.as_dict() for name, s in summary.items()},
            "samples_seconds": times,
            "cpu_stats_seconds": {name: s.as_dict() for name, s in cpu_summary.items()},
            "cpu_samples_seconds": cpus,
            "ratio_cpu_agentty_vs_concurrent": cpu_headline,
            "load_average_before": load_before,
            "load_average_after": load_after,
            "ratio_agentty_vs_concurrent": headline,
            "per_round_ratio": rs.as_dict(),
            "ratio_agentty_vs_sequential": vs_seq,
            "ratio_text_list_vs_concurrent": text,
            "ratio_cold_cache_vs_concurrent": cold_cache,
            "per_round_ratio_cold_cache": per_round_cold.as_dict(),
            "target": TARGET,
            "met": headline <= TARGET,
            "servers_alive_after_exit": orphans,
            "leftover_processes": leftovers,
        }
        write_results("connect_npm_memory" if args.npm_memory else "connect", results)
    return 1 if leftovers else 0


if __name__ == "__main__":
    raise SystemExit(main())
