"""Growth: time and memory of the pure projections at 100 ... 50,000 tools.

Synthetic ``PluginModel`` snapshots (servers of 100 tools, every 10th tool disabled, the default
budget of 128), built directly from ``ToolState`` / ``ServerState`` values: no servers run. For
each size:

- ``project_catalog(model)``: the wire catalog (names allocated over every enabled tool);
- ``build_rows(model, catalog)``: the picker's rows (``agentty_tui.ui.rows``; skipped if absent);
- ``diff_rows(old, new)``: the rows of a snapshot that differs by one toggle, against the old;

median time over repeats, the tracemalloc peak of one call (allocations made during the call:
what it costs on top of the snapshot), and the cost per tool, so linearity is visible: the
"x vs 1k" columns are the per-tool cost relative to the 1,000-tool size (flat = linear), from
the median and from the minimum (the minimum is the least disturbed by a shared machine). "GC"
is the median time per call the cyclic garbage collector ran, against the median time.

Full mode also writes ``bench/growth.png`` (needs matplotlib; skipped with a message otherwise).

``python bench/bench_growth.py`` (100, 1k, 10k, 50k) or ``--quick`` (100, 1k, 5k; no plot).
"""

from __future__ import annotations

import gc
import importlib
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

from _common import BENCH_DIR, GcClock, parse_mode, print_table, ratio, stats, write_results

from agentty_tui.catalog import project_catalog
from agentty_tui.model import AdvertisedTool, PluginModel, ServerState, StdioSpec, ToolState

TOOLS_PER_SERVER = 100
PLOT = BENCH_DIR / "growth.png"
RowFunctions = tuple[Callable[..., Any], Callable[..., Any]]


