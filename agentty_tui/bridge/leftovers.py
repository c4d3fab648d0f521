"""What an earlier run of the app left running, ended at the next start.

An app killed by SIGKILL (the OOM killer, a terminal emulator's cleanup) stops nothing: its
servers get SIGTERM from the kernel (``child``'s death signal), but a server that ignores it,
and every grandchild (the death signal is not inherited), keeps running. Each of them still
carries its spawn's token in its environment, and every token of one run starts with that
run's own token (``proctable.run_token``).

So each run of the app records itself while it runs: a file
``$XDG_STATE_HOME/agentty/runs/<run token>.json`` (``~/.local/state`` without the variable)
with its pid, its start time and the boot it started in, removed when it ends. At the next
start, a record whose app is gone (no process with that pid and start time in this boot) is a
run that died: our own user's processes carrying its token are ended (``carriers_of_run``:
another user's are never read), the record removed, and one line says how many. A record whose
app still runs is left alone, whatever its age: pid reuse is told apart by the start time.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from agentty_tui.bridge.proctable import carriers_of_run, run_token, start_time
from agentty_tui.bridge.reaper import kill_tree

__all__ = ["RunRecord", "end_leftovers", "forget_run", "record_run", "runs_folder"]

log = logging.getLogger(__name__)

SUFFIX = ".json"


def runs_folder() -> Path:
    """``$XDG_STATE_HOME/agentty/runs``, else ``~/.local/state/agentty/runs``."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "agentty" / "runs"


def _boot_id() -> str:
    """This boot's id (start times count from the boot): empty where there is none."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


@dataclass(frozen=True)
class RunRecord:
    """One run of the app, as its record file says."""

    run: str
    """Its ``run_token``: the first part of the token of everything it spawned."""
    pid: int
    start: int
    """The app's start time (clock ticks after boot): with ``pid``, the process for good."""
    boot: str

    def alive(self) -> bool:
        """Whether the app of this run still runs (the same process, not its pid reused)."""
        return self.boot == _boot_id() and start_time(self.pid) == self.start


def record_run() -> Path | None:
    """Record this run (atomically, mode 0600); where, or None if the folder is unwritable."""
    folder = runs_folder()
    me = os.getpid()
    record = {"run": run_token(), "pid": me, "start": start_time(me), "boot": _boot_id()}
    path = folder / f"{run_token()}{SUFFIX}"
    temporary = folder / f".{run_token()}.tmp"
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as handle:
            json.dump(record, handle)
        os.replace(temporary, path)
    except OSError as exc:
        # Only info: the same full disk would make a warning in the app log fail too (and
        # logging then prints its own error on the terminal).
        log.info("could not record this run in %s (%s): what it leaves is not ended", folder, exc)
        with contextlib.suppress(OSError):
            temporary.unlink()
        return None
    return path


def forget_run() -> None:
    """Remove this run's record: everything it started has been stopped."""
    with contextlib.suppress(OSError):
        (runs_folder() / f"{run_token()}{SUFFIX}").unlink()


def _records() -> list[tuple[Path, RunRecord | None]]:
    """Every record of another run in our folder (``None``: a file that does not read as one).

    Only files our own user owns are read: a record names processes to end.
    """
    found: list[tuple[Path, RunRecord | None]] = []
    uid = os.getuid()
    try:
        entries = list(os.scandir(runs_folder()))
    except OSError:
        return found
    for entry in entries:
        if not entry.name.endswith(SUFFIX) or entry.name == f"{run_token()}{SUFFIX}":
            continue
        try:
            if entry.stat(follow_symlinks=False).st_uid != uid or not entry.is_file():
                continue
            data = json.loads(Path(entry.path).read_text())
            record = RunRecord(
                run=str(data["run"]),
                pid=int(data["pid"]),
                start=int(data["start"]),
                boot=str(data["boot"]),
            )
        except (OSError, ValueError, KeyError, TypeError):
            found.append((Path(entry.path), None))
            continue
        if f"{record.run}{SUFFIX}" == entry.name and record.run.isalnum():
            found.append((Path(entry.path), record))
    return found


async def end_leftovers() -> int:
    """End what runs of the app that are gone left running; how many processes were ended."""
    ended = 0
    for path, record in _records():
        if record is not None and record.alive():
            continue
        if record is not None:
            members = carriers_of_run(record.run)
            await kill_tree(members)  # SIGKILL: the leftovers may ignore anything else
            ended += len(members)
        with contextlib.suppress(OSError):
            path.unlink()
    if ended:
        log.warning("ended %d server process(es) left by an earlier run", ended)
    return ended
