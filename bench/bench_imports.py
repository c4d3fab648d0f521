"""Import time of the headless commands, and whether they import Textual.

Wall time of fresh interpreters, interleaved (one discarded warm-up round):

- ``python -c pass``                                   the interpreter alone
- ``python -c "import mcp"``                            the SDK alone: the floor of any MCP client
- ``python -c "import agentty_tui.cli.headless"``      the headless commands (their table)
- ``python -m agentty_tui --version``                   the CLI before any command
- ``python -m agentty_tui --help``                      the same, with every command's help
- ``python -m agentty_tui disable S T --config ONE``    a config-only edit (a tool it names)
- ``python -m agentty_tui enable S T --config INC``     the same the other way
- ``python -m agentty_tui logout WEB --config URL``     forgetting a URL server's stored login
- ``python -m agentty_tui list --json --config EMPTY``  a whole headless command, no servers

Then ``python -X importtime`` of ``list``, ``catalog`` and ``enable`` (on an empty config) and of
the config-only paths (``--version``, ``--help``, ``sources``, that ``disable``, ``enable`` and
``logout``) says whether any ``textual`` module was imported (target: no, anywhere), whether the
SDK (``mcp``, ``mcp_types``) or its HTTP client (``httpx2``) was (target: not on the config-only
paths), whether pydantic was (target: not for ``--help`` and ``--version``), whether an event
loop was (asyncio or anyio; target: not on the config-only paths, which run without one) and
whether tomlkit was (target: not for a JSON file), and which packages cost the most. Target
for the config-only paths: at most 0.25 of ``import mcp``'s wall time.

The CPU time (user + system) of each child is taken too, with its ratios: on a machine whose
load moves the wall time from round to round (a shared 2-core machine), it is the steadier
figure.

Every child runs with its bytecode cached (``PYTHONPYCACHEPREFIX`` in the benchmark's temp dir,
filled by the warm-up round), as an installed program runs: pip compiles the SDK's modules when
it installs them, and an environment with ``PYTHONDONTWRITEBYTECODE=1`` would otherwise compile
every one of our modules at every start while the SDK's come compiled (about 0.2 s of
``disable``'s start on this machine). ``--compile-each-run`` keeps the environment as it is.
``--tree DIR`` runs another checkout's ``agentty_tui`` (e.g. an earlier commit's, from ``git
archive``) with this script, for a before and after; ``--baseline-tree DIR`` runs that
checkout's config-only rows too, interleaved with this one's in the same rounds (a machine
whose load changes from minute to minute gives comparable ratios only side by side).

``python bench/bench_imports.py`` (15 rounds) or ``--quick`` (1 round); both after a warm-up
round.
"""

from __future__ import annotations

import argparse
import re
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _common import (
    REPO_ROOT,
    BenchDirs,
    bench_dirs,
    env_for_child,
    ms,
    parse_mode,
    print_table,
    ratio,
    stats,
    write_config,
    write_results,
)

TARGET = 0.25
"""A config-only command's wall time against ``import mcp``'s (issue 25)."""
CONFIG_ONLY = (
    "agentty-tui --version",
    "agentty-tui --help",
    "agentty-tui disable (config only)",
    "agentty-tui enable (config only)",
    "agentty-tui logout",
)
"""The wall-time rows held to ``TARGET``."""

_IMPORT_LINE = re.compile(r"^import time:\s+(\d+)\s+\|\s+(\d+)\s+\|(\s*)(\S+)\s*$")


_ENV: dict[str, str] = {}
"""The children's environment, set once by ``main``."""
_TREE: list[Path] = [REPO_ROOT]
"""The checkout whose ``agentty_tui`` the children run (their folder: ``-m`` looks there first)."""


def _child_env(dirs: BenchDirs, cached: bool) -> dict[str, str]:
    env = env_for_child(dirs)
    if cached:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(dirs.root / "pycache")
    return env


