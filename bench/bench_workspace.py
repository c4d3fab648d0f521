"""The workspace against one file: the picker's start-up, loading, and outside edits live.

A fake home and project (``tests/fake_home.py``) with eight sources (our user file, Claude
Code's user and local scopes in ``~/.claude.json``, Cursor, Gemini CLI and Codex user files,
the project's ``.mcp.json`` and ``.vscode/mcp.json``: seven files), S servers in each, every one
a real subprocess of 10 tools; the one-file side is one ``mcpServers`` file holding the same
servers (``FakeHome.single_file``). The servers are ``tests/servers/light_server.py`` (no SDK,
tens of ms to start): 40 SDK servers cost about 40 s of CPU to import mcp, so on 2 shared
cores many miss the 30 s connect timeout and the settle would time the imports, not the
config (``--sdk-servers`` runs ``scalable_server.py`` anyway). The project servers were
trusted once beforehand, on disk (``Workspace.trust``), as a user who has trusted them finds
them: both sides start all their servers.

1. **Start-up**, interleaved round by round (order alternating, a warm-up round first): from
   opening the config (``open_workspace`` as the command line does without ``--config``, or
   ``ConfigStore``) to

   - the bridge's first published snapshot that lists every server (all ``connecting``);
   - the real ``PickerApp``'s first full frame (its status bar, "... on the wire", painted;
     the app runs in this process under Textual's pilot with ``_paint.py``'s driver, which
     renders every frame to terminal text as for a real terminal);
   - the bridge's first snapshot with every server connected (``settled``);
   - the first frame that shows them all connected ("N connected · ...").

   Medians and the ratio workspace / one file for each (target <= 1.10 for the first frame and
   the settle). The heap is not frozen (``freeze_heap=False``): runs follow each other in one
   process.
2. **Loading alone**, what the workspace adds: ``Workspace.load()`` (every source read, parsed
   and layered, trust looked up), ``open_workspace(...)`` followed by ``load()``, against
   ``ConfigStore(one).load()``; blocks of calls, interleaved, per-call medians and the ratios.
3. **Outside edits** (``_workspace_edits.py``): with the live reload running (``Bridge.watch``
   beside the picker, as ``run_picker`` has it), one server's entry is rewritten in its file
   (its ``--name`` argument: a new connection), by a rename or in place, alternately; timed
   from the write until the snapshots hold the new entry (``reloaded``: debounce, watcher and
   load), until it is connected on a new process (``connected``), and until the picker's frame
   shows every server connected again with that one on its new entry (``on screen``); the
   edits round the six user and local sources (an edited project entry waits for trust again,
   by design). Also: processes restarted and live reloads run per edit (both must be 1). The
   same edits of the one file are the reference.

``python bench/bench_workspace.py`` (8 sources x 5 servers = 40, 10 rounds, 50 blocks of 20
loads, 40 edits on each side; ``--rounds``, ``--edits`` for ad-hoc runs) or ``--quick`` (8
sources x 1 server, 4 rounds, no warm-up, 10 blocks of 5 loads, 6 edits on each side).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from _common import (
    BenchDirs,
    Stats,
    bench_dirs,
    marker,
    ms,
    parse_mode,
    pids_with_marker,
    poll_until,
    print_table,
    ratio,
    report_leftovers,
    stats,
    write_results,
)
from _paint import TimedPickerApp
from _workspace import (
    EIGHT,
    RUN_TIMEOUT,
    SIDES,
    SIZE,
    TOOLS,
    FramePredicate,
    all_connected,
    build,
    opener,
    running_picker,
)
from _workspace_edits import EDITABLE, edit_plan, edit_rounds, report_edits

from agentty_tui.config import ConfigStore
from agentty_tui.config.workspace import Workspace, open_workspace
from agentty_tui.model import PluginModel
from tests.fake_home import FakeHome

TARGET = 1.10
PAINT_TIMEOUT = 30.0
MILESTONES = ("first snapshot", "first frame", "settled", "settled frame")
ONE_LOAD = "ConfigStore(one).load()"
WORKSPACE_LOAD = "Workspace.load()"
OPEN_LOAD = "open_workspace() + load()"


async def start_once(
    open_config: Callable[[], Workspace], servers: int, dirs: BenchDirs
) -> dict[str, float]:
    """One start: config opened, bridge entered, live reload and picker started, until the
    picker shows every server connected; each milestone's time from the start."""
    stamps: dict[str, float] = {}
    complete = all_connected(servers)

    def on_snapshot(model: PluginModel) -> None:
        now = time.perf_counter()
        if "first snapshot" not in stamps and len(model.servers) == servers:
            stamps["first snapshot"] = now
        if "settled" not in stamps and complete(model):
            stamps["settled"] = now

    def expect(app: TimedPickerApp) -> dict[str, FramePredicate]:
        return {
            "first frame": lambda text: "on the wire" in text,
            "settled frame": lambda text: complete(app.model) and f"{servers} connected · " in text,
        }

    start = time.perf_counter()
    async with running_picker(open_config(), dirs, on_snapshot, expect) as (bridge, _, probe):
        model = await bridge.settled(RUN_TIMEOUT)
        if not complete(model):
            bad = [f"{s.name}: {s.status} {s.error}" for s in model.servers]
            raise RuntimeError(f"not every server connected: {bad}")
        with anyio.fail_after(PAINT_TIMEOUT):
            await probe.all_seen.wait()
    stamps.update(probe.stamps)
    return {name: stamps[name] - start for name in MILESTONES}


