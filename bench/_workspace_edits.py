"""``bench_workspace.py``'s outside edits: one server's entry rewritten in its file, timed until
the restarted server is connected in the bridge's model and on the picker's screen.

The edit changes the server's ``--name`` argument (a new connection: the server restarts),
alternately by a rename over the file (as most editors and Claude Code save) and in place. The
sides take turns in two halves (A B B A); each half is a fresh bridge, live reload and picker.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from _common import BenchDirs, ms, pids_with_marker, poll_until, print_table, ratio, stats
from _workspace import EIGHT, RUN_TIMEOUT, SIDES, all_connected, opener, running_picker

from agentty_tui.config.workspace import Workspace
from agentty_tui.model import PluginModel, StdioSpec
from tests.fake_home import FakeHome

__all__ = ["EDITABLE", "EDIT_STEPS", "EditWatch", "edit_plan", "edit_rounds", "report_edits"]

EDIT_TIMEOUT = 30.0
QUIET = 0.4
"""Seconds left alone after each edit, so the next does not meet a late event of the last."""
EDIT_STEPS = ("reloaded", "connected", "on screen")
EDITABLE = EIGHT[:6]
"""The sources an outside edit goes to: the user and local ones. An edited entry of a project
file waits for the user's trust again (trust is kept by entry hash), so it is not restarted."""


def edit_plan(edits: int, per_source: int) -> list[tuple[str, str]]:
    """``(source, server)`` of each edit: round the user and local sources, then their
    servers."""
    plan = []
    for number in range(edits):
        source = EDITABLE[number % len(EDITABLE)]
        plan.append((source, f"{source}-{(number // len(EDITABLE)) % per_source + 1}"))
    return plan


def rewrite(path: Path, old: str, new: str, *, atomic: bool) -> None:
    """Change one server's ``--name`` argument in ``path`` as an editor would: by writing a
    new file and renaming it over the old one (``atomic``), or by rewriting it in place."""
    text = path.read_text()
    if text.count(f'"{old}"') != 1:
        raise RuntimeError(f"{path} holds {old!r} {text.count(old)} times, not once")
    text = text.replace(f'"{old}"', f'"{new}"')
    if atomic:
        temporary = path.with_name(f".{path.name}.edit")
        temporary.write_text(text)
        os.replace(temporary, path)
    else:
        with path.open("r+") as handle:
            handle.write(text)
            handle.truncate()


class EditWatch:
    """Stamps when the snapshots first show an edited server's new entry, then it connected
    on a new process."""

    def __init__(self) -> None:
        self.name = ""
        """The edited server."""
        self.label = ""
        """Its new ``--name`` argument."""
        self.old_pid: int | None = None
        """The process it ran as before the edit."""
        self.stamps: dict[str, float] = {}
        """``reloaded`` / ``connected`` -> ``perf_counter()`` time of the first such snapshot."""

    def aim(self, name: str, label: str, old_pid: int | None) -> None:
        """Watch for ``name`` started with ``--name label``, no longer as process ``old_pid``."""
        self.name, self.label, self.old_pid, self.stamps = name, label, old_pid, {}

    def restarted(self, model: PluginModel) -> bool:
        """Whether ``model`` shows the server on its new entry, connected, on a new process."""
        return self._new_entry(model) and self._connected(model)

    def _new_entry(self, model: PluginModel) -> bool:
        state = model.server(self.name) if self.name else None
        return (
            state is not None
            and isinstance(state.spec, StdioSpec)
            and self.label in state.spec.args
        )

    def _connected(self, model: PluginModel) -> bool:
        state = model.server(self.name)
        return state is not None and state.status == "connected" and state.pid != self.old_pid

    def __call__(self, model: PluginModel) -> None:
        """The bridge's listener."""
        if not self._new_entry(model):
            return
        now = time.perf_counter()
        self.stamps.setdefault("reloaded", now)
        if self._connected(model):
            self.stamps.setdefault("connected", now)


