"""Memory of the picker: 5,000 tools against the empty picker, and per connected server.

Every measurement is a fresh child process (this script with ``--child MODE``) that runs the
real ``PickerApp`` headless (120 x 40) until every row is on screen and painted, collects
garbage, then reads its resident memory (``VmRSS``, and the peak ``VmHWM``) from
``/proc/self/status``. Modes, interleaved over R rounds (order rotating):

- **empty picker**: a static source with no servers;
- **5,000 tools**: a static source with 50 servers x 100 tools (no processes);
- **bridge, no servers**: a ``Bridge`` over an empty config;
- **starting picker, no servers**: the picker's own source (``bridge/starting.StartingSource``,
  as ``run_picker`` runs it) over an empty config, once it waits for something to need the
  bridge (it has nothing to connect: no SDK imported);
- **bridge, S servers**: a ``Bridge`` over S real ``scalable_server.py`` processes (10 tools
  each), all connected; the per-server figure is the difference over S. The servers' own
  resident memory (their processes, read from ``/proc/<pid>/status``) is reported apart.

Then where the picker's memory on an empty config goes (``_memory_breakdown.py``, a fresh
process per round): the resident memory after each step of its start, the interpreter, pydantic,
Textual, our model and config, our picker, its first frame (no SDK yet), the SDK's types, the
rest of the SDK, our bridge, the bridge up; and once under ``tracemalloc``, the Python
allocations alive at the end by package.

``python bench/bench_picker_memory.py`` (5 rounds, 10 servers) or ``--quick`` (1 round, 500 tools,
2 servers).
"""

from __future__ import annotations

import argparse
import gc
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from _common import (
    bench_dirs,
    env_for_child,
    marker,
    parse_mode,
    print_table,
    ratio,
    report_leftovers,
    server_entry,
    stats,
    write_config,
    write_results,
)

SIZE = (120, 40)
TIMEOUT = 120.0
SERVER_TOOLS = 10
TRACE_TIMEOUT = 900.0


def _status_kib(path: str, *fields: str) -> dict[str, int]:
    """``{field: kiB}`` from a ``/proc/.../status`` file."""
    found: dict[str, int] = {}
    with open(path) as handle:
        for line in handle:
            name, _, value = line.partition(":")
            if name in fields:
                found[name] = int(value.split()[0])
    return found


# --- the child ---------------------------------------------------------------------------


async def _child(mode: str, config: Path | None, servers: int, tools: int) -> dict[str, Any]:
    import anyio
    from _paint import TimedPickerApp

    from agentty_tui.config import ConfigStore
    from agentty_tui.ui.source import PluginSource

    if mode in ("empty", "tools"):  # they import the SDK's types: not for the starting picker
        from bench_picker_toggle import _static_model

        from tests.ui.fakes import StaticSource, model

    if mode in ("bridge0", "bridgeN"):  # the static sources' pickers never import the SDK
        from agentty_tui.bridge import Bridge

    async def show(source: PluginSource, rows: int) -> dict[str, Any]:
        app = TimedPickerApp(source)
        async with app.run_test(size=SIZE) as pilot:
            with anyio.fail_after(TIMEOUT):
                while len(app.picker.rows) != rows or app.probe.frames == 0:
                    await pilot.pause(0.05)
            await pilot.pause()
            gc.collect()
            memory = _status_kib("/proc/self/status", "VmRSS", "VmHWM")
            if mode in ("bridge0", "bridgeN"):
                assert isinstance(source, Bridge)
                pids = [pid for pid in source.live_pids if pid]
                memory["servers_rss"] = sum(
                    _status_kib(f"/proc/{pid}/status", "VmRSS").get("VmRSS", 0) for pid in pids
                )
                memory["servers"] = len(pids)
            return memory

    if mode == "empty":
        return await show(StaticSource(model()), 0)
    if mode == "starting0":
        from agentty_tui.bridge.starting import StartingSource
        from agentty_tui.config.workspace import Workspace

        assert config is not None
        source = StartingSource(Workspace.of_file(config))
        source.load()
        frame = anyio.Event()
        frame.set()
        async with anyio.create_task_group() as group:
            group.start_soon(source.run, frame)
            with anyio.fail_after(TIMEOUT):
                await source.idle.wait()
            memory = await show(source, 0)
            memory["sdk_imported"] = "mcp" in sys.modules
            source.close()
        return memory
    if mode == "tools":
        return await show(StaticSource(_static_model(servers, tools)), servers * (tools + 1))
    assert config is not None
    async with Bridge(ConfigStore(config), log_dir=config.parent / "logs") as bridge:
        snapshot = await bridge.settled(TIMEOUT)
        if any(s.status != "connected" for s in snapshot.servers):
            raise RuntimeError("servers not connected")
        rows = sum(1 + len(s.tools) for s in snapshot.servers)
        return await show(bridge, rows)