BASELINE = " [baseline]"
"""Appended to a row's name for the same command run from ``--baseline-tree``."""

HEADLESS = "import agentty_tui.cli.headless"
"""The row of the headless commands' import (from an older ``--baseline-tree``, the module
they were then: ``agentty_tui.commands``)."""


def _headless_module(tree: Path) -> str:
    """The module of ``tree`` that holds the table of headless commands."""
    if (tree / "agentty_tui" / "cli" / "headless.py").is_file():
        return "agentty_tui.cli.headless"
    return "agentty_tui.commands"


def _wall(argv: list[str], dirs: BenchDirs, tree: Path | None = None) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of ``argv`` from ``tree``'s ``agentty_tui``
    (default: the measured one)."""
    env = _ENV if tree is None else {**_ENV, "PYTHONPATH": str(tree)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        argv,
        cwd=_TREE[0] if tree is None else tree,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
        timeout=60,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return wall, cpu


def _importtime(argv: list[str], dirs: BenchDirs) -> dict[str, tuple[int, int, int]]:
    """``module -> (self µs, cumulative µs, depth)`` from ``-X importtime``."""
    done = subprocess.run(
        [argv[0], "-X", "importtime", *argv[1:]],
        cwd=_TREE[0],
        env=_ENV,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=False,
        timeout=60,
    )
    modules: dict[str, tuple[int, int, int]] = {}
    for line in done.stderr.decode(errors="replace").splitlines():
        match = _IMPORT_LINE.match(line)
        if match:
            own, cumulative, indent, name = match.groups()
            modules[name] = (int(own), int(cumulative), len(indent) // 2)
    return modules


def _top_packages(modules: dict[str, tuple[int, int, int]], count: int) -> list[tuple[str, int]]:
    """Self time summed per top-level package, largest first."""
    per: dict[str, int] = {}
    for name, (own, _cumulative, _depth) in modules.items():
        top = name.split(".", 1)[0]
        per[top] = per.get(top, 0) + own
    return sorted(per.items(), key=lambda item: -item[1])[:count]


def _options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tree", type=Path, help="another checkout's agentty_tui to measure")
    parser.add_argument(
        "--compile-each-run",
        action="store_true",
        help="no bytecode cache of our own: the environment's PYTHONDONTWRITEBYTECODE as it is",
    )
    parser.add_argument(
        "--baseline-tree",
        type=Path,
        help="another checkout whose config-only rows run interleaved with these",
    )


def main() -> int:
    args = parse_mode(__doc__ or "", _options)
    rounds = 1 if args.quick else 15
    python = sys.executable
    with bench_dirs("imports") as dirs:
        _ENV.update(_child_env(dirs, cached=not args.compile_each_run))
        if args.tree is not None:
            _TREE[0] = args.tree.resolve()
            _ENV["PYTHONPATH"] = str(_TREE[0])
        empty = write_config(dirs.config_path(), {})
        # One server whose config names a tool: disabling that tool needs no live check.
        one = write_config(
            dirs.config_path("one.json"),
            {"s": {"command": "true", "tools": {"exclude": ["t"]}}},
        )
        toggle = [python, "-m", "agentty_tui", "disable", "s", "t", "--config", str(one)]
        # Its allow-list names the tool: enabling it needs no live check either.
        included = write_config(
            dirs.config_path("included.json"),
            {"s": {"command": "true", "tools": {"include": ["t"]}}},
        )
        enable = [python, "-m", "agentty_tui", "enable", "s", "t", "--config", str(included)]
        url = write_config(dirs.config_path("url.json"), {"web": {"url": "https://example.com/"}})
        logout = [python, "-m", "agentty_tui", "logout", "web", "--config", str(url)]
        commands: dict[str, list[str]] = {
            "python -c pass": [python, "-c", "pass"],
            "import mcp": [python, "-c", "import mcp"],
            HEADLESS: [python, "-c", "import agentty_tui.cli.headless"],
            "agentty-tui --version": [python, "-m", "agentty_tui", "--version"],
            "agentty-tui --help": [python, "-m", "agentty_tui", "--help"],
            "agentty-tui disable (config only)": toggle,
            "agentty-tui enable (config only)": enable,
            "agentty-tui logout": logout,
            "agentty-tui list (empty config)": [
                python,
                "-m",
                "agentty_tui",
                "list",
                "--json",
                "--config",
                str(empty),
            ],
        }
        baseline: dict[str, Path] = {}
        if args.baseline_tree is not None:
            for name in (HEADLESS, *CONFIG_ONLY):
                commands[name + BASELINE] = commands[name]
                baseline[name + BASELINE] = args.baseline_tree.resolve()
            module = _headless_module(args.baseline_tree.resolve())
            commands[HEADLESS + BASELINE] = [python, "-c", f"import {module}"]
        times: dict[str, list[float]] = {name: [] for name in commands}
        cpu_times: dict[str, list[float]] = {name: [] for name in commands}
        names = list(commands)
        for round_index in range(rounds + 1):
            shift = round_index % len(names)
            for name in names[shift:] + names[:shift]:
                elapsed, cpu = _wall(commands[name], dirs, baseline.get(name))
                if round_index:
                    times[name].append(elapsed)
                    cpu_times[name].append(cpu)

        headless = {
            "list": ["list", "--json"],
            "catalog": ["catalog", "--json"],
            "enable": ["enable", "nosuchserver", "nosuchtool"],
        }
        runs: dict[str, list[str]] = {
            verb: [python, "-m", "agentty_tui", *words, "--config", str(empty)]
            for verb, words in headless.items()
        }
        config_only = {
            "--version": [python, "-m", "agentty_tui", "--version"],
            "--help": [python, "-m", "agentty_tui", "--help"],
            "sources": [python, "-m", "agentty_tui", "sources"],
            "disable (config only)": toggle,
            "enable (config only)": enable,
            "logout": logout,
        }
        runs.update(config_only)
        textual: dict[str, bool] = {}
        sdk_loaded: dict[str, bool] = {}
        pydantic_loaded: dict[str, bool] = {}
        loop_loaded: dict[str, bool] = {}
        toml_loaded: dict[str, bool] = {}
        import_totals: dict[str, float] = {}
        heaviest: list[tuple[str, int]] = []
        for verb, argv in runs.items():
            modules = _importtime(argv, dirs)
            tops = {name.split(".")[0] for name in modules}
            textual[verb] = "textual" in tops
            sdk_loaded[verb] = bool(tops & {"mcp", "mcp_types", "httpx", "httpx2"})
            pydantic_loaded[verb] = "pydantic" in tops
            loop_loaded[verb] = bool(tops & {"asyncio", "anyio"})
            toml_loaded[verb] = "tomlkit" in tops
            import_totals[verb] = sum(own for own, _c, _d in modules.values()) / 1e6
            if verb == "list":
                heaviest = _top_packages(modules, 8)
        commands_modules = _importtime([python, "-c", "import agentty_tui.cli.headless"], dirs)
        cumulative_commands = commands_modules.get("agentty_tui.cli.headless", (0, 0, 0))[1] / 1e6
        textual_in_commands = any(n.split(".")[0] == "textual" for n in commands_modules)

    summary = {name: stats(sample) for name, sample in times.items()}
    floor = summary["python -c pass"].median
    sdk = summary["import mcp"].median
    print_table(
        f"wall time of a fresh interpreter (ms), {rounds} interleaved rounds",
        ["command", "median", "p90", "IQR", "- python", "/ import mcp"],
        [
            [name, ms(s.median), ms(s.p90), ms(s.iqr), ms(s.median - floor), ratio(s.median, sdk)]
            for name, s in summary.items()
        ],
    )
    cpu_summary = {name: stats(sample) for name, sample in cpu_times.items()}
    cpu_sdk = cpu_summary["import mcp"].median
    print_table(
        "CPU time (user + system) of the same runs (ms): less moved by a loaded machine",
        ["command", "median", "IQR", "/ import mcp"],
        [
            [name, ms(s.median), ms(s.iqr), ratio(s.median, cpu_sdk)]
            for name, s in cpu_summary.items()
        ],
    )
    against_sdk = {name: ratio(summary[name].median, sdk) for name in CONFIG_ONLY}
    print(f"\nagainst `import mcp` (medians), target <= {TARGET}:")
    for name, value in against_sdk.items():
        print(f"  {name:36} {value:.3f}  {'MET' if value <= TARGET else 'MISSED'}")
    against_baseline = {
        name: ratio(summary[name].median, summary[name + BASELINE].median)
        for name in (HEADLESS, *CONFIG_ONLY)
        if name + BASELINE in summary
    }
    cpu_against_sdk = {name: ratio(cpu_summary[name].median, cpu_sdk) for name in CONFIG_ONLY}
    print(f"\nCPU time against `import mcp`'s (medians), target <= {TARGET}:")
    for name, value in cpu_against_sdk.items():
        before = cpu_summary.get(name + BASELINE)
        versus = "" if before is None else f"  (baseline: {ratio(before.median, cpu_sdk):.3f})"
        print(f"  {name:36} {value:.3f}  {'MET' if value <= TARGET else 'MISSED'}{versus}")
    if against_baseline:
        print(f"\nagainst {args.baseline_tree} in the same rounds (medians):")
        for name, value in against_baseline.items():
            mine = ratio(summary[name].median, sdk)
            base = ratio(summary[name + BASELINE].median, sdk)
            print(f"  {name:36} {value:.3f}  (of import mcp: {mine:.3f} against {base:.3f})")
    print_table(
        "-X importtime of the headless commands (empty config): what each imports",
        [
            "command",
            "all imports (ms)",
            "textual",
            "the SDK",
            "pydantic",
            "asyncio/anyio",
            "tomlkit",
        ],
        [
            [
                verb,
                ms(import_totals[verb]),
                *(
                    "yes" if loaded[verb] else "no"
                    for loaded in (
                        textual,
                        sdk_loaded,
                        pydantic_loaded,
                        loop_loaded,
                        toml_loaded,
                    )
                ),
            ]
            for verb in runs
        ],
    )
    print(
        f"\n`{HEADLESS}`: {ms(cumulative_commands):.0f} ms cumulative, "
        f"imports textual: {'yes' if textual_in_commands else 'no'}"
    )
    print_table(
        "heaviest packages imported by `list` (self time, ms)",
        ["package", "ms"],
        [[name, ms(us / 1e6)] for name, us in heaviest],
    )
    if not args.quick:
        results: dict[str, Any] = {
            "rounds": rounds,
            "bytecode_cached": not args.compile_each_run,
            "stats_seconds": {name: s.as_dict() for name, s in summary.items()},
            "samples_seconds": times,
            "cpu_stats_seconds": {name: s.as_dict() for name, s in cpu_summary.items()},
            "cpu_samples_seconds": cpu_times,
            "importtime_total_seconds": import_totals,
            "imports_textual": {**textual, HEADLESS: textual_in_commands},
            "imports_sdk": sdk_loaded,
            "imports_pydantic": pydantic_loaded,
            "imports_event_loop": loop_loaded,
            "imports_tomlkit": toml_loaded,
            "config_only_against_import_mcp": against_sdk,
            "config_only_cpu_against_import_mcp": cpu_against_sdk,
            "against_baseline": against_baseline,
            "baseline_tree": None if args.baseline_tree is None else str(args.baseline_tree),
            "target": TARGET,
            "commands_cumulative_seconds": cumulative_commands,
            "heaviest_packages_ms": {name: us / 1e3 for name, us in heaviest},
        }
        write_results("imports", results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
