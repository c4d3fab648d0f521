"""Toggle at scale in the picker: key press to repainted row, against a full re-population.

The real ``PickerApp`` (headless, 120 x 40, driven by Textual's pilot) shows S servers of T
tools (5,000 tools by default), from two sources, one after the other:

- **bridge**: a ``Bridge`` over S real ``scalable_server.py`` processes: a toggle is the whole
  product path (key → worker → ``tool_set_enabled``: config write, re-derive, publish →
  snapshot → catalog → rows → list → frame);
- **static**: ``tests/ui/fakes.StaticSource`` with the same servers and tools: the picker's own
  share of that path, with no config file and no servers.

Per round, interleaved: (1) the cursor is put on a tool and, once the screen is idle,
``pilot.press("space")``; timed until the first frame that shows the tool's new mark
(``[ ] tool_0042`` / ``[x] tool_0042``) has been rendered to terminal text (``_paint.py``);
(2) **full re-population**: the list emptied and every row built afresh (row memo cleared) and
shown again (``show_rows(())`` then ``refresh_rows()``: what a picker without in-place updates
does on every snapshot), timed until the first frame that shows the rows; (3) the tool switched
back the same way as (1). Medians, p95 and the ratio toggle / re-population, measured side by
side.

Target: the picker's toggle (bridge source) at most 5% of a full re-population; zero server
processes spawned during the toggles (``bridge.live_pids`` and a /proc scan).

``python bench/bench_picker_toggle.py`` (50 x 100 tools, 25 rounds: 50 toggles) or ``--quick``
(5 x 20, 4 rounds). ``--profile`` prints a pyinstrument profile of the toggles, for each source;
``--count-tokens`` runs the picker with its token counts on (``run_picker`` does).
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import anyio
from _common import (
    BenchDirs,
    GcClock,
    bench_dirs,
    marker,
    ms,
    parse_mode,
    pids_with_marker,
    print_table,
    ratio,
    report_leftovers,
    server_entry,
    stats,
    write_config,
    write_results,
)
from _paint import TimedPickerApp
from textual.pilot import Pilot

from agentty_tui.bridge import Bridge
from agentty_tui.config import ConfigStore
from agentty_tui.model import PluginModel
from agentty_tui.ui.source import PluginSource
from tests.servers import scalable_argv, scalable_tool_names
from tests.ui.fakes import StaticSource, model, server, tool

TARGET = 0.05
SIZE = (120, 40)
PAINT_TIMEOUT = 30.0
CONNECT_TIMEOUT = 240.0


def _static_model(servers: int, tools: int) -> PluginModel:
    """The same servers and tools the scalable servers advertise (names and descriptions)."""
    names = scalable_tool_names(tools)
    return model(
        *(
            server(
                f"s{i:02d}",
                *(
                    tool(bare, description=f"Scale-test tool number {j}. Returns its own name.")
                    for j, bare in enumerate(names)
                ),
            )
            for i in range(servers)
        )
    )


def _plan(servers: int, tools: int, rounds: int) -> list[tuple[str, str]]:
    """One ``(server, tool)`` per round, spread over the servers and the tools."""
    names = scalable_tool_names(tools)
    return [(f"s{(i * 7) % servers:02d}", names[(i * 37) % tools]) for i in range(rounds)]


async def _idle(pilot: Pilot[None]) -> None:
    """Let pending messages, layout and painting run out."""
    await pilot.pause()
    await pilot.pause()


@dataclass(frozen=True, slots=True)
class Timing:
    """One timed change: trigger to painted frame, and where ``show_snapshot`` fell in it."""

    total: float
    """Trigger to the first painted frame that shows the change."""
    before_snapshot: float
    """Trigger to the start of the snapshot's ``show_snapshot`` (NaN if none ran)."""
    snapshot: float
    """``show_snapshot`` itself: catalog, rows, list update, status bar (NaN if none ran)."""
    gc: float
    """Time the cyclic garbage collector ran in between."""

    @property
    def after_snapshot(self) -> float:
        """End of ``show_snapshot`` to the frame: frame pacing, layout, compositing, encoding."""
        return self.total - self.before_snapshot - self.snapshot


class Recorder:
    """What runs alongside every timed change: a GC clock, and optionally a profiler."""

    def __init__(self, profile: bool) -> None:
        self.clock = GcClock()
        self.profiler: Any = None
        if profile:
            from pyinstrument import Profiler

            self.profiler = Profiler(interval=0.0005, async_mode="disabled")


