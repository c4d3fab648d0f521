"""No process a server started outlives it: a child subreaper, process trees, orphan reaping.

A stdio server runs in a process group of its own and stopping it signals that group, but a
descendant that called ``setsid()`` has left the group, and one whose parent exited has left
the server's tree. So:

- the app makes itself a child subreaper (Linux ``prctl``): orphans of its servers'
  descendants are re-parented to the app instead of init, and stay within its reach;
- before a server is signalled, its tree is read from ``/proc``: every process whose parent
  chain leads to the server, or that is in the server's session or process group (which a
  re-parented descendant keeps unless it called ``setsid()``). Each member is recorded with
  its start time, and a pid whose start time changed (the kernel gave it to a new process) is
  never signalled;
- the members are stopped (``SIGSTOP``, so none forks while the tree is read again), killed,
  and those re-parented to the app are reaped. Only recorded members are ever waited for:
  the app's own children belong to anyio, whose ``Process.wait`` a stolen exit status breaks.

A daemon that double-forked and called ``setsid()`` is in none of those: its parent is gone
and it left the session. What it keeps is its environment, so every server is spawned with
``SESSION_VARIABLE`` set to a token of its own (``session_token``), and when the server's
session ends the processes of our own user whose environment carries that token are ended
with it (``carriers``); other servers' descendants carry other tokens and are left alone.

What ``/proc`` holds is read at the end of this module (the process table); the rest ends what
it finds.

Where ``/proc`` or ``prctl`` is missing (not Linux) all of this is a no-op and only the process
group is signalled.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import secrets
import signal
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import anyio

__all__ = [
    "SESSION_VARIABLE",
    "Census",
    "Members",
    "ProcessTree",
    "Stat",
    "carriers",
    "carriers_of_run",
    "closure",
    "descendants",
    "enable_subreaper",
    "end_now",
    "kill_tree",
    "process_table",
    "read_stat",
    "reap_orphans",
    "run_token",
    "session_token",
    "start_time",
]


log = logging.getLogger(__name__)

PR_SET_CHILD_SUBREAPER = 36
"""The ``prctl`` option (linux/prctl.h)."""

KILL_WAIT = 2.0
"""Seconds to wait for killed processes to be gone before leaving them to ``reap_orphans``."""

FREEZE_ROUNDS = 20
"""How many times a tree is re-read while stopping its members, at most (a fork bomb's bound)."""

_pending: Members = {}
"""Recorded descendants not yet seen gone: what ``reap_orphans`` still has to end."""

_subreaper: bool | None = None


def enable_subreaper() -> bool:
    """Make this process a child subreaper (once); False, with a log note, where it cannot be."""
    global _subreaper
    if _subreaper is not None:
        return _subreaper
    _subreaper = False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):
        log.warning("no prctl here: descendants of a server that leave it may outlive the app")
        return False
    if prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        error = os.strerror(ctypes.get_errno())
        log.warning("could not become a child subreaper (%s): orphans go to init", error)
        return False
    _subreaper = True
    return True


def _send(pid: int, start: int, sig: int) -> bool:
    """Signal ``pid`` only if it is still the process that started at ``start``."""
    pidfd = -1
    opener = getattr(os, "pidfd_open", None)
    if opener is not None:
        # A pidfd pins the process: once its start time checks out, the signal cannot go to a
        # process that took over the pid in between.
        try:
            pidfd = opener(pid)
        except ProcessLookupError:
            return False
        except OSError:
            pidfd = -1
    try:
        stat = read_stat(pid)
        if stat is None or stat.start != start:
            return False
        if pidfd >= 0:
            signal.pidfd_send_signal(pidfd, sig)
        else:
            os.kill(pid, sig)
        return True
    except (ProcessLookupError, PermissionError):
        return False
    finally:
        if pidfd >= 0:
            os.close(pidfd)


def _reap(pid: int, start: int) -> bool:
    """True once ``pid`` is gone; reaps it if it is a zombie re-parented to us."""
    stat = read_stat(pid)
    if stat is None or stat.start != start:
        return True
    if not stat.zombie:
        return False
    if stat.ppid == os.getpid():
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
    return True  # a zombie is dead; one that is not ours its own parent will reap


def signal_members(members: Mapping[int, int], sig: int) -> None:
    """Send ``sig`` to every member still alive (start times checked)."""
    for pid, start in members.items():
        _send(pid, start, sig)


