"""Shared helpers of the benchmarks: statistics, temp configs and log dirs, process checks.

Every benchmark script is run as ``python bench/bench_<name>.py [--quick]``; this module sits
next to them (``bench/`` is on ``sys.path`` as the script's folder) and puts the repository root
on ``sys.path`` too, so that the test servers (``tests.servers``) can serve the benchmarks.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
RESULTS_DIR = BENCH_DIR / "results"

if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

__all__ = [
    "BENCH_DIR",
    "REPO_ROOT",
    "RESULTS_DIR",
    "BenchDirs",
    "GcClock",
    "Stats",
    "bench_dirs",
    "env_for_child",
    "machine_info",
    "marker",
    "ms",
    "parse_mode",
    "pids_with_marker",
    "poll_until",
    "print_table",
    "ratio",
    "report_leftovers",
    "server_entry",
    "stats",
    "stopwatch",
    "write_config",
    "write_results",
]


# --- statistics ----------------------------------------------------------------------------


def _quantile(ordered: Sequence[float], q: float) -> float:
    """Linear-interpolated quantile of an already sorted sample (``q`` in [0, 1])."""
    if not ordered:
        return float("nan")
    pos = (len(ordered) - 1) * q
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


@dataclass(frozen=True, slots=True)
class Stats:
    """Summary of a sample of durations (seconds)."""

    n: int
    median: float
    p90: float
    p95: float
    q1: float
    q3: float
    minimum: float
    maximum: float
    mean: float

    @property
    def iqr(self) -> float:
        """Interquartile range."""
        return self.q3 - self.q1

    def as_dict(self) -> dict[str, float | int]:
        """For the JSON results."""
        return {
            "n": self.n,
            "median": self.median,
            "p90": self.p90,
            "p95": self.p95,
            "q1": self.q1,
            "q3": self.q3,
            "iqr": self.iqr,
            "min": self.minimum,
            "max": self.maximum,
            "mean": self.mean,
        }


def stats(sample: Sequence[float]) -> Stats:
    """Median, p90, p95, quartiles, extremes and mean of ``sample``."""
    ordered = sorted(sample)
    return Stats(
        n=len(ordered),
        median=_quantile(ordered, 0.5),
        p90=_quantile(ordered, 0.9),
        p95=_quantile(ordered, 0.95),
        q1=_quantile(ordered, 0.25),
        q3=_quantile(ordered, 0.75),
        minimum=ordered[0] if ordered else float("nan"),
        maximum=ordered[-1] if ordered else float("nan"),
        mean=statistics.fmean(ordered) if ordered else float("nan"),
    )


def ratio(numerator: float, denominator: float) -> float:
    """``numerator / denominator`` (NaN when the denominator is 0)."""
    return numerator / denominator if denominator else float("nan")


@contextlib.contextmanager
def stopwatch() -> Iterator[Callable[[], float]]:
    """``with stopwatch() as elapsed: ...; elapsed()`` → seconds (frozen at block exit)."""
    start = time.perf_counter()
    end: list[float] = []

    def elapsed() -> float:
        return (end[0] if end else time.perf_counter()) - start

    try:
        yield elapsed
    finally:
        end.append(time.perf_counter())


class GcClock:
    """Accumulates the time the cyclic garbage collector runs (``gc.callbacks``), while installed.

    ``with GcClock() as clock: ...; clock.total`` (seconds); ``clock.reset()`` between samples.
    """

    def __init__(self) -> None:
        self.total = 0.0
        self._started = 0.0

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.total += time.perf_counter() - self._started

    def reset(self) -> float:
        """Return the time collected so far and start again from zero."""
        total, self.total = self.total, 0.0
        return total

    def __enter__(self) -> GcClock:
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._callback)


# --- printing and results ------------------------------------------------------------------


def print_table(title: str, headers: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    """A plain aligned text table (first column left-aligned, the rest right-aligned)."""
    cells = [[str(h) for h in headers], *[[_cell(v) for v in row] for row in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]

    def line(row: Sequence[str]) -> str:
        return "  ".join(
            cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(row)
        )

    print()
    print(title)
    print(line(cells[0]))
    print("  ".join("-" * w for w in widths))
    for row in cells[1:]:
        print(line(row))


def _cell(value: object) -> str:
    if isinstance(value, float):
        if value != value:  # NaN
            return "-"
        if abs(value) >= 100:
            return f"{value:.0f}"
        if abs(value) >= 10:
            return f"{value:.1f}"
        return f"{value:.3g}" if abs(value) < 1 else f"{value:.2f}"
    return str(value)


def ms(seconds: float) -> float:
    """Seconds to milliseconds."""
    return seconds * 1000.0


def machine_info() -> dict[str, Any]:
    """What the results were measured on."""
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "loadavg": os.getloadavg(),
        "date": time.strftime("%Y-%m-%d %H:%M:%S %z"),
    }


def write_results(name: str, data: dict[str, Any]) -> Path:
    """Write ``bench/results/<name>.json`` (full mode only) and return its path."""
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = RESULTS_DIR / f"{name}.json"
    payload = {"benchmark": name, "machine": machine_info(), **data}
    path.write_text(json.dumps(payload, indent=2, sort_keys=False) + "\n")
    print(f"\nresults written to {path.relative_to(REPO_ROOT)}")
    return path


def parse_mode(
    description: str, extra: Callable[[argparse.ArgumentParser], None] | None = None
) -> argparse.Namespace:
    """The common command line: ``--quick`` for CI sizes, plus any ``extra`` options."""
    parser = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--quick", action="store_true", help="small sizes, < 30 s, no results file (CI)"
    )
    if extra is not None:
        extra(parser)
    return parser.parse_args()


# --- temp dirs, configs, child environments ------------------------------------------------


@dataclass(frozen=True, slots=True)
class BenchDirs:
    """A bench-owned temp tree: configs, server logs, XDG state for child processes."""

    root: Path
    logs: Path
    state: Path

    def config_path(self, name: str = "mcp.json") -> Path:
        """A config file path inside the temp tree."""
        return self.root / name


@contextlib.contextmanager
def bench_dirs(prefix: str) -> Iterator[BenchDirs]:
    """A fresh temp tree, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix=f"agentty-bench-{prefix}-") as root:
        base = Path(root)
        dirs = BenchDirs(root=base, logs=base / "logs", state=base / "state")
        dirs.logs.mkdir()
        dirs.state.mkdir()
        yield dirs