def _run_child(args: argparse.Namespace) -> int:
    import anyio

    config = Path(args.config) if args.config else None
    result = anyio.run(_child, args.child, config, args.servers, args.tools)
    print(json.dumps(result))
    return 0


# --- the parent --------------------------------------------------------------------------


def _measure(
    mode: str, env: dict[str, str], config: Path | None, servers: int, tools: int
) -> dict[str, Any]:
    command = [
        sys.executable,
        __file__,
        "--child",
        mode,
        "--servers",
        str(servers),
        "--tools",
        str(tools),
    ]
    if config is not None:
        command += ["--config", str(config)]
    done = subprocess.run(
        command, env=env, capture_output=True, text=True, timeout=TIMEOUT + 60, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"child {mode} failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _breakdown(env: dict[str, str], config: Path, rounds: int) -> dict[str, Any]:
    """``_memory_breakdown.py`` on ``config``: each step's resident memory over ``rounds``
    fresh processes, then one process under ``tracemalloc``."""
    script = str(Path(__file__).parent / "_memory_breakdown.py")

    def one(*extra: str) -> dict[str, Any]:
        done = subprocess.run(
            [sys.executable, script, str(config), *extra],
            env=env,
            capture_output=True,
            text=True,
            timeout=TRACE_TIMEOUT,  # tracemalloc slows every allocation
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"the breakdown failed:\n{done.stderr[-3000:]}")
        found: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        return found

    runs = [one()["steps"] for _ in range(rounds)]
    labels = [label for label, _ in runs[0]]
    steps = {label: stats([run[i][1] for run in runs]).median for i, label in enumerate(labels)}
    return {"steps": steps, "traced_kib": one("--trace")["traced_kib"]}


def _print_breakdown(breakdown: dict[str, Any]) -> None:
    steps: dict[str, float] = breakdown["steps"]
    rows = []
    before = 0.0
    for label, kib in steps.items():
        rows.append([label, kib / 1024, (kib - before) / 1024])
        before = kib
    print_table(
        "the picker on an empty config, step by step (VmRSS, MiB, medians)",
        ["after", "VmRSS", "added"],
        rows,
    )
    traced: dict[str, int] = breakdown["traced_kib"]
    total = sum(traced.values())
    top = list(traced.items())[:12]
    rest = total - sum(kib for _, kib in top)
    print_table(
        f"Python allocations alive in it, by package (tracemalloc, {total / 1024:.1f} MiB)",
        ["package", "MiB"],
        [[name, kib / 1024] for name, kib in top] + [["the rest", rest / 1024]],
    )


def _extra(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--config", help=argparse.SUPPRESS)
    parser.add_argument("--servers", type=int, default=50, help=argparse.SUPPRESS)
    parser.add_argument("--tools", type=int, default=100, help=argparse.SUPPRESS)


def main() -> int:
    args = parse_mode(__doc__ or "", _extra)
    if args.child:
        return _run_child(args)
    # The parent's alone: ``tests.servers`` imports the SDK, which a child must not have.
    from tests.servers import scalable_argv

    rounds, tool_servers, tools, live = (1, 5, 100, 2) if args.quick else (5, 50, 100, 10)
    token = marker("picker-memory")
    labels = {
        "empty": "empty picker",
        "tools": f"{tool_servers * tools:,} tools",
        "bridge0": "bridge, no servers",
        "starting0": "starting picker, no servers",
        "bridgeN": f"bridge, {live} servers",
    }
    print(
        f"picker memory: {rounds} rounds of fresh processes; {tool_servers} x {tools} tools; "
        f"{live} live servers x {SERVER_TOOLS} tools"
    )
    samples: dict[str, list[dict[str, Any]]] = {mode: [] for mode in labels}
    with bench_dirs("picker-memory") as dirs:
        env = env_for_child(dirs)
        empty_config = write_config(dirs.config_path("empty.json"), {})
        live_config = write_config(
            dirs.config_path("live.json"),
            {
                f"s{i:02d}": server_entry(scalable_argv(SERVER_TOOLS, name=f"{token}-{i}"))
                for i in range(live)
            },
        )
        (dirs.root / "logs").mkdir(exist_ok=True)
        plan: list[tuple[str, Path | None, int, int]] = [
            ("empty", None, 0, 0),
            ("tools", None, tool_servers, tools),
            ("bridge0", empty_config, 0, 0),
            ("starting0", empty_config, 0, 0),
            ("bridgeN", live_config, 0, 0),
        ]
        for number in range(rounds):
            shift = number % len(plan)
            for mode, config, servers, count in plan[shift:] + plan[:shift]:
                samples[mode].append(_measure(mode, env, config, servers, count))
            print(f"  round {number + 1}/{rounds}", flush=True)
        breakdown = _breakdown(env, empty_config, rounds)
    leftovers = report_leftovers(token)

    def median_mib(mode: str, field: str) -> float:
        return stats([s[field] / 1024 for s in samples[mode]]).median

    rss = {mode: median_mib(mode, "VmRSS") for mode in labels}
    hwm = {mode: median_mib(mode, "VmHWM") for mode in labels}
    spread = {mode: stats([s["VmRSS"] / 1024 for s in samples[mode]]) for mode in labels}
    print_table(
        "resident memory of the picker process (MiB, medians)",
        ["picker", "n", "VmRSS", "IQR", "VmHWM (peak)", "over the empty picker"],
        [
            [
                labels[mode],
                spread[mode].n,
                rss[mode],
                spread[mode].iqr,
                hwm[mode],
                rss[mode] - rss["empty"],
            ]
            for mode in labels
        ],
    )
    tools_delta = rss["tools"] - rss["empty"]
    per_tool_kib = tools_delta * 1024 / (tool_servers * tools)
    per_server = (rss["bridgeN"] - rss["bridge0"]) / live
    server_rss = stats([s["servers_rss"] / 1024 / max(1, s["servers"]) for s in samples["bridgeN"]])
    print_table(
        "derived",
        ["figure", "value"],
        [
            [f"{tool_servers * tools:,} tools over the empty picker (MiB)", tools_delta],
            ["per tool (KiB)", per_tool_kib],
            [f"ratio {labels['tools']} / empty picker (RSS)", ratio(rss["tools"], rss["empty"])],
            ["per connected server, in the picker process (MiB)", per_server],
            ["per server process, its own RSS (MiB, not the picker's)", server_rss.median],
            [
                "starting picker, no servers, against a bridge over the same (MiB)",
                rss["starting0"] - rss["bridge0"],
            ],
            [
                "starting picker, no servers: SDK imported (runs)",
                sum(bool(s.get("sdk_imported")) for s in samples["starting0"]),
            ],
        ],
    )
    _print_breakdown(breakdown)
    if not args.quick:
        write_results(
            "picker_memory",
            {
                "rounds": rounds,
                "tools": tool_servers * tools,
                "live_servers": live,
                "tools_per_live_server": SERVER_TOOLS,
                "rss_mib_median": rss,
                "hwm_mib_median": hwm,
                "tools_over_empty_mib": tools_delta,
                "per_tool_kib": per_tool_kib,
                "per_server_mib": per_server,
                "server_process_rss_mib": server_rss.median,
                "samples_kib": samples,
                "empty_config_steps_kib": breakdown["steps"],
                "empty_config_traced_kib": breakdown["traced_kib"],
                "leftover_processes": leftovers,
            },
        )
    return 1 if leftovers else 0


if __name__ == "__main__":
    raise SystemExit(main())