async def start_rounds(
    fake: FakeHome,
    one: Path,
    servers: int,
    rounds: int,
    warmup: bool,
    dirs: BenchDirs,
    token: str,
) -> dict[str, dict[str, list[float]]]:
    """``rounds`` interleaved starts of each side (after a ``warmup`` of each, discarded)."""
    samples: dict[str, dict[str, list[float]]] = {
        side: {name: [] for name in MILESTONES} for side in SIDES
    }
    for number in range(0 if warmup else 1, rounds + 1):
        order = SIDES if number % 2 else SIDES[::-1]
        for side in order:
            times = await start_once(opener(side, fake, one), servers, dirs)
            # The next start should not share the machine with the last one's dying servers.
            if not await poll_until(lambda: not pids_with_marker(token), 30.0):
                raise RuntimeError("servers of the previous start are still running")
            if number:
                for name, value in times.items():
                    samples[side][name].append(value)
        label = " (warm-up)" if number == 0 else ""
        print(f"  round {number}/{rounds}{label} done", flush=True)
    return samples


def load_blocks(fake: FakeHome, one: Path, blocks: int, per_block: int) -> dict[str, list[float]]:
    """Per-call seconds of each way of loading, one sample per block, interleaved."""
    workspace = open_workspace(fake.cwd, home=fake.home, env=fake.env)
    store = ConfigStore(one)
    ways: dict[str, Callable[[], object]] = {
        ONE_LOAD: store.load,
        WORKSPACE_LOAD: workspace.load,
        OPEN_LOAD: lambda: open_workspace(fake.cwd, home=fake.home, env=fake.env).load(),
    }
    for call in ways.values():  # warm-up: file caches, imports, pydantic's first validations
        call()
    samples: dict[str, list[float]] = {name: [] for name in ways}
    names = list(ways)
    for number in range(blocks):
        for name in names[number % len(names) :] + names[: number % len(names)]:
            call = ways[name]
            start = time.perf_counter()
            for _ in range(per_block):
                call()
            samples[name].append((time.perf_counter() - start) / per_block)
    return samples


def report_starts(
    starts: dict[str, dict[str, list[float]]], start_stats: dict[str, dict[str, Stats]]
) -> tuple[dict[str, float], dict[str, Stats]]:
    """Print the start-up table and verdicts; return the ratios of medians and per round."""
    ws, one = start_stats["workspace"], start_stats["one file"]
    ratios = {name: ratio(ws[name].median, one[name].median) for name in MILESTONES}
    per_round = {
        name: stats(
            [
                a / b
                for a, b in zip(starts["workspace"][name], starts["one file"][name], strict=True)
            ]
        )
        for name in MILESTONES
    }
    print_table(
        "open → milestone (ms)",
        ["milestone", "n", "workspace", "one file", "ratio", "per round", "p90 ws", "p90 one"],
        [
            [
                name,
                ws[name].n,
                ms(ws[name].median),
                ms(one[name].median),
                ratios[name],
                per_round[name].median,
                ms(ws[name].p90),
                ms(one[name].p90),
            ]
            for name in MILESTONES
        ],
    )
    for name in ("first frame", "settled frame"):
        verdict = "MET" if ratios[name] <= TARGET else "MISSED"
        print(
            f"\n{name}: workspace / one file (medians) {ratios[name]:.3f}, per round "
            f"{per_round[name].median:.3f}   target <= {TARGET:.2f}: {verdict}"
        )
    return ratios, per_round