def synthetic_model(total: int) -> PluginModel:
    """``total`` tools on ``total / 100`` connected servers; every 10th tool disabled."""
    template = AdvertisedTool(
        name="template",
        description="Scale-test tool. Returns its own name.\nSecond line of the description.",
        input_schema={
            "type": "object",
            "properties": {"x": {"type": "integer", "description": "An ignored argument."}},
        },
    )
    servers = []
    for s in range(max(1, total // TOOLS_PER_SERVER)):
        tools = tuple(
            ToolState.model_construct(
                bare=f"tool.{s}_{t:04d}",
                enabled=t % 10 != 9,
                title=None,
                description=template.description,
                input_schema=template.input_schema,
            )
            for t in range(TOOLS_PER_SERVER)
        )
        servers.append(
            ServerState(
                name=f"server-{s:04d}",
                spec=StdioSpec(command="python", args=("server.py",)),
                status="connected",
                tools=tools,
            )
        )
    return PluginModel(servers=tuple(servers))


def toggled(model: PluginModel) -> PluginModel:
    """``model`` with the first tool of its middle server switched."""
    middle = len(model.servers) // 2
    server = model.servers[middle]
    first = server.tools[0]
    tools = (first.model_copy(update={"enabled": not first.enabled}), *server.tools[1:])
    servers = list(model.servers)
    servers[middle] = server.model_copy(update={"tools": tools})
    return model.model_copy(update={"servers": tuple(servers), "revision": model.revision + 1})


def _timed(
    function: Callable[[], object], budget: float, max_repeat: int
) -> tuple[list[float], float]:
    """Repeat ``function`` for about ``budget`` seconds (5 to ``max_repeat`` times).

    Returns the samples and the median time per call the garbage collector ran, as a share of
    the median time per call.
    """
    samples: list[float] = []
    collecting: list[float] = []
    gc.collect()
    deadline = time.perf_counter() + budget
    with GcClock() as clock:
        while len(samples) < 5 or (len(samples) < max_repeat and time.perf_counter() < deadline):
            clock.reset()
            start = time.perf_counter()
            function()
            samples.append(time.perf_counter() - start)
            collecting.append(clock.reset())
    return samples, ratio(stats(collecting).median, stats(samples).median)


def _peak(function: Callable[[], object]) -> int:
    """tracemalloc peak (bytes) of one call, relative to what was allocated before it."""
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        function()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def _row_functions() -> RowFunctions | None:
    try:
        rows = importlib.import_module("agentty_tui.ui.rows")
        row_diff = importlib.import_module("agentty_tui.ui.row_diff")
    except ImportError:
        return None
    return rows.build_rows, row_diff.diff_rows


def measure(sizes: list[int], budget: float) -> dict[str, dict[int, dict[str, float]]]:
    """``operation -> size -> {median, p95, peak_bytes}``."""
    row_functions = _row_functions()
    if row_functions is None:
        print("agentty_tui/ui/rows.py not found: measuring the catalog only")
    results: dict[str, dict[int, dict[str, float]]] = {}

    def record(name: str, size: int, timed: tuple[list[float], float], peak: int) -> None:
        samples, gc_share = timed
        s = stats(samples)
        results.setdefault(name, {})[size] = {
            "median": s.median,
            "p95": s.p95,
            "min": s.minimum,
            "n": s.n,
            "gc_share": gc_share,
            "peak_bytes": peak,
        }

    for size in sizes:
        print(f"  {size:>6} tools ...", flush=True)
        _measure_size(size, budget, row_functions, record)
    return results


def _measure_size(
    size: int,
    budget: float,
    row_functions: RowFunctions | None,
    record: Callable[[str, int, tuple[list[float], float], int], None],
) -> None:
    model = synthetic_model(size)
    changed = toggled(model)
    catalog = project_catalog(model)
    max_repeat = 200 if size <= 1000 else 40
    record(
        "project_catalog",
        size,
        _timed(lambda: project_catalog(model), budget, max_repeat),
        _peak(lambda: project_catalog(model)),
    )
    if row_functions is None:
        return
    build_rows, diff_rows = row_functions
    old_rows = build_rows(model, catalog)
    new_rows = build_rows(changed, project_catalog(changed))

    def pipeline() -> object:
        return diff_rows(old_rows, build_rows(changed, project_catalog(changed)))

    record(
        "build_rows",
        size,
        _timed(lambda: build_rows(model, catalog), budget, max_repeat),
        _peak(lambda: build_rows(model, catalog)),
    )
    record(
        "diff_rows (one toggle)",
        size,
        _timed(lambda: diff_rows(old_rows, new_rows), budget, max_repeat),
        _peak(lambda: diff_rows(old_rows, new_rows)),
    )
    record(
        "catalog + rows + diff (one toggle)",
        size,
        _timed(pipeline, budget, max_repeat),
        _peak(pipeline),
    )


def print_results(results: dict[str, dict[int, dict[str, float]]], sizes: list[int]) -> None:
    """One table per operation, with the per-tool cost and its drift against 1k tools."""
    reference = 1000 if 1000 in sizes else sizes[0]
    for name, per_size in results.items():
        ref = per_size[reference]["median"] / reference
        ref_min = per_size[reference]["min"] / reference
        ref_mem = per_size[reference]["peak_bytes"] / reference
        rows = []
        for size in sizes:
            entry = per_size[size]
            per_tool = entry["median"] / size
            min_per_tool = entry["min"] / size
            mem_per_tool = entry["peak_bytes"] / size
            rows.append(
                [
                    size,
                    int(entry["n"]),
                    entry["median"] * 1000,
                    entry["p95"] * 1000,
                    entry["min"] * 1000,
                    per_tool * 1e6,
                    ratio(per_tool, ref),
                    min_per_tool * 1e6,
                    ratio(min_per_tool, ref_min),
                    f"{entry['gc_share']:.0%}",
                    entry["peak_bytes"] / 1e6,
                    mem_per_tool,
                    ratio(mem_per_tool, ref_mem),
                ]
            )
        print_table(
            f"{name}   (time: median and min; memory: tracemalloc peak of one call)",
            [
                "tools",
                "n",
                "median ms",
                "p95 ms",
                "min ms",
                "µs/tool",
                "x vs 1k",
                "µs/tool min",
                "x vs 1k",
                "GC",
                "peak MB",
                "B/tool",
                "x vs 1k",
            ],
            rows,
        )


def plot(results: dict[str, dict[int, dict[str, float]]], sizes: list[int]) -> None:
    """``bench/growth.png``: time and memory against tools, log-log, with a linear guide."""
    try:
        matplotlib: Any = importlib.import_module("matplotlib")
    except ImportError:
        print("\nmatplotlib is not installed: skipping bench/growth.png (pip install matplotlib)")
        return
    matplotlib.use("Agg")
    plt: Any = importlib.import_module("matplotlib.pyplot")
    figure, (time_axis, memory_axis) = plt.subplots(1, 2, figsize=(11, 4.5))
    for name, per_size in results.items():
        xs = [size for size in sizes if size in per_size]
        (line,) = time_axis.plot(
            xs, [per_size[x]["median"] * 1000 for x in xs], marker="o", label=f"{name} (median)"
        )
        time_axis.plot(
            xs,
            [per_size[x]["min"] * 1000 for x in xs],
            linestyle="--",
            color=line.get_color(),
            alpha=0.6,
        )
        memory_axis.plot(xs, [per_size[x]["peak_bytes"] / 1e6 for x in xs], marker="o", label=name)
    first = results["project_catalog"]
    guide_start = first[sizes[0]]["median"] * 1000
    time_axis.plot(
        sizes,
        [guide_start * size / sizes[0] for size in sizes],
        linestyle=":",
        color="grey",
        label="linear (from catalog at 100)",
    )
    for axis, label in ((time_axis, "median time (ms)"), (memory_axis, "tracemalloc peak (MB)")):
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_xlabel("tools in the snapshot (100 per server)")
        axis.set_ylabel(label)
        axis.grid(True, which="both", alpha=0.3)
    time_axis.set_title("time (solid: median, dashed: min)")
    memory_axis.set_title("memory allocated during the call")
    time_axis.legend(fontsize=7)
    figure.suptitle("agentty_tui: projection and row computation against tool count")
    figure.tight_layout()
    figure.savefig(PLOT, dpi=110)
    plt.close(figure)
    print(f"\nplot written to {PLOT.relative_to(BENCH_DIR.parent)}")


def main() -> int:
    args = parse_mode(__doc__ or "")
    sizes = [100, 1000, 5000] if args.quick else [100, 1000, 10_000, 50_000]
    budget = 0.5 if args.quick else 5.0
    print(f"growth: sizes {sizes}, {TOOLS_PER_SERVER} tools per server")
    results = measure(sizes, budget)
    print_results(results, sizes)
    if not args.quick:
        plot(results, sizes)
        write_results(
            "growth",
            {
                "sizes": sizes,
                "tools_per_server": TOOLS_PER_SERVER,
                "results": {
                    name: {str(size): entry for size, entry in per_size.items()}
                    for name, per_size in results.items()
                },
            },
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
