"""Toggle at scale: the core ``tool_set_enabled`` with S real servers of T tools each.

Starts S ``scalable_server.py`` processes (T tools each) under one ``Bridge``, waits until all
are connected, then times K toggles (each tool is turned off, then on again), each measured as

- ``tool_set_enabled``: ``await bridge.tool_set_enabled(server, tool, on)``: config write
  (locked, fsynced, atomic), re-derive of that server's tools, new snapshot published;
- ``+ projection``: the same plus the wire-catalog projection of the new snapshot by a
  ``CatalogProjector`` kept across toggles (what the picker does next), i.e. the whole core
  operation;

and, to break the time down, on the same snapshot / an identical copy of the config:

- ``store.apply`` alone: the config write (on a copy of the file, with its own ``ConfigStore``);
- ``store.load`` alone: read + validate of the config;
- ``_publish`` alone: rebuild + publish of the model with nothing changed (private: diagnostics);
- ``project_catalog`` alone on the snapshot: a projection from scratch, all servers;
- ``projector, one server changed``: a kept ``CatalogProjector`` on a snapshot that differs from
  its previous one by one toggle;
- ``build_rows`` + ``diff_rows``: the picker's pure row work for one toggle (``ui.rows``, with
  the ``RowMemo`` the picker keeps), and the three together.

Counts server processes spawned during the toggles (``bridge.live_pids`` and a /proc scan,
before and after): target 0.

``python bench/bench_toggle.py`` (50 x 100 tools, 50 toggles) or ``--quick`` (5 x 20, 20 toggles).
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from typing import Any

import anyio
from _common import (
    BenchDirs,
    GcClock,
    Stats,
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

from agentty_tui.bridge import Bridge
from agentty_tui.catalog import CatalogProjector, project_catalog
from agentty_tui.config import ConfigStore, SetToolEnabled
from agentty_tui.model import PluginModel
from tests.servers import scalable_argv, scalable_tool_names

CONNECT_TIMEOUT = 240.0


def _time_sync(function: Callable[[], object], repeat: int) -> list[float]:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        samples.append(time.perf_counter() - start)
    return samples


def _plan(servers: int, tools: int, toggles: int) -> list[tuple[str, str, bool]]:
    """``(server, tool, on)``: each picked tool off, then back on, spread over the servers."""
    names = scalable_tool_names(tools)
    plan: list[tuple[str, str, bool]] = []
    for i in range(toggles // 2):
        server = f"s{i % servers:02d}"
        tool = names[(i * 37) % tools]
        plan += [(server, tool, False), (server, tool, True)]
    return plan


async def _bench(
    dirs: BenchDirs, servers: int, tools: int, toggles: int, token: str
) -> dict[str, Any]:
    config_path = write_config(
        dirs.config_path(),
        {
            f"s{i:02d}": server_entry(
                scalable_argv(tools, name=f"{token}-{i}"), connectTimeout=CONNECT_TIMEOUT
            )
            for i in range(servers)
        },
    )
    copy_path = dirs.config_path("copy.json")
    shutil.copyfile(config_path, copy_path)
    plan = _plan(servers, tools, toggles)

    start = time.perf_counter()
    async with Bridge(ConfigStore(config_path), log_dir=dirs.logs) as bridge:
        model = await bridge.settled(CONNECT_TIMEOUT + 10)
        connect_time = time.perf_counter() - start
        bad = [s.name for s in model.servers if s.status != "connected" or len(s.tools) != tools]
        if bad:
            raise RuntimeError(f"servers not connected: {bad}")
        print(f"  {servers} servers connected in {connect_time:.1f} s", flush=True)

        bridge_pids_before = set(bridge.live_pids)
        proc_pids_before = pids_with_marker(token)

        toggle_times: list[float] = []
        core_times: list[float] = []
        toggle_gc: list[float] = []
        projector = CatalogProjector()
        projector.project(bridge.snapshot)
        clock = GcClock()
        with clock:
            for server, tool, on in plan:
                clock.reset()
                t0 = time.perf_counter()
                snapshot = await bridge.tool_set_enabled(server, tool, on)
                t1 = time.perf_counter()
                projector.project(snapshot)
                t2 = time.perf_counter()
                toggle_gc.append(clock.reset())
                state = snapshot.server(server)
                found = state.tool(tool) if state is not None else None
                if found is None or found.enabled != on:
                    raise RuntimeError(f"toggle of {server}/{tool} not in the published snapshot")
                toggle_times.append(t1 - t0)
                core_times.append(t2 - t0)

        bridge_pids_after = set(bridge.live_pids)
        proc_pids_after = pids_with_marker(token)
        snapshot = bridge.snapshot

        # Breakdown, measured on the same snapshot / an identical copy of the config.
        copy_store = ConfigStore(copy_path)
        apply_times: list[float] = []
        for server, tool, on in plan:
            edit = SetToolEnabled(server=server, tool=tool, enabled=on)
            t0 = time.perf_counter()
            copy_store.apply(edit)
            apply_times.append(time.perf_counter() - t0)
        load_times = _time_sync(bridge.store.load, len(plan))
        publish_times = _time_sync(bridge._publish, len(plan))
        catalog_times = _time_sync(lambda: project_catalog(snapshot), len(plan))
        projector_times, rows_times, pipeline_times, rows_gc = _picker_work(snapshot, plan)

    spawned_bridge = bridge_pids_after - bridge_pids_before
    spawned_proc = proc_pids_after - proc_pids_before
    return {
        "connect_seconds": connect_time,
        "tool_set_enabled": toggle_times,
        "tool_set_enabled + projection": core_times,
        "store.apply alone": apply_times,
        "store.load alone": load_times,
        "_publish alone": publish_times,
        "project_catalog alone": catalog_times,
        "projector, one server changed": projector_times,
        "build_rows + diff_rows": rows_times,
        "catalog + rows + diff": pipeline_times,
        "gc during tool_set_enabled + projection": toggle_gc,
        "gc during catalog + rows + diff": rows_gc,
        "spawned_bridge": sorted(spawned_bridge),
        "spawned_proc": sorted(spawned_proc),
        "gone_bridge": sorted(bridge_pids_before - bridge_pids_after),
        "token": token,
    }


def _picker_work(
    snapshot: PluginModel, plan: list[tuple[str, str, bool]]
) -> tuple[list[float], list[float], list[float], list[float]]:
    """The picker's pure work for one toggle, with its projector and row memo kept across toggles.

    Each step's snapshot differs from the previous one by exactly that toggle; returns the
    projection times, the row times (build + diff), the three together, and GC time.
    """
    try:
        from agentty_tui.ui.row_diff import diff_rows
        from agentty_tui.ui.rows import RowMemo, build_rows
    except ImportError:
        return [], [], [], []
    projector = CatalogProjector()
    memo = RowMemo()
    current = snapshot
    old_rows = build_rows(current, projector.project(current), memo=memo)
    projector_times: list[float] = []
    rows_times: list[float] = []
    pipeline_times: list[float] = []
    gc_times: list[float] = []
    with GcClock() as clock:
        for server, tool, _on in plan:
            current = _switched(current, server, tool)
            clock.reset()
            t0 = time.perf_counter()
            new_catalog = projector.project(current)
            t1 = time.perf_counter()
            new_rows = build_rows(current, new_catalog, memo=memo)
            diff = diff_rows(old_rows, new_rows)
            t2 = time.perf_counter()
            if diff.empty:
                raise RuntimeError("a toggle changed no row")
            old_rows = new_rows
            gc_times.append(clock.reset())
            projector_times.append(t1 - t0)
            rows_times.append(t2 - t1)
            pipeline_times.append(t2 - t0)
    return projector_times, rows_times, pipeline_times, gc_times


def _switched(snapshot: PluginModel, server: str, tool: str) -> PluginModel:
    """``snapshot`` with one tool switched over; every other server state is the same object."""
    servers = tuple(
        state
        if state.name != server
        else state.model_copy(
            update={
                "tools": tuple(
                    t if t.bare != tool else t.model_copy(update={"enabled": not t.enabled})
                    for t in state.tools
                )
            }
        )
        for state in snapshot.servers
    )
    return snapshot.model_copy(update={"servers": servers})


def main() -> int:
    args = parse_mode(__doc__ or "")
    servers, tools, toggles = (5, 20, 20) if args.quick else (50, 100, 50)
    token = marker("toggle")
    print(
        f"toggle at scale: {servers} servers x {tools} tools = {servers * tools} tools, "
        f"{toggles} toggles"
    )
    with bench_dirs("toggle") as dirs:
        result = anyio.run(_bench, dirs, servers, tools, toggles, token)
    leftovers = report_leftovers(token)

    timed = [
        "tool_set_enabled",
        "tool_set_enabled + projection",
        "store.apply alone",
        "store.load alone",
        "_publish alone",
        "project_catalog alone",
        "projector, one server changed",
        "build_rows + diff_rows",
        "catalog + rows + diff",
        "gc during tool_set_enabled + projection",
        "gc during catalog + rows + diff",
    ]
    summary: dict[str, Stats] = {name: stats(result[name]) for name in timed if result[name]}
    toggle_median = summary["tool_set_enabled"].median
    print_table(
        "per operation (ms)",
        ["operation", "n", "median", "p95", "IQR", "max", "share of toggle"],
        [
            [
                name,
                s.n,
                ms(s.median),
                ms(s.p95),
                ms(s.iqr),
                ms(s.maximum),
                ratio(s.median, toggle_median),
            ]
            for name, s in summary.items()
        ],
    )
    spawned = len(result["spawned_bridge"]) + len(result["spawned_proc"])
    print(
        f"\nprocesses spawned during {toggles} toggles: bridge.live_pids "
        f"{len(result['spawned_bridge'])}, /proc scan {len(result['spawned_proc'])}; "
        f"processes gone: {len(result['gone_bridge'])}   target 0: "
        f"{'MET' if spawned == 0 and not result['gone_bridge'] else 'MISSED'}"
    )
    if not args.quick:
        write_results(
            "toggle",
            {
                "servers": servers,
                "tools_per_server": tools,
                "toggles": toggles,
                "connect_seconds": result["connect_seconds"],
                "stats_seconds": {name: s.as_dict() for name, s in summary.items()},
                "samples_seconds": {name: result[name] for name in timed},
                "spawned": spawned,
                "processes_gone": len(result["gone_bridge"]),
                "leftover_processes": leftovers,
            },
        )
    return 1 if leftovers or spawned else 0


if __name__ == "__main__":
    raise SystemExit(main())
