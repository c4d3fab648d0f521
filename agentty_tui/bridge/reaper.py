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

What ``/proc`` holds is read in ``proctable``; this module ends what it finds (and re-exports
its names, which the transport and the tests import from here).

Where ``/proc`` or ``prctl`` is missing (not Linux) all of this is a no-op and only the process
group is signalled.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import signal
import time
from collections.abc import Mapping

import anyio

from agentty_tui.bridge.proctable import (
    SESSION_VARIABLE,
    Members,
    carriers,
    carriers_of_run,
    closure,
    descendants,
    process_table,
    read_stat,
    run_token,
    session_token,
    start_time,
)

__all__ = [
    "SESSION_VARIABLE",
    "Members",
    "ProcessTree",
    "carriers",
    "descendants",
    "enable_subreaper",
    "end_now",
    "kill_tree",
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
        found = descendants(self.root, self.root_start)
        if self.token is not None:
            # The root carries the token too, but it is anyio's child to wait for, never ours.
            escaped = carriers(self.token)
            escaped.pop(self.root, None)
            found.update(escaped)
        return found

    def send(self, sig: int) -> None:
        """Send ``sig`` to every recorded descendant still alive."""
        signal_members(self.members, sig)

    async def kill(self) -> None:
        """Kill every recorded descendant and what it started; reap those re-parented to us."""
        await kill_tree(self.members)
