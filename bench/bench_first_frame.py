"""Never waiting on a server: process start to the picker's first full frame, as a real process.

Each round starts ``python -m agentty_tui --config X`` under a pseudo-terminal (120 x 40,
``TERM=xterm-256color``) and reads what it writes to the terminal until the status bar's text
("... on the wire") appears: the status bar is the last widget of the first full frame, so its
arrival means the whole frame has been written. The clock runs from just before the process is
spawned. Then ``q`` is typed and the time until the process has exited is taken too (the picker
stops every server before it returns).

Two configs, interleaved round by round (order alternating, a warm-up round of each first):

- **slow server**: one ``scalable_server.py --delay 5`` (a server that takes 5 s to start);
- **empty**: no servers at all.

Target: median(slow) / median(empty) <= 1.10, and the first frame of the slow config shows
the server as connecting (the picker never waits for it).

``--baseline-tree DIR`` also runs the picker of another checkout (``git archive`` of an earlier
commit into DIR) on the empty config, interleaved with this one's: issue 25's target is this
checkout's first frame on the empty config <= 0.6 of commit 2debda8's.

Then a workspace (no ``--config``: the project's folder, a fake home, ``--no-daemon``) whose
``~/.claude.json`` is a heavy Claude Code user's (``bench_claude_json.write_claude_json``: 16 MiB,
4 MiB with ``--quick``; 3 user and 2 local servers that exit at once), against the same
workspace with a small one (the same servers, one project): the first frame should not wait for
the large file (ratio large / small near 1; its servers arrive in a later frame). With
``--baseline-tree`` the other checkout's picker runs on both too.

Every child runs with its bytecode cached (filled by the warm-up round), as an installed
program does. ``python bench/bench_first_frame.py`` (12 rounds) or ``--quick`` (2 rounds).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
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
    write_config,
    write_results,
)
from bench_claude_json import write_claude_json

from tests.servers import scalable_argv

TARGET = 1.10
BASELINE_TARGET = 0.6
SERVER_DELAY = 5.0
COLUMNS, LINES = 120, 40
FRAME_MARK = b"on the wire"
"""Text of the status bar, present in every first frame whatever the config holds."""
FRAME_TIMEOUT = 30.0
EXIT_TIMEOUT = 30.0
_ESCAPES = re.compile(rb"\x1b\[[0-9;?<>=$ ]*[A-Za-z~]|\x1b[()][0-9A-Za-z]|\x1b[=>]")


def _plain(data: bytes) -> str:
    """The terminal output without its escape sequences (for the connecting check)."""
    return _ESCAPES.sub(b"", data).decode("utf-8", "replace")


LARGE_MIB, QUICK_LARGE_MIB = 16, 4
"""The size of the large ``~/.claude.json`` (MiB), and with ``--quick``."""


def _one_run(
    config: Path | tuple[Path, Path], dirs: BenchDirs, tree: Path | None = None
) -> dict[str, Any]:
    """Spawn the picker on ``config`` under a pty (``tree``'s, else this checkout's); time the
    first frame, then quit it. ``config``: a file (``--config``), or a workspace: the project
    folder it runs in and the home it reads."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLUMNS, 0, 0))
    env = env_for_child(dirs)
    env["TERM"] = "xterm-256color"
    env["COLUMNS"], env["LINES"] = str(COLUMNS), str(LINES)
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    # Bytecode cached (filled by the warm-up round) for both checkouts, as an installed
    # program runs: this environment's PYTHONDONTWRITEBYTECODE=1 would compile every one of our
    # modules at every start while the SDK's come compiled.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(dirs.root / "pycache")
    command = [sys.executable, "-m", "agentty_tui"]
    cwd = tree
    if isinstance(config, tuple):  # a workspace: no daemon of the real user is attached to
        cwd, home = config
        env["HOME"] = str(home)
        env["PYTHONPATH"] = str(tree or REPO_ROOT)  # ``-m`` no longer finds it in the folder
        command.append("--no-daemon")
    else:
        command += ["--config", str(config)]
    output = bytearray()
    first_frame: float | None = None
    exited: float | None = None
    start = time.perf_counter()
    process = subprocess.Popen(
        command,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
        cwd=cwd,  # ``-m`` looks in the current folder first
    )
    os.close(slave)
    try:
        deadline = start + FRAME_TIMEOUT
        while first_frame is None and time.perf_counter() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if not ready:
                if process.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            seen = len(output)
            output += chunk
            # The mark may straddle two reads: search from a little before the new chunk.
            if output.find(FRAME_MARK, max(0, seen - len(FRAME_MARK))) >= 0:
                first_frame = time.perf_counter() - start
        frame_text = _plain(bytes(output))
        if first_frame is None:
            raise RuntimeError(f"no first frame within {FRAME_TIMEOUT} s:\n{frame_text[-2000:]}")
        quit_at = time.perf_counter()
        os.write(master, b"q")
        deadline = quit_at + EXIT_TIMEOUT
        while process.poll() is None and time.perf_counter() < deadline:
            ready, _, _ = select.select([master], [], [], 0.05)
            if ready:
                with contextlib.suppress(OSError):  # keep the pty drained: the child never blocks
                    os.read(master, 65536)
        if process.poll() is not None:
            exited = time.perf_counter() - quit_at
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        os.close(master)
    return {
        "first_frame": first_frame,
        "exit_after_q": exited,
        "returncode": process.returncode,
        "connecting_shown": "connecting" in frame_text,
    }


def _options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--baseline-tree", type=Path, help="another checkout whose first frame is measured too"
    )