async def kill_tree(members: Mapping[int, int], timeout: float = KILL_WAIT) -> None:
    """Kill ``members`` and whatever they started since they were recorded; reap ours.

    Members are stopped first and the tree re-read until it holds no new process, so that
    nothing forks between the last read and the kill. Members still there after ``timeout``
    seconds are left to ``reap_orphans``.
    """
    for pid in members:
        _pending.pop(pid, None)
    if not members:
        return  # nothing recorded, so nothing it started either: no /proc scan
    targets: Members = {}
    for pid, start in members.items():
        if _send(pid, start, signal.SIGSTOP):
            targets[pid] = start
    for _ in range(FREEZE_ROUNDS):
        table = process_table()
        new = {
            pid: table[pid].start
            for pid in closure(targets, table)
            if pid not in targets and pid in table
        }
        if not new:
            break
        for pid, start in new.items():
            if _send(pid, start, signal.SIGSTOP):
                targets[pid] = start
    _pending.update(targets)
    for pid, start in targets.items():
        _send(pid, start, signal.SIGKILL)  # a stopped process dies of it too
    left = dict(targets)
    with anyio.move_on_after(timeout):
        while left:
            for pid, start in list(left.items()):
                if _reap(pid, start):
                    del left[pid]
                    _pending.pop(pid, None)
            if left:
                await anyio.sleep(0.01)


async def reap_orphans(*, sweep: bool = False, timeout: float = KILL_WAIT) -> None:
    """End every recorded descendant still around, and reap the ones re-parented to us.

    ``sweep``: also every child of ours outside our own session, i.e. an orphan the kernel
    re-parented to the subreaper (the servers themselves are session leaders too, so sweep
    only once every server has been stopped: the app does, on its way out).
    """
    candidates = {pid: start for pid, start in _pending.items() if start_time(pid) == start}
    _pending.clear()
    if sweep:
        me, session = os.getpid(), os.getsid(0)
        for pid, stat in process_table().items():
            if stat.ppid == me and stat.sid != session:
                candidates[pid] = stat.start
    await kill_tree(candidates, timeout)


def end_now() -> int:
    """SIGKILL, at once, every process of this run's servers; how many.

    The last resort of an app whose own way out hangs (``shutdown``'s deadline), called from a
    thread of its own while the event loop may be blocked: everything that carries one of this
    run's tokens (``carriers_of_run``), every recorded descendant, every orphan re-parented to
    us outside our session, and what those started. Start times are checked as everywhere.
    Returns once they are gone (at most ``KILL_WAIT`` seconds).
    """
    table = process_table()
    targets = carriers_of_run(run_token())
    with contextlib.suppress(RuntimeError):  # changed by the event loop's thread meanwhile
        targets.update(_pending)
    me, session = os.getpid(), os.getsid(0)
    targets.update(
        {pid: stat.start for pid, stat in table.items() if stat.ppid == me and stat.sid != session}
    )
    for pid in closure(targets, table):
        if pid in table:
            targets.setdefault(pid, table[pid].start)
    targets.pop(me, None)
    killed = {pid: start for pid, start in targets.items() if _send(pid, start, signal.SIGKILL)}
    count = len(killed)
    # A killed process takes a moment to be gone: the app must not exit before its servers.
    deadline = time.monotonic() + KILL_WAIT
    while killed and time.monotonic() < deadline:
        killed = {pid: start for pid, start in killed.items() if not _reap(pid, start)}
        if killed:
            time.sleep(0.01)
    return count


class ProcessTree:
    """The descendants of one server process, recorded while it runs and ended with it."""

    def __init__(self, root: int, token: str | None = None) -> None:
        self.root = root
        self.root_start = start_time(root)
        self.token = token
        """The server's ``SESSION_VARIABLE`` value: what its escaped descendants still carry."""
        self.members: Members = {}
        """Every descendant recorded so far (pid -> start time)."""

    async def record(self) -> None:
        """Add the processes the server has now (read in a worker thread: ``/proc`` is big)."""
        found = await anyio.to_thread.run_sync(self._find)
        self.members.update(found)
        _pending.update(found)

    def _find(self) -> Members:
        # A census that started after this call: shared with the trees recorded meanwhile
        # (every server stopped at once reads /proc a few times, not once each).
        census = Census.after(time.monotonic())
        found = descendants(self.root, self.root_start, census.table)
        if self.token is not None:
            # The root carries the token too, but it is anyio's child to wait for, never ours.
            escaped = census.carriers(self.token)
            escaped.pop(self.root, None)
            found.update(escaped)
        return found

    def send(self, sig: int) -> None:
        """Send ``sig`` to every recorded descendant still alive."""
        signal_members(self.members, sig)

    async def kill(self) -> None:
        """Kill every recorded descendant and what it started; reap those re-parented to us."""
        await kill_tree(self.members)


# --- Reading ``/proc``: who a process is, which processes a server started, who carries a token.
#
# Read-only: nothing here signals or waits for anything (``reaper`` does, on what this finds).
# A pid alone does not name a process for good (the kernel hands pids on), so every finding
# comes with the process's start time. Where there is no ``/proc`` (not Linux) everything here
# finds nothing.

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


