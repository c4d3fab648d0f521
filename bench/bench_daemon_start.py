"""The shared gateway's cold start: ``serve --shared`` with no daemon running, to the first
``tools/list`` answer, this checkout against another (``--baseline-tree``) in the same rounds.

A host (the mcp SDK's client, in this process) starts ``python -m agentty_tui serve --shared``
on a config of N stdio servers, with a runtime folder of its own, so no daemon runs: the relay
starts the user's daemon, attaches, and the daemon starts the workspace's servers. Timed from
the moment the client spawns ``serve --shared`` to the answer of its first ``tools/list``
(every server's tools in it: the gateway waits for them). Between runs the daemon leaves (its
idle time 0.3 s) and takes its servers with it.

Since issue 25 the daemon starts the workspace's stdio servers before it imports the SDK
(``gateway/daemon/process.py``, ``bridge/early.py``); ``--baseline-tree DIR`` (a
``git archive`` of an earlier commit) runs that checkout's ``serve --shared`` in the same
rounds, for a before and after. The order of the two rotates each round.

``python bench/bench_daemon_start.py [--baseline-tree DIR] [--npm-memory PREFIX]`` (10 servers,
10 rounds after a warm-up) or ``--quick``; ``--npm-memory PREFIX`` runs the npm reference server
``@modelcontextprotocol/server-memory`` (``npm install --prefix PREFIX
@modelcontextprotocol/server-memory``) instead of ``light_plain_server.py``.
"""

from __future__ import annotations

import argparse
import compileall
import os
import sys
import time
from pathlib import Path
from typing import Any

import anyio
from _common import (
    REPO_ROOT,
    BenchDirs,
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
from mcp import Client, StdioServerParameters

from agentty_tui.gateway.rendezvous import rendezvous
from tests.servers import plain_argv

ROUND_TIMEOUT = 120.0


async def cold_start(config: Path, dirs: BenchDirs, tree: Path, run: int) -> tuple[float, int]:
    """Seconds from spawning ``serve --shared`` (no daemon running) to its first
    ``tools/list`` answer, and the number of tools in it; returns once the daemon left."""
    env = env_for_child(dirs)
    runtime = dirs.root / f"run-{run}"
    runtime.mkdir(mode=0o700)
    env["XDG_RUNTIME_DIR"] = str(runtime)
    env["AGENTTY_GATEWAY_IDLE"] = "0.3"
    env["PYTHONPATH"] = str(tree)
    argv = ["-m", "agentty_tui", "serve", "--shared", "--config", str(config)]
    params = StdioServerParameters(command=sys.executable, args=argv, env=env, cwd=str(tree))
    with anyio.fail_after(ROUND_TIMEOUT):
        start = time.perf_counter()
        async with Client(params, mode="legacy", cache=None) as client:
            listed = await client.list_tools()
            elapsed = time.perf_counter() - start
        place = rendezvous(env)
        while place.socket.exists():  # noqa: ASYNC110 - only the file says the daemon left
            await anyio.sleep(0.05)
    return elapsed, len(listed.tools)


def _options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--baseline-tree", type=Path, help="another checkout, measured too")
    parser.add_argument("--rounds", type=int, help="override the number of rounds")
    parser.add_argument("--servers", type=int, help="override the number of servers")
    parser.add_argument(
        "--npm-memory",
        type=Path,
        metavar="PREFIX",
        help="run @modelcontextprotocol/server-memory installed under PREFIX (npm --prefix)",
    )


async def main() -> int:
    args = parse_mode(__doc__ or "", _options)
    servers, rounds = (2, 1) if args.quick else (10, 10)
    servers = args.servers or servers
    rounds = args.rounds or rounds
    token = marker("daemon-start")
    trees = {"this checkout": REPO_ROOT}
    if args.baseline_tree is not None:
        trees["baseline"] = args.baseline_tree.resolve()
    for tree in trees.values():  # both with their bytecode cached, as installed
        compileall.compile_dir(tree / "agentty_tui", quiet=1)
    names = list(trees)
    times: dict[str, list[float]] = {name: [] for name in names}
    with bench_dirs("daemon-start") as dirs:
        argvs = [plain_argv("--name", f"{token}-{i}") for i in range(servers)]
        if args.npm_memory is not None:
            program = args.npm_memory.resolve() / "node_modules" / ".bin" / "mcp-server-memory"
            if not program.exists():
                raise SystemExit(f"{program} is missing")
            argvs = [[str(program), f"{token}-{i}"] for i in range(servers)]
        config = write_config(
            dirs.config_path(), {f"s{i:02d}": server_entry(argv) for i, argv in enumerate(argvs)}
        )
        kind = "npm server-memory" if args.npm_memory else "light_plain_server.py"
        warmup = 0 if args.quick else 1
        print(
            f"serve --shared cold start: {servers} stdio servers ({kind}), "
            f"{rounds} interleaved rounds (+{warmup} warm-up)"
        )
        run = 0
        expected: int | None = None
        for round_index in range(1 - warmup, rounds + 1):
            shift = round_index % len(names)
            for name in names[shift:] + names[:shift]:
                run += 1
                elapsed, tools = await cold_start(config, dirs, trees[name], run)
                if expected is None:
                    expected = tools
                if tools != expected or not tools:
                    raise RuntimeError(f"{name} listed {tools} tools, not {expected}")
                if round_index > 0:
                    times[name].append(elapsed)
            label = "warm-up" if round_index == 0 else f"round {round_index}/{rounds}"
            print(f"  {label} done", flush=True)
    summary = {name: stats(sample) for name, sample in times.items()}
    base = summary[names[-1]].median
    print_table(
        "serve --shared started to its first tools/list answer (ms)",
        ["tree", "n", "median", "p90", "IQR", "min", "max", f"/ {names[-1]}"],
        [
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
        ],
    )
    if len(names) == 2:
        per_round = stats([a / b for a, b in zip(*times.values(), strict=True)])
        print(
            f"per-round ratio this / baseline: median {per_round.median:.3f}, "
            f"IQR {per_round.q1:.3f}-{per_round.q3:.3f}"
        )
    leftovers = report_leftovers(token)
    if not args.quick:
        results: dict[str, Any] = {
            "servers": servers,
            "server": kind,
            "rounds": rounds,
            "trees": {name: str(tree) for name, tree in trees.items()},
            "stats_seconds": {name: s.as_dict() for name, s in summary.items()},
            "samples_seconds": times,
            "leftover_processes": leftovers,
        }
        write_results("daemon_start", results)
    return 1 if leftovers else 0


if __name__ == "__main__":
    os.chdir(REPO_ROOT)
    raise SystemExit(anyio.run(main))