def report_loads(loads: dict[str, list[float]], blocks: int, per_block: int) -> dict[str, Stats]:
    """Print the loading table and what the workspace adds; return the statistics."""
    load_stats = {name: stats(values) for name, values in loads.items()}
    baseline = load_stats[ONE_LOAD].median
    print_table(
        f"loading alone (ms per call, {blocks} blocks of {per_block})",
        ["call", "median", "p90", "IQR", "min", "/ one file"],
        [
            [name, ms(s.median), ms(s.p90), ms(s.iqr), ms(s.minimum), ratio(s.median, baseline)]
            for name, s in load_stats.items()
        ],
    )
    added = load_stats[OPEN_LOAD].median - baseline
    print(f"\nwhat opening and loading the workspace adds to a start: {ms(added):.2f} ms")
    return load_stats


def _options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rounds", type=int, help="override the number of start-up rounds")
    parser.add_argument("--edits", type=int, help="override the number of edits on each side")
    parser.add_argument(
        "--sdk-servers",
        action="store_true",
        help="start scalable_server.py (mcp SDK, about 1 s of CPU each) instead of light_server",
    )


def main() -> int:
    args = parse_mode(__doc__ or "", _options)
    sizes = (1, 4, 10, 5, 6) if args.quick else (5, 10, 50, 20, 40)
    per_source, rounds, blocks, per_block, edits = sizes
    rounds = args.rounds or rounds
    edits = args.edits or edits
    warmup = not args.quick
    servers = per_source * len(EIGHT)
    token = marker("workspace")
    print(
        f"workspace: {len(EIGHT)} sources x {per_source} servers = {servers} servers "
        f"({TOOLS} tools each) against one file with the same servers; {rounds} interleaved "
        f"rounds (+{int(warmup)} warm-up), picker {SIZE[0]}x{SIZE[1]} in this process, "
        f"{'scalable_server (mcp SDK)' if args.sdk_servers else 'light_server'} servers"
    )
    with bench_dirs("workspace") as dirs:
        fake, one = build(dirs, per_source, token, args.sdk_servers)
        loads = load_blocks(fake, one, blocks, per_block)
        starts = anyio.run(start_rounds, fake, one, servers, rounds, warmup, dirs, token)
        plan = edit_plan(edits, per_source)
        print(f"outside edits: {edits} on each side, {len(EDITABLE)} user and local sources")
        edit_samples = anyio.run(edit_rounds, fake, one, servers, plan, dirs, token)
    leftovers = report_leftovers(token)

    start_stats = {side: {n: stats(v) for n, v in starts[side].items()} for side in SIDES}
    start_ratios, per_round = report_starts(starts, start_stats)
    load_stats = report_loads(loads, blocks, per_block)
    edit_result = report_edits(edit_samples)
    if not args.quick:
        result: dict[str, Any] = {
            "sources": list(EIGHT),
            "servers": servers,
            "tools_per_server": TOOLS,
            "rounds": rounds,
            "server": "scalable_server.py" if args.sdk_servers else "light_server.py",
            "start_stats_seconds": {
                side: {name: s.as_dict() for name, s in by.items()}
                for side, by in start_stats.items()
            },
            "start_samples_seconds": starts,
            "start_ratios": start_ratios,
            "start_per_round_ratios": {name: s.as_dict() for name, s in per_round.items()},
            "load_blocks": blocks,
            "loads_per_block": per_block,
            "load_stats_seconds": {name: s.as_dict() for name, s in load_stats.items()},
            "load_samples_seconds": loads,
            "edits": {"count": edits, **edit_result},
            "target": TARGET,
            "leftover_processes": leftovers,
        }
        write_results("workspace", result)
    wrong = [
        side
        for side in SIDES
        if edit_result["per_edit_counts"][side] != {"restarts": [1], "reloads": [1]}
    ]
    return 1 if leftovers or wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