def descendants(
    root: int, root_start: int | None = None, table: Mapping[int, Stat] | None = None
) -> Members:
    """The processes ``root`` (a session leader) started, directly or not, with start times.

    Found by parent links and, for those re-parented already, by session and process group: a
    pid that is some process's session or group id is never handed to a new process, so those
    are the root's for sure. ``root_start`` is the root's own start time: when the pid names
    another process by now, its children are not followed. ``table``: a process table read
    after the moment in question (else it is read now).
    """
    if table is None:
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
    died without stopping its servers (``shutdown.end_leftovers``).
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
    found: Members = {}
    for pid, start, environ in _own_environments():
        if any(map(match, environ.split(b"\0"))) and start_time(pid) == start:
            found[pid] = start
    return found


def _own_environments(
    table: Mapping[int, Stat] | None = None, since: int = 0
) -> Iterable[tuple[int, int, bytes]]:
    """``(pid, start time, environment)`` of our own user's live processes but this one.

    The start time is read before the environment: a caller that reads it again after and
    finds it changed knows the pid was handed on meanwhile. ``table``: a process table read just
    before (its start times are used, not read again); ``since``: only the processes started at
    or after that start time (clock ticks after boot) are read.
    """
    uid, me = os.getuid(), os.getpid()
    if table is None:
        table = process_table()
    for pid, stat in table.items():
        if pid == me or stat.zombie or stat.start < since:
            continue
        try:
            if os.stat(f"/proc/{pid}").st_uid != uid:
                continue
            with open(f"/proc/{pid}/environ", "rb") as handle:
                environ = handle.read()
        except OSError:
            continue
        yield pid, stat.start, environ


def _own_start() -> int:
    """This process's start time (clock ticks after boot; 0 where there is no ``/proc``)."""
    pid = os.getpid()
    if _started[0] != pid:  # read once per process (a fork is another process)
        _started[:] = [pid, start_time(pid) or 0]
    return _started[1]


_started: list[int] = [0, 0]
"""This process's pid and start time, as ``_own_start`` last read them."""


@dataclass(frozen=True, slots=True)
class Census:
    """One read of ``/proc`` for recording trees: the process table, and the token each of our
    own user's processes carries (``SESSION_VARIABLE``).

    Servers stopped together record their trees together, twice each; each of those reads the
    whole of ``/proc`` (every process's stat, the environment of every one of our processes
    started since this one: what carries our token cannot be older), in a
    worker thread, where the reads of a dozen servers queue for the one interpreter lock. So
    they share: ``after(moment)`` gives a census whose read started after ``moment``, one
    that is done or the next one; a thread that finds another reading waits for it, then
    takes its census if that read started late enough, else reads one more for itself and
    whoever queued behind it.
    """

    started: float
    """When its read began (``time.monotonic``): it holds every process alive then."""
    table: dict[int, Stat]
    """Every process then (``process_table``)."""
    tokens: dict[int, tuple[int, bytes]]
    """pid -> (start time, the value of its ``SESSION_VARIABLE``), for our own processes."""

    def carriers(self, token: str) -> Members:
        """``carriers(token)`` as of this census: our processes that carry ``token``."""
        value = token.encode()
        return {pid: start for pid, (start, held) in self.tokens.items() if held == value}

    @staticmethod
    def read() -> Census:
        """Read ``/proc`` now."""
        started = time.monotonic()
        table = process_table()
        prefix = f"{SESSION_VARIABLE}=".encode()
        tokens: dict[int, tuple[int, bytes]] = {}
        # Only what started since this process did: whatever carries a token of ours was
        # started by a server of ours, so after us; the environments of the rest of the
        # machine (most of it, and all of it is ours to read as root) are not read.
        for pid, start, environ in _own_environments(table, since=_own_start()):
            for entry in environ.split(b"\0"):
                if entry.startswith(prefix):
                    if start_time(pid) == start:
                        tokens[pid] = (start, entry[len(prefix) :])
                    break
        return Census(started, table, tokens)

    @staticmethod
    def after(moment: float) -> Census:
        """A census whose read started at ``moment`` or later (blocking: call in a thread)."""
        global _census
        with _census_lock:
            latest = _census
            if latest is None or latest.started < moment:
                latest = _census = Census.read()
            return latest


_census_lock = threading.Lock()
"""Held while ``/proc`` is read for a census: one read at a time, the others wait for it."""
_census: Census | None = None
"""The latest census (whoever asks after its start reads a new one)."""


def start_time(pid: int) -> int | None:
    """When ``pid`` started (clock ticks after boot), or None if there is no such process."""
    stat = read_stat(pid)
    return stat.start if stat is not None else None