def server_entry(argv: Sequence[str], **extra: Any) -> dict[str, Any]:
    """A stdio ``mcpServers`` entry for ``argv``."""
    return {"command": argv[0], "args": list(argv[1:]), **extra}


def write_config(path: Path, servers: dict[str, dict[str, Any]], **top: Any) -> Path:
    """Write ``{**top, "mcpServers": servers}`` to ``path``."""
    path.write_text(json.dumps({**top, "mcpServers": servers}, indent=2) + "\n")
    return path


def env_for_child(dirs: BenchDirs) -> dict[str, str]:
    """The environment of a benchmarked subprocess: its state (logs) and cache inside the temp
    tree."""
    env = dict(os.environ)
    env["XDG_STATE_HOME"] = str(dirs.state)
    env["XDG_CONFIG_HOME"] = str(dirs.root / "xdg-config")
    # The token counts kept across runs: the bench's own (warm after its first run), never
    # the user's.
    env["XDG_CACHE_HOME"] = str(dirs.root / "cache")
    env.pop("AGENTTY_CONFIG", None)
    return env


# --- processes -----------------------------------------------------------------------------


def tree_cpu() -> float:
    """User + system seconds of every child this process has waited for, and their own."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed_command(
    argv: Sequence[str], env: dict[str, str], cwd: Path, timeout: float
) -> tuple[float, float, str]:
    """Run ``argv`` to its end; its wall time from spawn to exit, the CPU time of its process
    tree (every descendant it waited for: ``RUSAGE_CHILDREN``) and its stdout. A failure
    raises with its stderr's end."""
    cpu = tree_cpu()
    start = time.perf_counter()
    done = subprocess.run(
        list(argv),
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=timeout,
        check=False,
    )
    elapsed = time.perf_counter() - start
    cpu = tree_cpu() - cpu
    if done.returncode != 0:
        stderr = done.stderr.decode(errors="replace")[-3000:]
        raise RuntimeError(f"{list(argv)[:4]} exited with {done.returncode}:\n{stderr}")
    return elapsed, cpu, done.stdout.decode()


def with_cached_bytecode(env: dict[str, str], dirs: BenchDirs) -> dict[str, str]:
    """``env`` with every child's bytecode cached under the bench's tree (filled by the first
    run), as an installed program runs: this environment's ``PYTHONDONTWRITEBYTECODE=1`` would
    compile every module at each run."""
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(dirs.root / "pycache")
    return env


def marker(prefix: str) -> str:
    """A unique token put into every server's argv (``--name``), to find them in /proc."""
    return f"agentty-bench-{prefix}-{uuid.uuid4().hex[:10]}"


def pids_with_marker(token: str) -> set[int]:
    """PIDs of live processes whose command line contains ``token`` (a /proc scan)."""
    found: set[int] = set()
    needle = token.encode()
    own = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == own:
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                cmdline = handle.read()
            with open(f"/proc/{entry}/stat", "rb") as handle:
                state = handle.read().rsplit(b")", 1)[-1].split()[0]
        except OSError:
            continue
        if needle in cmdline and state != b"Z":
            found.add(int(entry))
    return found


async def poll_until(predicate: Callable[[], bool], timeout: float, interval: float = 0.02) -> bool:
    """Poll ``predicate`` until true or ``timeout``; returns whether it became true.

    For conditions no event signals (a /proc scan, a process exit).
    """
    import anyio

    with anyio.move_on_after(timeout):
        while not predicate():  # noqa: ASYNC110 - nothing to wait on but the condition itself
            await anyio.sleep(interval)
    return predicate()


def report_leftovers(token: str, wait: float = 3.0) -> int:
    """Print whether any server process tagged ``token`` outlived the benchmark; return count."""
    deadline = time.monotonic() + wait
    left = pids_with_marker(token)
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = pids_with_marker(token)
    print(f"\nleft-over server processes: {len(left)}" + (f" {sorted(left)}" if left else ""))
    return len(left)