async def _timed(
    app: TimedPickerApp,
    predicate: Callable[[str], bool],
    trigger: Callable[[], object],
    recorder: Recorder,
    profiled: bool = False,
) -> Timing:
    """Time from just before ``trigger()`` to the first painted frame satisfying ``predicate``."""
    event = app.probe.arm(predicate)
    profiler = recorder.profiler if profiled else None
    recorder.clock.reset()
    if profiler is not None:
        profiler.start()
    start = time.perf_counter()
    result = trigger()
    if isinstance(result, Awaitable):
        await result
    with anyio.fail_after(PAINT_TIMEOUT):
        await event.wait()
    if profiler is not None:
        profiler.stop()
    gc_time = recorder.clock.reset()
    painted = app.probe.painted_at
    assert painted is not None
    span = app.last_snapshot_between(start, painted)
    if span is None:
        return Timing(painted - start, math.nan, math.nan, gc_time)
    return Timing(painted - start, span[0] - start, span[1] - span[0], gc_time)


async def _toggle(
    app: TimedPickerApp, pilot: Pilot[None], server: str, bare: str, recorder: Recorder
) -> Timing:
    if not app.picker.select_key(("tool", server, bare)):
        raise RuntimeError(f"no row for {server}/{bare}")
    await _idle(pilot)
    row = app.picker.current_row
    assert row is not None and row.tool == bare
    mark = "[ ]" if row.enabled else "[x]"
    return await _timed(
        app, lambda text: f"{mark} {bare}" in text, lambda: pilot.press("space"), recorder, True
    )


async def _repopulate(
    app: TimedPickerApp, pilot: Pilot[None], first_tool: str, recorder: Recorder
) -> Timing:
    app.picker.select_key(("tool", "s00", first_tool))
    await _idle(pilot)
    row = app.picker.current_row
    assert row is not None and row.tool == first_tool
    mark = "[x]" if row.enabled else "[ ]"

    def repopulate() -> None:
        app._row_memo.clear()
        app.picker.show_rows(())
        app.refresh_rows()

    return await _timed(app, lambda text: f"{mark} {first_tool}" in text, repopulate, recorder)


async def _drive(
    source: PluginSource,
    rows_expected: int,
    plan: list[tuple[str, str]],
    first_tool: str,
    profile: bool = False,
    count_tokens: bool = False,
) -> dict[str, list[Timing]]:
    app = TimedPickerApp(source, freeze_heap=True, count_tokens=count_tokens)
    toggles: list[Timing] = []
    repops: list[Timing] = []
    recorder = Recorder(profile)
    async with app.run_test(size=SIZE) as pilot:
        with anyio.fail_after(CONNECT_TIMEOUT):
            while len(app.picker.rows) != rows_expected or app.probe.frames == 0:
                await pilot.pause(0.05)
            while app._counting:  # the first count (the encoding's load) is not a toggle's
                await pilot.pause(0.05)
        await _idle(pilot)
        with recorder.clock:
            for number, (server, bare) in enumerate(plan):
                toggles.append(await _toggle(app, pilot, server, bare, recorder))
                repops.append(await _repopulate(app, pilot, first_tool, recorder))
                toggles.append(await _toggle(app, pilot, server, bare, recorder))
                if number % 5 == 4:
                    print(f"    {number + 1}/{len(plan)} rounds", flush=True)
        await pilot.pause()
        on_screen = len(app.picker.rows)
    if recorder.profiler is not None:
        print(recorder.profiler.output_text(unicode=True, color=False, show_all=False))
    if on_screen != rows_expected:
        raise RuntimeError(f"{on_screen} rows on screen, expected {rows_expected}")
    return {"toggle": toggles, "repopulate": repops}


async def _with_bridge(
    dirs: BenchDirs,
    servers: int,
    tools: int,
    plan: list[tuple[str, str]],
    token: str,
    profile: bool = False,
    count_tokens: bool = False,
) -> tuple[dict[str, list[Timing]], int, int]:
    """The run over a real bridge; also the processes spawned and gone during it."""
    config = write_config(
        dirs.config_path(),
        {
            f"s{i:02d}": server_entry(
                scalable_argv(tools, name=f"{token}-{i}"), connectTimeout=CONNECT_TIMEOUT
            )
            for i in range(servers)
        },
    )
    start = time.perf_counter()
    async with Bridge(ConfigStore(config), log_dir=dirs.logs) as bridge:
        snapshot = await bridge.settled(CONNECT_TIMEOUT + 10)
        bad = [s.name for s in snapshot.servers if s.status != "connected" or len(s.tools) != tools]
        if bad:
            raise RuntimeError(f"servers not connected: {bad}")
        print(f"  {servers} servers connected in {time.perf_counter() - start:.1f} s", flush=True)
        bridge_before, proc_before = set(bridge.live_pids), pids_with_marker(token)
        first_tool = scalable_tool_names(tools)[0]
        result = await _drive(
            bridge, servers * (tools + 1), plan, first_tool, profile, count_tokens
        )
        bridge_after, proc_after = set(bridge.live_pids), pids_with_marker(token)
    spawned = len(bridge_after - bridge_before) + len(proc_after - proc_before)
    return result, spawned, len(bridge_before - bridge_after)


