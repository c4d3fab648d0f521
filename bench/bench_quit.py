"""Quitting with many servers: every server is closed at once, not one after another.

Two kinds of servers (``tests/servers/light_server.py``, 11 of each by default): servers that
exit as soon as their stdin ends, and servers that ignore its end (``--linger``), so that the
escalation runs (2 s of grace, then SIGTERM).

1. **In process, the bridge's close.** Each round, interleaved (order alternating, a warm-up
   round first): one ``Bridge`` over the 11 servers, every one connected, then ``aclose()``
   timed ("at once"); against the same 11 servers in 11 bridges of one server each, closed one
   after another (the sequential way, in the same process and the same round).
2. **A real process, the picker's quit.** ``python -m agentty_tui --config X`` under a
   pseudo-terminal (120 x 40): once its status bar says every server is connected, ``q`` is
   typed; the time until the process has exited (the terminal restored, every server stopped,
   the process gone).

Targets: the picker quits within 1 s with the 11 servers that exit on their input's end; the
bridge's close at once against one after another well under 1 (about 1 / the server count for
the lingering ones). At the end, a ``/proc`` scan for the servers' marker: none may be left.

``--baseline-tree DIR`` also quits the picker of another checkout (an earlier commit's, from
``git archive``), interleaved with this one's, for a before / after ratio in the same run.

``python bench/bench_quit.py`` (11 servers, 5 rounds) or ``--quick`` (2 servers, 1 round, no
warm-up).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
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
from bench_first_frame import COLUMNS, LINES, _plain

from agentty_tui.bridge import Bridge
from agentty_tui.config import ConfigStore
from tests.servers import light_argv

TARGET_QUIT = 1.0
SETTLE_TIMEOUT = 60.0
EXIT_TIMEOUT = 60.0
KINDS: dict[str, tuple[str, ...]] = {
    "exit on EOF": (),
    "ignore EOF": ("--linger",),
}
"""Each kind of server, and what its argv gets."""


def _entries(count: int, kind: str, token: str) -> dict[str, dict[str, Any]]:
    return {
        f"s{i:02d}": server_entry([*light_argv(2, name=f"{token}-{i}"), *KINDS[kind]])
        for i in range(count)
    }


def _all_connected(count: int) -> Any:
    return lambda m: len(m.servers) == count and all(s.status == "connected" for s in m.servers)


async def _close_at_once(path: Path, count: int, dirs: BenchDirs) -> float:
    async with Bridge(ConfigStore(path), log_dir=dirs.logs) as bridge:
        await bridge.wait_for(_all_connected(count), SETTLE_TIMEOUT)
        start = time.perf_counter()
    return time.perf_counter() - start


async def _close_one_after_another(paths: list[Path], dirs: BenchDirs) -> float:
    # Task groups end in the reverse order of their start: the stack closes the last first.
    async with contextlib.AsyncExitStack() as stack:
        for path in paths:
            bridge = await stack.enter_async_context(Bridge(ConfigStore(path), log_dir=dirs.logs))
            await bridge.wait_for(_all_connected(1), SETTLE_TIMEOUT)
        start = time.perf_counter()
    return time.perf_counter() - start


def _picker_quit(config: Path, count: int, dirs: BenchDirs, tree: Path | None = None) -> float:
    """The picker on ``config`` under a pty (``tree``'s, else this checkout's); once all
    ``count`` servers are connected, ``q``: seconds until the process has exited."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLUMNS, 0, 0))
    env = env_for_child(dirs)
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    env["TERM"] = "xterm-256color"
    env["COLUMNS"], env["LINES"] = str(COLUMNS), str(LINES)
    command = [sys.executable, "-m", "agentty_tui", "--config", str(config)]
    process = subprocess.Popen(
        command,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        cwd=tree or REPO_ROOT,  # ``-m`` looks in the current folder first
        start_new_session=True,
    )
    os.close(slave)
    ready_mark = f"{count} connected ·"
    output = bytearray()
    try:
        deadline = time.perf_counter() + SETTLE_TIMEOUT
        while ready_mark not in _plain(bytes(output[-8192:])):
            if time.perf_counter() > deadline or process.poll() is not None:
                raise RuntimeError(f"not all connected:\n{_plain(bytes(output))[-2000:]}")
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    output += os.read(master, 65536)
                except OSError:  # EIO: the child closed the terminal
                    break
        quit_at = time.perf_counter()
        os.write(master, b"q")
        deadline = quit_at + EXIT_TIMEOUT
        while process.poll() is None and time.perf_counter() < deadline:
            ready, _, _ = select.select([master], [], [], 0.01)
            if ready:
                with contextlib.suppress(OSError):  # keep the pty drained: the child never blocks
                    os.read(master, 65536)
        if process.poll() is None:
            raise RuntimeError(f"still running {EXIT_TIMEOUT:g} s after q")
        if process.returncode != 0:
            raise RuntimeError(f"exit status {process.returncode}")
        return time.perf_counter() - quit_at
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        os.close(master)