def main() -> int:
    args = parse_mode(__doc__ or "", _options)
    baseline: Path | None = args.baseline_tree.resolve() if args.baseline_tree else None
    rounds = 2 if args.quick else 12
    token = marker("first-frame")
    print(
        f"first frame: picker on one server that starts in {SERVER_DELAY:g} s, against an "
        f"empty config; {rounds} rounds (+1 warm-up), real processes under a pty"
    )
    large_mib = QUICK_LARGE_MIB if args.quick else LARGE_MIB
    names = ["slow server", "empty"] + (["baseline empty"] if baseline else [])
    workspaces = [f"~/.claude.json {large_mib} MiB", "~/.claude.json small"]
    names += workspaces + ([f"baseline {name}" for name in workspaces] if baseline else [])
    samples: dict[str, list[float]] = {name: [] for name in names}
    exits: dict[str, list[float]] = {name: [] for name in names}
    connecting_shown: list[bool] = []
    failures: list[str] = []
    with bench_dirs("first-frame") as dirs:
        configs: dict[str, Path | tuple[Path, Path]] = {
            "slow server": write_config(
                dirs.config_path("slow.json"),
                {"slow": server_entry(scalable_argv(10, delay=SERVER_DELAY, name=token))},
            ),
            "empty": write_config(dirs.config_path("empty.json"), {}),
        }
        for name, mib in zip(workspaces, (large_mib, 0), strict=True):
            home, project = dirs.root / f"home-{mib}", dirs.root / f"project-{mib}"
            home.mkdir()
            (project / ".git").mkdir(parents=True)
            write_claude_json(home / ".claude.json", project, mib, 32)
            configs[name] = (project, home)
        for number in range(rounds + 1):
            order = names[number % len(names) :] + names[: number % len(names)]
            for name in order:
                tree = baseline if name.startswith("baseline ") else None
                run = _one_run(configs[name.removeprefix("baseline ")], dirs, tree)
                if run["returncode"] not in (0, None) or run["exit_after_q"] is None:
                    failures.append(f"{name}: exit code {run['returncode']}")
                if number == 0:
                    continue  # warm-up: file caches, .pyc
                samples[name].append(run["first_frame"])
                if run["exit_after_q"] is not None:
                    exits[name].append(run["exit_after_q"])
                if name == "slow server":
                    connecting_shown.append(run["connecting_shown"])
            print(f"  round {number}{' (warm-up)' if number == 0 else ''} done", flush=True)
    leftovers = report_leftovers(token)

    summary = {name: stats(sample) for name, sample in samples.items()}
    exit_summary = {name: stats(sample) for name, sample in exits.items() if sample}
    per_round = [s / e for s, e in zip(samples["slow server"], samples["empty"], strict=True)]
    per_round_stats = stats(per_round)
    print_table(
        "process start → first full frame (ms)",
        ["config", "n", "median", "p95", "IQR", "min", "max", "exit after q (median)"],
        [
            [
                name,
                s.n,
                ms(s.median),
                ms(s.p95),
                ms(s.iqr),
                ms(s.minimum),
                ms(s.maximum),
                ms(exit_summary[name].median) if name in exit_summary else float("nan"),
            ]
            for name, s in summary.items()
        ],
    )
    headline = ratio(summary["slow server"].median, summary["empty"].median)
    print(
        f"\nratio slow / empty (medians): {headline:.3f}   per-round ratio: median "
        f"{per_round_stats.median:.3f}, IQR {per_round_stats.q1:.3f}-{per_round_stats.q3:.3f}"
        f"   target <= {TARGET}: {'MET' if headline <= TARGET else 'MISSED'}"
    )
    print(
        f"first frame of the slow config shows it connecting: "
        f"{sum(connecting_shown)}/{len(connecting_shown)}"
    )
    against: float | None = None
    if baseline is not None:
        against = ratio(summary["empty"].median, summary["baseline empty"].median)
        paired = stats(
            [a / b for a, b in zip(samples["empty"], samples["baseline empty"], strict=True)]
        )
        print(
            f"empty config, this checkout / {baseline.name} (medians): {against:.3f}   "
            f"per-round: median {paired.median:.3f}, IQR {paired.q1:.3f}-{paired.q3:.3f}   "
            f"target <= {BASELINE_TARGET}: {'MET' if against <= BASELINE_TARGET else 'MISSED'}"
        )
    large, small = workspaces
    waits = ratio(summary[large].median, summary[small].median)
    print(
        f"workspace with a {large_mib} MiB ~/.claude.json / with a small one (medians): "
        f"{waits:.3f}"
        + (
            f"   {baseline.name}: "
            f"{ratio(summary['baseline ' + large].median, summary['baseline ' + small].median):.3f}"
            if baseline is not None
            else ""
        )
    )
    if failures:
        print("failures: " + "; ".join(failures))
    if not args.quick:
        write_results(
            "first_frame",
            {
                "rounds": rounds,
                "server_delay_seconds": SERVER_DELAY,
                "terminal": {"columns": COLUMNS, "lines": LINES, "term": "xterm-256color"},
                "stats_seconds": {name: s.as_dict() for name, s in summary.items()},
                "exit_after_q_seconds": {name: s.as_dict() for name, s in exit_summary.items()},
                "ratio_of_medians": headline,
                "per_round_ratio": per_round_stats.as_dict(),
                "target": TARGET,
                "met": headline <= TARGET,
                "connecting_shown": connecting_shown,
                "baseline_tree": str(baseline) if baseline else None,
                "ratio_empty_vs_baseline": against,
                "large_claude_json_mib": large_mib,
                "ratio_large_vs_small_claude_json": waits,
                "baseline_target": BASELINE_TARGET,
                "samples_seconds": samples,
                "failures": failures,
                "leftover_processes": leftovers,
            },
        )
    return 1 if leftovers or failures or not all(connecting_shown) else 0


if __name__ == "__main__":
    raise SystemExit(main())
