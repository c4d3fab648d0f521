"""Reading ``/proc``: who a process is, which processes a server started, who carries a token.

Read-only: nothing here signals or waits for anything (``reaper`` does, on what this finds).
A pid alone does not name a process for good (the kernel hands pids on), so every finding
comes with the process's start time. Where there is no ``/proc`` (not Linux) everything here
finds nothing.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

__all__ = [
    "SESSION_VARIABLE",
    "Members",
    "Stat",
    "carriers",
    "carriers_of_run",
    "closure",
    "descendants",
    "process_table",
    "read_stat",
    "run_token",
    "session_token",
    "start_time",
]

SESSION_VARIABLE = "AGENTTY_TUI_SESSION"
"""The environment variable that marks every process a server started, with its token."""

Members = dict[int, int]
"""pid -> start time (clock ticks after boot, ``/proc/<pid>/stat`` field 22)."""


@dataclass(frozen=True, slots=True)
class Stat:
    """The fields of ``/proc/<pid>/stat`` that tell who a process is and where it hangs."""

    ppid: int
    """Parent pid."""
    pgid: int
    """Process group."""
    sid: int
    """Session."""
    start: int
    """Start time in clock ticks after boot: with the pid, it names one process for good."""
    zombie: bool
    """Exited, waiting for its parent to reap it."""


def read_stat(pid: int) -> Stat | None:
    """``/proc/<pid>/stat`` parsed, or None if there is no such process (or it is unreadable)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    # The command name is in parentheses and may hold anything: split after the last ")".
    fields = data[data.rfind(b")") + 2 :].split()
    try:
        return Stat(
            ppid=int(fields[1]),
            pgid=int(fields[2]),
            sid=int(fields[3]),
            start=int(fields[19]),
            zombie=fields[0] in (b"Z", b"X"),
        )
    except (IndexError, ValueError):
        return None


def process_table() -> dict[int, Stat]:
    """Every process on the system, read from ``/proc`` (empty where there is none)."""
    table: dict[int, Stat] = {}
    try:
        entries = os.scandir("/proc")
    except OSError:
        return table
    with entries:
        for entry in entries:
            if entry.name.isdigit():
                stat = read_stat(int(entry.name))
                if stat is not None:
                    table[int(entry.name)] = stat
    return table


def closure(roots: Iterable[int], table: Mapping[int, Stat]) -> set[int]:
    """``roots`` and every process whose parent chain leads to one of them."""
    children: dict[int, list[int]] = {}
    for pid, stat in table.items():
        children.setdefault(stat.ppid, []).append(pid)
    found: set[int] = set()
    stack = list(roots)
    while stack:
        pid = stack.pop()
        if pid in found:
            continue
        found.add(pid)
        stack.extend(children.get(pid, ()))
    return found


def descendants(root: int, root_start: int | None = None) -> Members:
    """The processes ``root`` (a session leader) started, directly or not, with start times.

    Found by parent links and, for those re-parented already, by session and process group: a
    pid that is some process's session or group id is never handed to a new process, so those
    are the root's for sure. ``root_start`` is the root's own start time: when the pid names
    another process by now, its children are not followed.
    """
    table = process_table()
    own = table.get(root)
    roots = [pid for pid, stat in table.items() if root in (stat.sid, stat.pgid)]
    if own is not None and (root_start is None or own.start == root_start):
        roots.append(root)
    since = root_start if root_start is not None else 0
    return {
        pid: table[pid].start
        for pid in closure(roots, table)
        if pid != root and table[pid].start >= since
    }


_run_token: str | None = None


def run_token() -> str:
    """This process's own token: the first part of every ``session_token`` it hands out.

    It names one run of the app, so that a later run can find what this one left behind if it
    died without stopping its servers (``leftovers``).
    """
    global _run_token
    if _run_token is None:
        _run_token = secrets.token_hex(8)
    return _run_token


def session_token() -> str:
    """A token no other server's session has: the value of ``SESSION_VARIABLE`` for one spawn.

    ``<run token>-<16 hex digits>``: unique to the spawn, and telling which run it is of.
    """
    return f"{run_token()}-{secrets.token_hex(8)}"


def carriers(token: str) -> Members:
    """Processes of our own user whose environment holds ``SESSION_VARIABLE=token``.

    A process's environment is what it was started with (``/proc/<pid>/environ``), inherited
    through every fork and exec unless a process chose to drop it, so it finds descendants that
    left both the parent chain and the session. Only our own uid's processes are read (others'
    environments are not ours to read, nor are they ours to end), and a process whose start time
    changed while it was read is left out (its pid was handed on).
    """
    needle = f"{SESSION_VARIABLE}={token}".encode()
    return _carrying(lambda entry: entry == needle)


def carriers_of_run(run: str) -> Members:
    """The same as ``carriers`` for every spawn of one run of the app (its ``run_token``)."""
    prefix = f"{SESSION_VARIABLE}={run}-".encode()
    return _carrying(lambda entry: entry.startswith(prefix))


def _carrying(match: Callable[[bytes], bool]) -> Members:
    """Our own user's live processes with an environment entry that ``match`` accepts."""
    uid, me = os.getuid(), os.getpid()
    found: Members = {}
    try:
        entries = os.scandir("/proc")
    except OSError:
        return found
    with entries:
        for entry in entries:
            if not entry.name.isdigit() or int(entry.name) == me:
                continue
            pid = int(entry.name)
            before = read_stat(pid)
            try:
                if before is None or before.zombie or entry.stat().st_uid != uid:
                    continue
                with open(f"/proc/{pid}/environ", "rb") as handle:
                    environ = handle.read()
            except OSError:
                continue
            if any(map(match, environ.split(b"\0"))) and start_time(pid) == before.start:
                found[pid] = before.start
    return found


def start_time(pid: int) -> int | None:
    """When ``pid`` started (clock ticks after boot), or None if there is no such process."""
    stat = read_stat(pid)
    return stat.start if stat is not None else None
