"""The token budget's start with the counts kept by an earlier run (issue 25).

Each run is a fresh process (interpreter start-up and imports included), timed from spawn to
exit, with the CPU time of its process tree (``getrusage(RUSAGE_CHILDREN)`` around it):

- **picker**: the picker (``PickerApp`` over a static source, headless, its token column on)
  on 5,000 tools (50 servers x 100) with a ``toolTokenBudget`` that trims about half, until
  its catalog carries the token budget; the process then exits. With every count kept (warm:
  the budget applies from the first projection, the encoding is never loaded) and with none
  kept (cold: an empty ``$XDG_CACHE_HOME``; the first frame has the count budget alone, a
  worker loads the encoding, then the budget applies);
- **catalog --token-budget**: ``agentty-tui catalog --token-budget N --json`` over 5 stdio
  servers (``scalable_server.py`` x 20 tools), warm.

``--baseline-tree DIR`` runs the same in another checkout (``git archive`` of an earlier
commit) in the same rounds, with the same warm cache: before against after. Rounds are
interleaved, the order rotating, after one discarded warm-up run of each; every child runs
with its bytecode cached, as an installed program does.

``python bench/bench_budget_start.py [--baseline-tree DIR]`` (8 rounds) or ``--quick``
(1,000 tools, 2 rounds).
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
    timed_command,
    with_cached_bytecode,
    write_config,
    write_results,
)

from tests.servers import scalable_argv

RUN_TIMEOUT = 180.0

# Run as ``python -c`` in the tree measured (its own ``agentty_tui`` and ``tests.ui.fakes``).
PICKER = """
import json
import sys

import anyio

from agentty_tui.catalog import project_catalog
from agentty_tui.model import PluginModel, ServerState, StdioSpec, ToolState
from agentty_tui.ui.app import PickerApp
from tests.ui.fakes import StaticSource