def _options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--baseline-tree", type=Path, help="another checkout whose picker quit is measured too"
    )


def main() -> int:
    args = parse_mode(__doc__ or "", _options)
    baseline: Path | None = args.baseline_tree.resolve() if args.baseline_tree else None
    count, rounds = (2, 1) if args.quick else (11, 5)
    first = 1 if args.quick else 0  # the quick run has no warm-up round
    token = marker("quit")
    print(f"quit: {count} servers of each kind, {rounds} interleaved rounds (+{1 - first} warm-up)")
    at_once: dict[str, list[float]] = {kind: [] for kind in KINDS}
    in_order: dict[str, list[float]] = {kind: [] for kind in KINDS}
    picker: dict[str, list[float]] = {kind: [] for kind in KINDS}
    before: dict[str, list[float]] = {kind: [] for kind in KINDS}
    with bench_dirs("quit") as dirs:
        whole: dict[str, Path] = {}
        single: dict[str, list[Path]] = {}
        for number, kind in enumerate(KINDS):
            entries = _entries(count, kind, f"{token}-{number}")
            whole[kind] = write_config(dirs.config_path(f"all-{number}.json"), entries)
            single[kind] = [
                write_config(dirs.config_path(f"one-{number}-{name}.json"), {name: entry})
                for name, entry in entries.items()
            ]
        for round_index in range(first, rounds + 1):
            for kind in KINDS:
                ways = ["at once", "in order", "picker"] + (["baseline"] if baseline else [])
                if round_index % 2:
                    ways.reverse()
                for way in ways:
                    if way == "at once":
                        elapsed = anyio.run(_close_at_once, whole[kind], count, dirs)
                        sample = at_once
                    elif way == "in order":
                        elapsed = anyio.run(_close_one_after_another, single[kind], dirs)
                        sample = in_order
                    elif way == "picker":
                        elapsed = _picker_quit(whole[kind], count, dirs)
                        sample = picker
                    else:
                        elapsed = _picker_quit(whole[kind], count, dirs, baseline)
                        sample = before
                    if round_index:
                        sample[kind].append(elapsed)
            print(f"  round {round_index}{' (warm-up)' if not round_index else ''} done")
    leftovers = report_leftovers(token)

    rows = []
    for kind in KINDS:
        once, order, quit_ = stats(at_once[kind]), stats(in_order[kind]), stats(picker[kind])
        rows.append(
            [
                kind,
                ms(once.median),
                ms(order.median),
                ratio(once.median, order.median),
                ms(quit_.median),
                ms(quit_.maximum),
            ]
        )
    print_table(
        f"closing {count} servers (ms, medians of {rounds} rounds)",
        [
            "servers",
            "bridge: at once",
            "one after another",
            "ratio",
            "picker q → exit",
            "q → exit max",
        ],
        rows,
    )
    if baseline is not None:
        print_table(
            f"picker q → exit (ms, medians): this checkout against {baseline}",
            ["servers", "this", "baseline", "ratio"],
            [
                [
                    kind,
                    ms(stats(picker[kind]).median),
                    ms(stats(before[kind]).median),
                    ratio(stats(picker[kind]).median, stats(before[kind]).median),
                ]
                for kind in KINDS
            ],
        )
    quit_median = stats(picker["exit on EOF"]).median
    met = quit_median <= TARGET_QUIT
    print(
        f"\npicker quit with {count} servers that exit on EOF: {ms(quit_median):.0f} ms, "
        f"target <= {TARGET_QUIT:g} s: {'MET' if met else 'MISSED'}"
    )
    if not args.quick:
        write_results(
            "quit",
            {
                "servers": count,
                "rounds": rounds,
                "bridge_close_at_once_seconds": {k: stats(v).as_dict() for k, v in at_once.items()},
                "bridge_close_one_after_another_seconds": {
                    k: stats(v).as_dict() for k, v in in_order.items()
                },
                "picker_quit_seconds": {k: stats(v).as_dict() for k, v in picker.items()},
                "baseline_tree": str(baseline) if baseline else None,
                "baseline_picker_quit_seconds": {
                    k: stats(v).as_dict() for k, v in before.items() if v
                },
                "samples_seconds": {
                    "at_once": at_once,
                    "in_order": in_order,
                    "picker": picker,
                    "baseline_picker": before,
                },
                "target_quit_seconds": TARGET_QUIT,
                "met": met,
                "leftover_processes": leftovers,
            },
        )
    return 1 if leftovers else 0


if __name__ == "__main__":
    raise SystemExit(main())