def _extra(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--profile",
        action="store_true",
        help="print a pyinstrument profile of the toggles, for each source",
    )
    parser.add_argument(
        "--count-tokens",
        action="store_true",
        help="count every tool's tokens and show them, as run_picker does",
    )


PARTS: dict[str, Callable[[Timing], float]] = {
    "total": lambda t: t.total,
    "to show_snapshot": lambda t: t.before_snapshot,
    "show_snapshot": lambda t: t.snapshot,
    "to frame": lambda t: t.after_snapshot,
    "gc": lambda t: t.gc,
}
"""How each timing is broken down (``to frame``: frame pacing at 60 fps, layout, compositing)."""


def _samples(timings: list[Timing]) -> dict[str, list[float]]:
    return {
        part: [value for value in map(get, timings) if not math.isnan(value)]
        for part, get in PARTS.items()
    }


def main() -> int:
    args = parse_mode(__doc__ or "", _extra)
    servers, tools, rounds = (5, 20, 4) if args.quick else (50, 100, 25)
    token = marker("picker-toggle")
    plan = _plan(servers, tools, rounds)
    first_tool = scalable_tool_names(tools)[0]
    print(
        f"picker toggle: {servers} servers x {tools} tools = {servers * tools} tools "
        f"({servers * (tools + 1)} rows), {rounds} rounds ({2 * rounds} toggles, "
        f"{rounds} re-populations), terminal {SIZE[0]}x{SIZE[1]}"
    )
    print("  static source", flush=True)
    static = anyio.run(
        _drive,
        StaticSource(_static_model(servers, tools)),
        servers * (tools + 1),
        plan,
        first_tool,
        args.profile,
        args.count_tokens,
    )
    print("  bridge over real servers", flush=True)
    with bench_dirs("picker-toggle") as dirs:
        bridged, spawned, gone = anyio.run(
            _with_bridge, dirs, servers, tools, plan, token, args.profile, args.count_tokens
        )
    leftovers = report_leftovers(token)

    samples = {
        source: {kind: _samples(timings) for kind, timings in result.items()}
        for source, result in (("bridge", bridged), ("static", static))
    }
    table: list[list[object]] = []
    ratios: dict[str, dict[str, float]] = {}
    for source, kinds in samples.items():
        for kind, parts in kinds.items():
            total = stats(parts["total"])
            medians = [ms(stats(parts[p]).median) if parts[p] else math.nan for p in PARTS]
            head = [f"{source}: {kind}", total.n, ms(total.median), ms(total.p95), ms(total.iqr)]
            table.append([*head, *medians[1:]])
        toggle, repop = stats(kinds["toggle"]["total"]), stats(kinds["repopulate"]["total"])
        no_gc = {
            kind: stats([t - g for t, g in zip(parts["total"], parts["gc"], strict=True)])
            for kind, parts in kinds.items()
        }
        ratios[source] = {
            "median": ratio(toggle.median, repop.median),
            "p95": ratio(toggle.p95, repop.median),
            "median without gc": ratio(no_gc["toggle"].median, no_gc["repopulate"].median),
        }
    print_table(
        "change → first frame that shows it (ms; the last four columns are medians of the parts)",
        ["measure", "n", "median", "p95", "IQR", *list(PARTS)[1:]],
        table,
    )
    print_table(
        "toggle / full re-population (the last column with each sample's GC time taken out)",
        ["source", "median / median", "p95 / median", "median / median, GC out"],
        [[source, r["median"], r["p95"], r["median without gc"]] for source, r in ratios.items()],
    )
    headline = ratios["bridge"]["median"]
    met = headline <= TARGET
    print(
        f"\ntarget: toggle (bridge) <= {TARGET:.0%} of a full re-population: "
        f"{headline:.1%} {'MET' if met else 'MISSED'}"
    )
    print(
        f"processes spawned during {2 * rounds} toggles: {spawned}, gone: {gone}   target 0: "
        f"{'MET' if spawned == 0 and gone == 0 else 'MISSED'}"
    )
    if not args.quick:
        write_results(
            "picker_toggle",
            {
                "servers": servers,
                "tools_per_server": tools,
                "rows": servers * (tools + 1),
                "rounds": rounds,
                "terminal": list(SIZE),
                "stats_seconds": {
                    source: {
                        kind: {part: stats(values).as_dict() for part, values in parts.items()}
                        for kind, parts in kinds.items()
                    }
                    for source, kinds in samples.items()
                },
                "ratios": ratios,
                "target": TARGET,
                "met": met,
                "spawned": spawned,
                "processes_gone": gone,
                "samples_seconds": samples,
                "leftover_processes": leftovers,
            },
        )
    return 1 if leftovers or spawned or gone else 0


if __name__ == "__main__":
    raise SystemExit(main())