total = int(sys.argv[1])
servers = []
for s in range(total // 100):
    tools = tuple(
        ToolState(
            bare=f"tool_{s}_{t:03d}",
            enabled=True,
            description=f"Tool number {s * 100 + t}: reads the resource it is named after.",
            input_schema={"type": "object", "properties": {"path": {"type": "string"}}},
        )
        for t in range(100)
    )
    servers.append(
        ServerState(name=f"server-{s:03d}", spec=StdioSpec(command="x"), status="connected",
                    tools=tools)
    )
model = PluginModel(servers=tuple(servers), tool_budget=total + 100)
if sys.argv[2] == "prime":
    from agentty_tui.catalog import TOKEN_COUNTER
    everything = project_catalog(model, token_budget=10**9).tokens_shipped
    TOKEN_COUNTER.save()
    print(json.dumps({"everything": everything}))
    raise SystemExit(0)
budget = int(sys.argv[2])
app = PickerApp(StaticSource(model.model_copy(update={"tool_token_budget": budget})),
                count_tokens=True)
first = app.catalog.token_budget is not None


async def run() -> None:
    async with app.run_test() as pilot:
        with anyio.fail_after(120):
            while app.catalog.token_budget is None:
                await pilot.pause(0.01)


anyio.run(run)
print(json.dumps({"first": first, "trimmed": len(app.catalog.trimmed),
                  "tokenizer": "quicktok" in sys.modules}))
"""


def _run(argv: list[str], tree: Path, dirs: BenchDirs, cache: Path) -> tuple[float, float, str]:
    """Wall and process-tree CPU seconds of one command run in ``tree``, and its stdout."""
    env = with_cached_bytecode(env_for_child(dirs), dirs)
    env["XDG_CACHE_HOME"] = str(cache)
    env["PYTHONPATH"] = str(tree)
    return timed_command(argv, env, tree, RUN_TIMEOUT)


def _options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--baseline-tree", type=Path, help="another checkout measured in the same rounds"
    )
    parser.add_argument("--rounds", type=int, help="override the number of rounds")


def main() -> int:
    args = parse_mode(__doc__ or "", _options)
    total, rounds = (1_000, 2) if args.quick else (5_000, 8)
    rounds = args.rounds or rounds
    baseline: Path | None = args.baseline_tree.resolve() if args.baseline_tree else None
    python = sys.executable
    token = marker("budget")
    with bench_dirs("budget") as dirs:
        warm, cold = dirs.root / "cache-warm", dirs.root / "cache-cold"
        _, _, primed = _run([python, "-c", PICKER, str(total), "prime"], REPO_ROOT, dirs, warm)
        budget = json.loads(primed)["everything"] // 2
        argvs = [scalable_argv(20, name=f"{token}-{i}") for i in range(5)]
        config = write_config(
            dirs.config_path(), {f"s{i}": server_entry(argv) for i, argv in enumerate(argvs)}
        )
        catalog = [python, "-m", "agentty_tui", "catalog", "--json", "--config", str(config)]
        catalog += ["--token-budget", "3000"]
        _run(catalog, REPO_ROOT, dirs, warm)  # its counts kept too
        picker = [python, "-c", PICKER, str(total), str(budget)]
        runs: dict[str, tuple[list[str], Path, Path]] = {
            "picker, warm": (picker, REPO_ROOT, warm),
            "picker, cold": (picker, REPO_ROOT, cold),
            "catalog --token-budget, warm": (catalog, REPO_ROOT, warm),
        }
        if baseline is not None:
            runs["baseline picker, warm"] = (picker, baseline, warm)
            runs["baseline catalog --token-budget, warm"] = (catalog, baseline, warm)
        names = list(runs)
        for argv, tree, cache in runs.values():  # a discarded warm-up: every bytecode cached
            shutil.rmtree(cold, ignore_errors=True)
            _run(argv, tree, dirs, cache)
        walls: dict[str, list[float]] = {name: [] for name in names}
        cpus: dict[str, list[float]] = {name: [] for name in names}
        outputs: dict[str, Any] = {}
        load_before = os.getloadavg()
        print(f"token budget start: {total:,} tools in the picker, {rounds} interleaved rounds")
        for index in range(rounds):
            shift = index % len(names)
            for name in names[shift:] + names[:shift]:
                argv, tree, cache = runs[name]
                shutil.rmtree(cold, ignore_errors=True)
                wall, cpu, out = _run(argv, tree, dirs, cache)
                walls[name].append(wall)
                cpus[name].append(cpu)
                if name.endswith("picker, warm") or name == "picker, cold":
                    outputs[name] = json.loads(out.splitlines()[-1])
            print(f"  round {index + 1}/{rounds} done", flush=True)
        load_after = os.getloadavg()
    wall_stats = {name: stats(v) for name, v in walls.items()}
    cpu_stats = {name: stats(v) for name, v in cpus.items()}
    print_table(
        "spawn to exit: wall and process-tree CPU (ms, medians)",
        ["run", "n", "wall", "wall min", "CPU", "CPU min", "picker: at first projection"],
        [
            [
                name,
                wall_stats[name].n,
                ms(wall_stats[name].median),
                ms(wall_stats[name].minimum),
                ms(cpu_stats[name].median),
                ms(cpu_stats[name].minimum),
                _said(outputs.get(name)),
            ]
            for name in names
        ],
    )
    ratios: dict[str, float] = {}
    pairs = [("picker, warm", "picker, cold")]
    if baseline is not None:
        pairs += [
            ("picker, warm", "baseline picker, warm"),
            ("catalog --token-budget, warm", "baseline catalog --token-budget, warm"),
        ]
    for new, old in pairs:
        wall = ratio(wall_stats[new].median, wall_stats[old].median)
        cpu = ratio(cpu_stats[new].median, cpu_stats[old].median)
        saved = cpu_stats[old].median - cpu_stats[new].median
        ratios[f"{new} / {old}"] = cpu
        print(
            f"{new} / {old}: wall {wall:.3f}, CPU {cpu:.3f} ({ms(-saved):+.0f} ms of CPU, medians)"
        )
    print(
        "load average (1, 5, 15 min) before: "
        + ", ".join(f"{x:.1f}" for x in load_before)
        + "; after: "
        + ", ".join(f"{x:.1f}" for x in load_after)
    )
    leftovers = report_leftovers(token)
    if not args.quick:
        write_results(
            "budget_start",
            {
                "tools": total,
                "rounds": rounds,
                "token_budget": budget,
                "baseline_tree": str(baseline) if baseline else None,
                "wall_seconds": {k: v.as_dict() for k, v in wall_stats.items()},
                "cpu_seconds": {k: v.as_dict() for k, v in cpu_stats.items()},
                "cpu_ratios": ratios,
                "picker_runs": outputs,
                "load_average_before": load_before,
                "load_average_after": load_after,
            },
        )
    return 1 if leftovers else 0


def _said(output: dict[str, Any] | None) -> str:
    """What a picker run printed: whether its first projection had the token budget, and
    whether it imported the tokenizer."""
    if output is None:
        return ""
    first = "budget applied" if output["first"] else "count budget alone"
    return f"{first}; tokenizer {'loaded' if output['tokenizer'] else 'not imported'}"


if __name__ == "__main__":
    raise SystemExit(main())