async def edit_block(
    open_config: Callable[[], Workspace],
    path_of: Callable[[str], Path],
    plan: list[tuple[int, str, str]],
    labels: dict[str, str],
    servers: int,
    dirs: BenchDirs,
    token: str,
) -> dict[str, list[float]]:
    """The picker over one side, live reload on; for each ``(number, source, server)`` of
    ``plan``, that server's entry edited in its file from outside, timed from the write until
    the server is restarted and connected in the model and on screen."""
    watch = EditWatch()
    samples: dict[str, list[float]] = {step: [] for step in EDIT_STEPS}
    samples.update({"atomic: on screen": [], "in place: on screen": [], "restarts": []})
    samples["reloads"] = []
    complete = all_connected(servers)
    async with running_picker(open_config(), dirs, watch, lambda _app: {}) as (bridge, app, probe):
        if not complete(await bridge.settled(RUN_TIMEOUT)):
            raise RuntimeError("not every server connected")
        for number, source, name in plan:
            await anyio.sleep(QUIET)
            await poll_until(lambda: not pids_with_marker(token) - set(bridge.live_pids), 10.0)
            pids = {s.name: s.pid for s in bridge.snapshot.servers}
            old, new = labels[name], f"{token}-{name}-v{number + 1}"
            watch.aim(name, new, pids[name])
            shown = probe.expect(
                {
                    "on screen": lambda text: (
                        watch.restarted(app.model) and f"{servers} connected · " in text
                    )
                }
            )
            reloads = bridge.live.reloads
            atomic = number % 2 == 0
            start = time.perf_counter()
            rewrite(path_of(source), old, new, atomic=atomic)
            with anyio.fail_after(EDIT_TIMEOUT):
                await shown.wait()
            labels[name] = new
            stamps = {**watch.stamps, **probe.stamps}
            for step in EDIT_STEPS:
                samples[step].append(stamps[step] - start)
            kind = "atomic" if atomic else "in place"
            samples[f"{kind}: on screen"].append(stamps["on screen"] - start)
            after = {s.name: s.pid for s in bridge.snapshot.servers}
            samples["restarts"].append(sum(1 for n, pid in after.items() if pids.get(n) != pid))
            samples["reloads"].append(bridge.live.reloads - reloads)
    return samples


async def edit_rounds(
    fake: FakeHome,
    one: Path,
    servers: int,
    plan: list[tuple[str, str]],
    dirs: BenchDirs,
    token: str,
) -> dict[str, dict[str, list[float]]]:
    """The edits of ``plan`` on each side, in two halves, the sides in the order A B B A."""
    labels = {side: {name: f"{token}-{name}" for _, name in plan} for side in SIDES}
    numbered = [(number, source, name) for number, (source, name) in enumerate(plan)]
    halves = [numbered[: len(plan) // 2], numbered[len(plan) // 2 :]]
    samples: dict[str, dict[str, list[float]]] = {side: {} for side in SIDES}
    for half, order in zip(halves, (SIDES, SIDES[::-1]), strict=True):
        for side in order:
            path_of: Callable[[str], Path] = (
                (lambda source: fake.files[source]) if side == "workspace" else (lambda _s: one)
            )
            got = await edit_block(
                opener(side, fake, one), path_of, half, labels[side], servers, dirs, token
            )
            for key, values in got.items():
                samples[side].setdefault(key, []).extend(values)
            await poll_until(lambda: not pids_with_marker(token), 30.0)
            print(f"  {len(half)} edits of the {side} done", flush=True)
    return samples


def report_edits(edits: dict[str, dict[str, list[float]]]) -> dict[str, Any]:
    """Print the outside-edit table; return its figures for the results file."""
    timed = [*EDIT_STEPS, "atomic: on screen", "in place: on screen"]
    summary = {side: {key: stats(edits[side][key]) for key in timed} for side in SIDES}
    print_table(
        "outside edit of one server's entry → (ms from the write)",
        ["until", "n", "ws median", "ws p90", "one median", "one p90", "ratio"],
        [
            [
                key,
                summary["workspace"][key].n,
                ms(summary["workspace"][key].median),
                ms(summary["workspace"][key].p90),
                ms(summary["one file"][key].median),
                ms(summary["one file"][key].p90),
                ratio(summary["workspace"][key].median, summary["one file"][key].median),
            ]
            for key in timed
        ],
    )
    counts = {
        side: {key: sorted(set(edits[side][key])) for key in ("restarts", "reloads")}
        for side in SIDES
    }
    for side in SIDES:
        print(
            f"{side}: processes restarted per edit {counts[side]['restarts']} (expected [1]), "
            f"live reloads per edit {counts[side]['reloads']} (expected [1])"
        )
    head = summary["workspace"]["on screen"]
    print(
        f"\noutside edit → restarted server on screen (workspace): median {ms(head.median):.0f} "
        f"ms, p90 {ms(head.p90):.0f} ms over {head.n} edits (debounce included)"
    )
    return {
        "stats_seconds": {
            side: {key: s.as_dict() for key, s in by.items()} for side, by in summary.items()
        },
        "samples": edits,
        "per_edit_counts": counts,
    }
