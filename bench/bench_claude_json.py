"""A heavy Claude Code user's ``~/.claude.json``: the time and memory of reading it.

Claude Code keeps per-project history in ``~/.claude.json``, so a heavy user's file is tens of
MiB; the workspace reads it as two sources (the user scope's ``mcpServers`` and this project's
local ones), up to ``files.MAX_CLAUDE_STATE_BYTES`` (256 MiB). This measures what that costs.

For each size a synthetic file is written into a fake home: many projects (``--project-kib``
each: a history of prompts, one in eight with an em dash, so the text is not pure ASCII, as
a real user's is not; allowed tools; a few with servers), the user scope's servers and this
project's local ones. Each measurement runs in a fresh child process (one per size and
round, sizes interleaved): after the imports, ``open_workspace`` + ``Workspace.load()`` (the
first load, as a command or the picker's start does), then a second ``load()`` (what the live
reload does on every rewrite of the file by Claude Code). Reported: the wall and CPU time of
each (the CPU time is the steadier figure on a shared machine), the growth of the child's peak
resident memory (``VmHWM``) over its resident memory after the imports, that growth per MiB of
file (memory is linear in the size when that ratio stays flat), and what stays resident after
the loads. The servers of both scopes must be found and no warning given.

Each child is run twice, the second time the old way (``--old``: the file parsed whole by
``json.loads`` after a check of its nesting, and read by each of its two stores), so that the
table gives the ratio of the two within one run, on one machine's load.

``python bench/bench_claude_json.py`` (16, 64, 128 and 200 MiB, 3 rounds) or ``--quick``
(1 and 4 MiB, 1 round, in seconds; nothing written).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _common import bench_dirs, parse_mode, print_table, stats, write_results

MIB = 1024 * 1024
FULL_SIZES = (16, 64, 128, 200)
QUICK_SIZES = (1, 4)
USER_SERVERS = 3
LOCAL_SERVERS = 2


def _prompt(project: int, number: int) -> dict[str, Any]:
    dash = " — " if number % 8 == 0 else " - "
    text = f"refactor module {number} of project {project}{dash}keep the tests green " * 6
    return {"display": text, "pastedContents": {}}


def _project(index: int, kib: int) -> dict[str, Any]:
    prompt_bytes = len(json.dumps(_prompt(index, 0), indent=2)) + 8
    history = [_prompt(index, n) for n in range(max(1, kib * 1024 // prompt_bytes))]
    project: dict[str, Any] = {
        "allowedTools": ["Bash(git status)", "Edit", "Read"],
        "history": history,
        "mcpContextUris": [],
        "enableAllProjectMcpServers": False,
        "hasTrustDialogAccepted": True,
        "lastCost": 0.42,
        "lastDuration": 123456,
    }
    if index % 50 == 0:
        project["mcpServers"] = {"tool": {"command": "npx", "args": ["-y", "tool@1"]}}
    return project


def write_claude_json(path: Path, project_root: Path, mib: int, kib: int) -> int:
    """Write a ``~/.claude.json`` of about ``mib`` MiB; return its size in bytes."""
    entry = {"type": "stdio", "command": "true", "args": [], "env": {}}
    one = len(json.dumps(_project(1, kib), indent=2))
    projects = {f"/home/ada/src/p{i:05}": _project(i, kib) for i in range(mib * MIB // one)}
    projects[str(project_root)] = {
        **_project(0, 1),
        "mcpServers": {f"local-{n}": entry for n in range(LOCAL_SERVERS)},
    }
    document = {
        "numStartups": 412,
        "installMethod": "npm",
        "autoUpdates": True,
        "tipsHistory": {"new-user-warmup": 1},
        "mcpServers": {f"user-{n}": entry for n in range(USER_SERVERS)},
        "projects": projects,
    }
    # Claude Code writes JSON.stringify(x, null, 2).
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False), encoding="utf-8")
    return path.stat().st_size


def _memory_kib() -> tuple[int, int]:
    """This process's resident memory now and at its peak (``VmRSS``, ``VmHWM`` in KiB).

    Not ``ru_maxrss``: a child inherits its parent's (the writer of the big file) at fork.
    """
    fields = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


def child(home: Path, project: Path, *, old: bool = False) -> None:
    """One measurement, in this (fresh) process: print one JSON line. ``old``: the way before
    the file was read in parts (parsed whole, read once by each of its two stores)."""
    from agentty_tui.config import store
    from agentty_tui.config.documents import formats
    from agentty_tui.config.workspace import open_workspace

    if old:  # the module seams of the two changes: parsed whole, read by each store
        formats.READ_IN_PARTS = False
        setattr(store, "shared_text", lambda _key, read: read())  # noqa: B010

    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    before, _ = _memory_kib()
    start, cpu = time.perf_counter(), time.process_time()
    workspace = open_workspace(project, home=home, env=env, hosts=["claude"])
    config = workspace.load()
    first, first_cpu = time.perf_counter() - start, time.process_time() - cpu
    _, peak_first = _memory_kib()
    start, cpu = time.perf_counter(), time.process_time()
    again = workspace.load()
    second, second_cpu = time.perf_counter() - start, time.process_time() - cpu
    after, peak = _memory_kib()
    names = sorted(server.name for server in again.servers)
    print(
        json.dumps(
            {
                "first_load_s": first,
                "first_load_cpu_s": first_cpu,
                "reload_s": second,
                "reload_cpu_s": second_cpu,
                "peak_growth_kib": peak_first - before,
                "peak_growth_after_reload_kib": peak - before,
                "kept_after_kib": after - before,
                "servers": names,
                "warnings": list(config.warnings) + list(again.warnings),
            }
        )
    )


def measure(home: Path, project: Path, *, old: bool = False) -> dict[str, Any]:
    """Run one child (``old``: the way before) and return what it printed."""
    script = Path(__file__).resolve()
    done = subprocess.run(
        [sys.executable, str(script), "--child", str(home), str(project)]
        + (["--old"] if old else []),
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _extra(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--child", nargs=2, metavar=("HOME", "PROJECT"), help=argparse.SUPPRESS)
    parser.add_argument("--old", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--sizes", help="comma-separated sizes in MiB (ad hoc; writes nothing)")
    parser.add_argument("--rounds", type=int, help="rounds per size (ad hoc; writes nothing)")
    parser.add_argument("--project-kib", type=int, default=32, help="size of one project")


def main() -> None:
    """Write the files, measure each size in fresh processes, print the table."""
    args = parse_mode(__doc__ or "", _extra)
    if args.child:
        child(Path(args.child[0]), Path(args.child[1]), old=args.old)
        return
    sizes: tuple[int, ...] = QUICK_SIZES if args.quick else FULL_SIZES
    if args.sizes:
        sizes = tuple(int(size) for size in args.sizes.split(","))
    rounds = args.rounds or (1 if args.quick else 3)
    expected = sorted(
        [f"user-{n}" for n in range(USER_SERVERS)] + [f"local-{n}" for n in range(LOCAL_SERVERS)]
    )
    rows: list[list[object]] = []
    results: list[dict[str, Any]] = []
    with bench_dirs("claude-json") as dirs:
        homes: dict[int, tuple[Path, Path, int]] = {}
        for mib in sizes:
            home, project = dirs.root / f"home-{mib}", dirs.root / f"project-{mib}"
            home.mkdir()
            (project / ".git").mkdir(parents=True)
            size = write_claude_json(home / ".claude.json", project, mib, args.project_kib)
            homes[mib] = (home, project, size)
        samples: dict[int, list[dict[str, Any]]] = {mib: [] for mib in sizes}
        old_samples: dict[int, list[dict[str, Any]]] = {mib: [] for mib in sizes}
        for round_number in range(rounds):
            # Interleaved, the order turning each round: the machine's load spreads evenly.
            order = sizes if round_number % 2 == 0 else tuple(reversed(sizes))
            for mib in order:
                home, project, _size = homes[mib]
                for old, kept in ((False, samples), (True, old_samples)):
                    sample = measure(home, project, old=old)
                    if sample["servers"] != expected or sample["warnings"]:
                        raise SystemExit(f"{mib} MiB: wrong result {sample}")
                    kept[mib].append(sample)
        for mib in sizes:
            size = homes[mib][2]
            runs = samples[mib]

            def median(key: str, runs: list[dict[str, Any]] = runs) -> float:
                return stats([float(run[key]) for run in runs]).median

            growth = median("peak_growth_kib") / 1024
            per_mib = growth / (size / MIB)
            olds = old_samples[mib]
            old_cpu = median("first_load_cpu_s", olds)
            old_growth = median("peak_growth_kib", olds) / 1024
            rows.append(
                [
                    f"{size / MIB:.1f} MiB",
                    f"{median('first_load_s'):.2f} s",
                    f"{median('first_load_cpu_s'):.2f} s",
                    f"{median('reload_cpu_s'):.2f} s",
                    f"{median('first_load_cpu_s') / (size / MIB) * 1000:.0f} ms",
                    f"{growth:.0f} MiB",
                    f"{per_mib:.2f}",
                    f"{median('kept_after_kib') / 1024:.0f} MiB",
                    f"{old_cpu:.2f} s",
                    f"{old_cpu / median('first_load_cpu_s'):.1f}x",
                    f"{old_growth / (size / MIB):.2f}",
                ]
            )
            results.append(
                {
                    "size_bytes": size,
                    "first_load_median_s": median("first_load_s"),
                    "first_load_cpu_median_s": median("first_load_cpu_s"),
                    "reload_cpu_median_s": median("reload_cpu_s"),
                    "peak_growth_median_mib": growth,
                    "peak_growth_per_file_mib": per_mib,
                    "old_first_load_cpu_median_s": old_cpu,
                    "old_peak_growth_median_mib": old_growth,
                    "samples": runs,
                    "old_samples": olds,
                }
            )
    print_table(
        f"~/.claude.json read as the workspace's user and local sources ({rounds} rounds, "
        "medians; a fresh process each)",
        [
            "file",
            "first load",
            "its CPU",
            "reload CPU",
            "CPU per MiB",
            "peak RSS growth",
            "growth / size",
            "kept after",
            "old CPU",
            "old / new",
            "old growth / size",
        ],
        rows,
    )
    if not args.quick and not args.sizes and not args.rounds:
        write_results(
            "claude_json",
            {"project_kib": args.project_kib, "rounds": rounds, "sizes": results},
        )


if __name__ == "__main__":
    main()
