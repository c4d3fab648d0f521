"""Live tool changes: a real server's ``tools/list_changed`` to the new row on screen.

A ``Bridge`` runs ``tests/servers/gated_server.py`` (a real subprocess) next to B background
``scalable_server.py`` servers of T tools (so the picker is not trivially small), and the real
``PickerApp`` (headless, 120 x 40, ``_paint.py``) follows it. N times, alternately,
``await bridge.call_tool("gated", "enable_toolset" | "disable_toolset", {"name": "scene"})``:
the server adds or removes its two ``scene_*`` tools and sends ``tools/list_changed``; the
session re-lists, the bridge publishes, the picker updates in place.

Timed per change, with ``perf_counter()`` in this one process:

- **notice → frame** (the headline): from the moment the session receives the notification
  (the bench wraps the session's ``Relister.notice()`` to stamp it) to the first painted frame
  that shows the change: the ``scene_open`` row drawn (reveal), or the first frame after the
  rows no longer hold it (withdraw);
- **call → frame**: from the ``call_tool`` that causes the change (includes the call's round
  trip; an upper bound that needs no hook);
- the parts: notice → ``show_snapshot`` (re-list + publish + feed), ``show_snapshot`` itself,
  and its end → frame (layout, compositing, encoding).

``python bench/bench_live_change.py`` (50 changes; 10 background servers x 100 tools) or
``--quick`` (10 changes; no background servers).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import anyio
from _common import (
    BenchDirs,
    bench_dirs,
    marker,
    ms,
    parse_mode,
    print_table,
    report_leftovers,
    server_entry,
    stats,
    write_config,
    write_results,
)
from _paint import TimedPickerApp
from textual.pilot import Pilot

from agentty_tui.bridge import Bridge
from agentty_tui.bridge.listing import Relister
from agentty_tui.config import ConfigStore
from tests.servers import GATED_BASE_TOOLS, GATED_TOOLSETS, gated_argv, scalable_argv

SIZE = (120, 40)
TIMEOUT = 60.0
TOOLSET = "scene"
REVEALED = GATED_TOOLSETS[TOOLSET][0]


@contextmanager
def notice_stamps() -> Iterator[list[float]]:
    """Stamp every list_changed notice a session receives (its relister's ``notice()``)."""
    stamps: list[float] = []
    original = Relister.notice

    def stamped(relister: Relister) -> None:
        stamps.append(time.perf_counter())
        original(relister)

    setattr(Relister, "notice", stamped)  # noqa: B010 - a bench hook, undone below
    try:
        yield stamps
    finally:
        setattr(Relister, "notice", original)  # noqa: B010


async def _idle(pilot: Pilot[None]) -> None:
    await pilot.pause()
    await pilot.pause()


async def _bench(
    dirs: BenchDirs, changes: int, background: int, tools: int, token: str, stamps: list[float]
) -> dict[str, list[float]]:
    servers = {"gated": server_entry(gated_argv("--name", f"{token}-gated"))}
    for i in range(background):
        servers[f"s{i:02d}"] = server_entry(scalable_argv(tools, name=f"{token}-{i}"))
    config = write_config(dirs.config_path(), servers)
    samples: dict[str, list[float]] = {
        key: []
        for key in (
            "notice → frame",
            "call → frame",
            "notice → show_snapshot",
            "show_snapshot",
            "show_snapshot → frame",
            "reveal: notice → frame",
            "withdraw: notice → frame",
        )
    }
    async with Bridge(ConfigStore(config), log_dir=dirs.logs) as bridge:
        model = await bridge.settled(TIMEOUT)
        bad = [s.name for s in model.servers if s.status != "connected"]
        if bad:
            raise RuntimeError(f"servers not connected: {bad}")
        app = TimedPickerApp(bridge, freeze_heap=True)
        async with app.run_test(size=SIZE) as pilot:
            expected_rows = len(servers) + len(GATED_BASE_TOOLS) + background * tools
            with anyio.fail_after(TIMEOUT):
                while len(app.picker.rows) != expected_rows or app.probe.frames == 0:
                    await pilot.pause(0.05)
            # The gated server's rows come first: the revealed rows are drawn in the view.
            app.picker.select_key(("server", "gated"))
            for number in range(changes):
                reveal = number % 2 == 0
                await _idle(pilot)
                await anyio.sleep(0.02)

                def shown(text: str, reveal: bool = reveal) -> bool:
                    has_row = any(row.tool == REVEALED for row in app.picker.rows)
                    return has_row and REVEALED in text if reveal else not has_row

                predicate: Callable[[str], bool] = shown
                event = app.probe.arm(predicate)
                stamps.clear()
                start = time.perf_counter()
                tool = "enable_toolset" if reveal else "disable_toolset"
                await bridge.call_tool("gated", tool, {"name": TOOLSET})
                with anyio.fail_after(TIMEOUT):
                    await event.wait()
                painted = app.probe.painted_at
                assert painted is not None
                notices = [t for t in stamps if t >= start]
                if not notices:
                    raise RuntimeError("the change was painted but no list_changed was seen")
                notice = notices[0]
                samples["notice → frame"].append(painted - notice)
                samples["call → frame"].append(painted - start)
                kind = "reveal" if reveal else "withdraw"
                samples[f"{kind}: notice → frame"].append(painted - notice)
                span = app.last_snapshot_between(notice, painted)
                if span is not None:
                    samples["notice → show_snapshot"].append(span[0] - notice)
                    samples["show_snapshot"].append(span[1] - span[0])
                    samples["show_snapshot → frame"].append(painted - span[1])
                if number % 10 == 9:
                    print(f"    {number + 1}/{changes} changes", flush=True)
    return samples


def main() -> int:
    args = parse_mode(__doc__ or "")
    changes, background, tools = (10, 0, 0) if args.quick else (50, 10, 100)
    token = marker("live-change")
    print(
        f"live change: {changes} list_changed (reveal/withdraw of {TOOLSET!r}) from a real "
        f"gated server, {background} background servers x {tools} tools, "
        f"terminal {SIZE[0]}x{SIZE[1]}"
    )
    with bench_dirs("live-change") as dirs, notice_stamps() as stamps:
        samples = anyio.run(_bench, dirs, changes, background, tools, token, stamps)
    leftovers = report_leftovers(token)

    summary = {name: stats(values) for name, values in samples.items() if values}
    print_table(
        "list_changed → row on screen (ms)",
        ["measure", "n", "median", "p95", "IQR", "min", "max"],
        [
            [name, s.n, ms(s.median), ms(s.p95), ms(s.iqr), ms(s.minimum), ms(s.maximum)]
            for name, s in summary.items()
        ],
    )
    headline = summary["notice → frame"]
    print(
        f"\nnotice → frame: median {ms(headline.median):.1f} ms, p95 {ms(headline.p95):.1f} ms "
        f"over {headline.n} changes"
    )
    if not args.quick:
        result: dict[str, Any] = {
            "changes": changes,
            "background_servers": background,
            "tools_per_background_server": tools,
            "terminal": list(SIZE),
            "stats_seconds": {name: s.as_dict() for name, s in summary.items()},
            "samples_seconds": samples,
            "leftover_processes": leftovers,
        }
        write_results("live_change", result)
    return 1 if leftovers or math.isnan(headline.median) else 0


if __name__ == "__main__":
    raise SystemExit(main())
