"""The app's way out: SIGTERM, SIGHUP and a closed terminal stop it in order, and in time.

``kill <pid>`` or a closed terminal would otherwise end the process on the spot, leaving every
server that ignores its stdin's end running. Here the first such signal asks the app to stop
(the picker exits as on ``q``; a command is cancelled), so the bridge's shielded close stops
each server with its usual escalation; later signals are ignored while that runs. A terminal
that hangs up without a signal (its master closed, and the app not in its foreground: it reads
end of file, and writing fails) is seen by a thread polling it and taken as SIGHUP. On the way
out, whatever was re-parented to the app (it is a child subreaper) is killed and reaped. The
exit status is then 128 + the signal's number, with one line on stderr.

The orderly way may hang where we do not control it (a UI library blocked on a dead terminal:
its event loop never runs again). So a stop request also starts a deadline in a thread of its
own, armed from the signal handler itself (which Python runs even while the event loop's
thread is blocked) or from the terminal's watcher: ``FORCE_DEADLINE`` seconds later, if the
app is still there, that thread kills every process of this run's servers (``reaper.end_now``)
and ends the process (``os._exit``) with the same status.

Each run also records itself while it runs, and ends at its start what a run killed by SIGKILL
left behind (``end_leftovers``, below).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import select
import signal
import stat
import sys
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

import anyio
import anyio.abc
import anyio.to_thread

from agentty_tui.bridge.reaper import (
    carriers_of_run,
    enable_subreaper,
    end_now,
    kill_tree,
    reap_orphans,
    run_token,
    start_time,
)

__all__ = [
    "FORCE_DEADLINE",
    "STOP_SIGNALS",
    "TERMINAL_GONE",
    "Deadline",
    "RunRecord",
    "StopRequest",
    "announce_stop",
    "end_leftovers",
    "forget_run",
    "record_run",
    "run_app",
    "run_command",
    "runs_folder",
    "watch_stop_signals",
    "watch_terminal",
]


log = logging.getLogger(__name__)

STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
"""Signals that mean "stop now, in order": ``kill``, and the terminal going away."""

FORCE_DEADLINE = 8.0
"""Seconds from a stop request to the last resort: the orderly way takes at most about 4.5 s
(a server that ignores its stdin's end and SIGTERM: 2 s, 2 s, then SIGKILL), plus a margin."""

TERMINAL_GONE = threading.Event()
"""Set once the app's terminal has hung up: what is written to it now is lost (or blocks)."""


class Deadline:
    """After a stop request, the app has ``seconds`` to end; then a thread ends it.

    ``arm`` may be called from a signal handler or any thread; the first call counts.
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._lock = threading.Lock()
        self._armed = False
        self._ended = threading.Event()

    def arm(self, status: int) -> None:
        """Start the countdown; at its end, with the app still there, exit with ``status``."""
        with self._lock:
            if self._armed or self._ended.is_set():
                return
            self._armed = True
        threading.Thread(
            target=self._wait, args=(status,), name="agentty-deadline", daemon=True
        ).start()

    def disarm(self) -> None:
        """The app has ended by itself: nothing left to force."""
        self._ended.set()

    def _wait(self, status: int) -> None:
        if self._ended.wait(self.seconds):
            return
        ended = end_now()
        forget_run()
        log.warning(
            "still running %g s after a stop request: killed %d processes", self.seconds, ended
        )
        with contextlib.suppress(OSError, ValueError):
            os.write(
                2,
                f"agentty-tui: still running {self.seconds:g} s after the stop request: "
                f"killed {ended} server processes and exited\n".encode(),
            )
        os._exit(status)


@dataclass
class StopRequest:
    """The stop signal the app received, if any."""

    signal: signal.Signals | None = None
    """The first of ``STOP_SIGNALS`` that arrived (``None``: the app ended by itself)."""
    handler: Callable[[], object] | None = None
    """What that signal calls: set by an app with a way out of its own (the picker's exit);
    when ``None``, the app is cancelled."""
    deadline: Deadline = field(default_factory=lambda: Deadline(FORCE_DEADLINE))
    """Armed by the first stop request: the last resort if the orderly way hangs."""

    @property
    def exit_status(self) -> int | None:
        """128 + the signal's number, the shell's convention for a process a signal ended."""
        return None if self.signal is None else 128 + int(self.signal)


async def watch_stop_signals(
    request: StopRequest,
    stop: Callable[[], object],
    *,
    task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Until cancelled: the first stop signal is put in ``request`` and calls its handler.

    ``stop`` is called instead while ``request.handler`` is ``None``. Later signals are
    received and dropped: the orderly shutdown is under way, and the default action (death on
    the spot) is what this is here to prevent. Each signal also arms ``request.deadline``, from
    the signal handler itself (see the module's text).
    """
    with anyio.open_signal_receiver(*STOP_SIGNALS) as signals:
        if threading.current_thread() is threading.main_thread():
            for number in STOP_SIGNALS:
                _arm_on(number, request.deadline)
        task_status.started()
        async for number in signals:
            if request.signal is None:
                request.signal = signal.Signals(number)
                (request.handler or stop)()


def _arm_on(number: signal.Signals, deadline: Deadline) -> None:
    """Make the Python-level handler of ``number`` arm ``deadline`` too.

    The event loop's own handler only wakes the loop (through its wakeup descriptor, which the
    C-level handler writes whatever the Python one is), so a loop blocked in a call never sees
    the signal; this handler runs all the same, in the main thread, between two bytecodes or
    when a blocking wait there is interrupted by the signal.
    """
    previous = signal.getsignal(number)

    def handler(received: int, frame: FrameType | None) -> None:
        deadline.arm(128 + received)
        if callable(previous):
            previous(received, frame)

    signal.signal(number, handler)


def _terminal_fds() -> list[int]:
    """Our standard descriptors that are a terminal, or were one (a character device).

    Not ``isatty``: a terminal that has hung up already answers it False. A character device
    that is no terminal (``/dev/null``) never reports a hangup; a pipe would at its writer's
    end, which is no reason to stop, so pipes are left out.
    """
    found = []
    for descriptor in (0, 1, 2):
        with contextlib.suppress(OSError):
            if stat.S_ISCHR(os.fstat(descriptor).st_mode):
                found.append(descriptor)
    return found


def _wait_for_hangup(descriptors: list[int], wake: int, deadline: Deadline) -> bool:
    """Block until one of ``descriptors`` hangs up (True) or ``wake`` is readable (False).

    Polls ``descriptors`` for no event at all: only the hangup and error conditions, which are
    always reported, so no byte of input is taken from the UI's reader. ``wake`` is the read end
    of a pipe the watcher writes to (or closes) when it is done: the thread ends at once, and
    the process's exit never waits for it. Closes ``wake``.
    """
    poller = select.poll()
    for descriptor in descriptors:
        poller.register(descriptor, 0)
    poller.register(wake, select.POLLIN)
    try:
        while True:
            ready = poller.poll()
            if any(descriptor == wake for descriptor, _ in ready):
                return False
            if ready:
                TERMINAL_GONE.set()
                deadline.arm(128 + signal.SIGHUP)
                return True
    finally:
        os.close(wake)


async def watch_terminal(
    request: StopRequest,
    stop: Callable[[], object],
    *,
    task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Until cancelled: a terminal that hangs up is taken as SIGHUP (see ``watch_stop_signals``).

    Its master may be closed while no SIGHUP comes (the app is not in its foreground, or the
    terminal is not its controlling one): then only reads and writes say so.
    """
    descriptors = _terminal_fds()
    task_status.started()
    if not descriptors:
        return
    wake, woken = os.pipe()
    try:
        gone = await anyio.to_thread.run_sync(
            _wait_for_hangup, descriptors, wake, request.deadline, abandon_on_cancel=True
        )
    finally:
        # Its end of file wakes the thread; the thread closes the other end.
        os.close(woken)
    if gone and request.signal is None:
        request.signal = signal.SIGHUP
        (request.handler or stop)()


def announce_stop(request: StopRequest) -> int | None:
    """Say on stderr which signal stopped the app; its exit status (``None``: none did)."""
    if request.signal is None:
        return None
    with contextlib.suppress(OSError):  # after SIGHUP the terminal may be gone
        print(f"agentty-tui: stopped by {request.signal.name}", file=sys.stderr, flush=True)
    return request.exit_status


def run_app(main: Callable[[StopRequest], Awaitable[int]]) -> int:
    """``anyio.run(main)`` as the whole app: a subreaper, stopped in order by a signal.

    ``main`` gets the ``StopRequest``, whose ``handler`` it may set (the picker turns a signal
    into its own exit); otherwise a signal cancels ``main``. Exceptions of ``main`` come out as
    they are (not wrapped in an exception group). Before ``main``, what an earlier run killed
    by SIGKILL left running is ended, with a line on stderr saying how much.
    """
    enable_subreaper()
    request = StopRequest()
    status = 0

    async def guarded() -> None:
        nonlocal status
        error: Exception | None = None
        await _end_leftovers()
        record_run()
        try:
            async with anyio.create_task_group() as group:
                await group.start(watch_stop_signals, request, group.cancel_scope.cancel)
                await group.start(watch_terminal, request, group.cancel_scope.cancel)
                try:
                    status = await main(request)
                except Exception as exc:  # raised again below, outside the task group
                    error = exc
                group.cancel_scope.cancel()
            if error is not None:
                raise error
        finally:
            # Shielded: a signal's cancellation must not skip the last sweep.
            with anyio.CancelScope(shield=True):
                await reap_orphans(sweep=True)
            forget_run()

    try:
        anyio.run(guarded, backend="asyncio")
    finally:
        request.deadline.disarm()
    stopped = announce_stop(request)
    return stopped if stopped is not None else status


async def _end_leftovers() -> None:
    """End what earlier runs left (``end_leftovers``); say so on stderr when there was any."""
    ended = await end_leftovers()
    if ended:
        noun = "server" if ended == 1 else "servers"
        with contextlib.suppress(OSError):
            print(f"agentty-tui: ended {ended} {noun} left by an earlier run", file=sys.stderr)


def run_command(handler: Callable[..., Awaitable[int]], *args: Any) -> int:
    """Run one headless command's ``handler(*args)`` as the app (see ``run_app``)."""

    async def main(request: StopRequest) -> int:
        return await handler(*args)

    return run_app(main)


# --- What an earlier run of the app left running, ended at the next start.
#
# An app killed by SIGKILL (the OOM killer, a terminal emulator's cleanup) stops nothing: its
# servers get SIGTERM from the kernel (the death signal ``spawn`` sets), but a server that
# ignores it, and every grandchild (the death signal is not inherited), keeps running. Each of
# them still carries its spawn's token in its environment, and every token of one run starts
# with that run's own token (``reaper.run_token``).
#
# So each run of the app records itself while it runs: a file
# ``$XDG_STATE_HOME/agentty/runs/<run token>.json`` (``~/.local/state`` without the variable)
# with its pid, its start time and the boot it started in, removed when it ends. At the next
# start, a record whose app is gone (no process with that pid and start time in this boot) is a
# run that died: our own user's processes carrying its token are ended (``carriers_of_run``:
# another user's are never read), the record removed, and one line says how many. A record whose
# app still runs is left alone, whatever its age: pid reuse is told apart by the start time.


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
