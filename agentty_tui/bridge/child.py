"""Starting and stopping a stdio server's process: its own session, nothing of it left behind.

The child runs in a session of its own (its own process group), with all three pipes ours and
its environment marked with the spawn's token (``SESSION_VARIABLE``). Stopping follows the MCP
shutdown rule (stdin closed, then SIGTERM, then SIGKILL) and always ends with a kill of the
process group and of the recorded tree (``reaper.ProcessTree``), escaped descendants included.

On Linux the child also gets SIGTERM when the app dies without stopping it (``kill -9``, the
OOM killer): it is started through ``setpriv --pdeathsig TERM`` and ``/bin/sh``, which checks
that its parent is still the app (the app may have died before ``setpriv`` set the signal) and
then execs the command, argv verbatim. Python's own way (``preexec_fn``) forks the whole app
instead of vforking it and runs Python in the child: 12 ms per spawn with no heap, 50 ms with
100 MiB, all of it blocking the event loop, against about 4 ms in the child, in parallel, here
(ARCHITECTURE §5). The signal is sent when the *thread* that forked ends, not the process:
anyio (asyncio) forks in the thread that runs the event loop, which lives as long as the app.

Nothing here imports the mcp SDK: a command that connects starts its servers before it imports
the SDK (``bridge/early.py``), and the transport (``bridge/stdio.py``) spawns through here too.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import logging
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Mapping

import anyio
import anyio.abc

from agentty_tui.bridge.inherited import Inherited
from agentty_tui.bridge.logs import ServerLog
from agentty_tui.bridge.reaper import SESSION_VARIABLE, ProcessTree
from agentty_tui.model import StdioSpec

__all__ = [
    "SILENT_GRACE",
    "STDIN_CLOSE_GRACE",
    "TERM_GRACE",
    "death_signal_argv",
    "spawn",
    "stop",
]

log = logging.getLogger(__name__)

STDIN_CLOSE_GRACE = 2.0
"""Seconds a server gets to exit by itself once its stdin is closed (the MCP shutdown rule)."""

SILENT_GRACE = 0.2
"""The same for a server that has not written a message yet: still starting, it has nothing to
save and may not read its stdin for seconds (quitting while it starts must not wait for it)."""

TERM_GRACE = 2.0
"""Seconds between SIGTERM and SIGKILL to the process group."""


SYSTEM_PATH = "/usr/bin:/bin:/usr/sbin:/sbin"
"""Where ``setpriv`` is looked for: the system's, never a PATH the user or a config set."""

CHECK_PARENT = '[ "$PPID" = "$0" ] || exit 143; exec "$@"'
"""The shell's part: run only while the app (pid in ``$0``) is still the parent, since
``setpriv`` set the death signal. ``$PPID`` is read after that, so an app that died in between
is seen here; otherwise its death sends the signal. 143: as if the signal had come."""


@functools.cache
def _setpriv() -> str | None:
    """``setpriv`` (util-linux) if this is Linux and it has one; else None, said once."""
    if sys.platform != "linux":
        return None
    found = shutil.which("setpriv", path=SYSTEM_PATH)
    if found is None or not os.access("/bin/sh", os.X_OK):
        log.warning(
            "no setpriv here: servers outlive an app killed by SIGKILL until its next start"
        )
        return None
    return found


def death_signal_argv(argv: list[str], parent: int) -> list[str]:
    """``argv`` wrapped so that it gets SIGTERM once ``parent`` (the app) dies, where it can.

    Unchanged where there is no ``setpriv`` (not Linux, or a minimal system).
    """
    setpriv = _setpriv()
    if setpriv is None:
        return argv
    return [setpriv, "--pdeathsig", "TERM", "--", "/bin/sh", "-c", CHECK_PARENT, str(parent), *argv]


def _check_command(command: str, env: Mapping[str, str], cwd: str | None) -> None:
    """Raise what ``exec`` of ``command`` would: FileNotFoundError, or PermissionError.

    With the wrapper, ``exec`` happens in the child, where its error would only be an exit
    status: the errors the session names (``command not found``, ``not executable``) are found
    here first, as the child would look (the child's PATH, relative to its cwd).
    """
    path = env.get("PATH", os.defpath)
    if os.sep in command:
        found = os.path.join(cwd or "", command)
        if not os.path.exists(found):
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), command)
    else:
        # Like execvp: the first file of that name on PATH that may be executed.
        which = shutil.which(command, path=path)
        if which is None:
            if any(os.path.exists(os.path.join(d, command)) for d in path.split(os.pathsep)):
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), command)
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), command)
        found = which
    if os.path.isdir(found) or not os.access(found, os.X_OK):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), command)


async def spawn(
    spec: StdioSpec, token: str, environment: Mapping[str, str] | None = None
) -> anyio.abc.Process:
    """Start ``spec`` (argv verbatim, no shell) in a new session, its pipes all ours, with
    ``environment`` (default: what the SDK passes on of ours) and the entry's own variables.

    Called in the event loop's thread (anyio forks there): the thread whose end sends the
    child its death signal (see the module's text).
    """
    inherited = Inherited().server_environment() if environment is None else dict(environment)
    env = inherited | dict(spec.env) | {SESSION_VARIABLE: token}
    argv = [spec.command, *spec.args]
    wrapped = death_signal_argv(argv, os.getpid())
    if wrapped is not argv:
        _check_command(spec.command, env, spec.cwd)
    return await anyio.open_process(
        wrapped,
        env=env,
        cwd=spec.cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        # A pipe we drain into the log, not the log file itself: only then can the log
        # be capped, and a log that cannot be written cannot stop the server.
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


async def stop(
    process: anyio.abc.Process, token: str, log: ServerLog | None, *, spoke: bool
) -> None:
    """Stop ``process`` and everything it started; ``spoke``: it has sent a message already;
    ``log``: where the escalation is noted (``None``: a process no session took, no log)."""
    # Read the tree while the server still runs: once it exits, its children are
    # re-parented and only the record says they were its (a setsid one left the group).
    tree = ProcessTree(process.pid, token)
    await tree.record()
    if process.stdin is not None:
        with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await process.stdin.aclose()
    grace = STDIN_CLOSE_GRACE if spoke else SILENT_GRACE
    if not await _exited_within(process, grace):
        if log is not None:
            log.note(f"still running {grace:g} s after its input was closed: SIGTERM")
        await tree.record()
        _signal_group(process.pid, signal.SIGTERM)
        tree.send(signal.SIGTERM)
        if not await _exited_within(process, TERM_GRACE):
            _signal_group(process.pid, signal.SIGKILL)
            await _exited_within(process, TERM_GRACE)
    # Grandchildren outlive their parent in the group; nothing of the server may stay.
    _signal_group(process.pid, signal.SIGKILL)
    await tree.record()  # those re-parented meanwhile are still found by their session
    await tree.kill()
    if log is not None:
        log.note(f"stopped pid {process.pid} (exit status {process.returncode})")
    with contextlib.suppress(Exception):
        await process.aclose()


async def _exited_within(process: anyio.abc.Process, seconds: float) -> bool:
    """Poll the exit status: ``wait()`` would also wait for pipes a grandchild holds open."""
    with anyio.move_on_after(seconds):
        while process.returncode is None:  # noqa: ASYNC110 - no event fires on exit
            await anyio.sleep(0.01)
    return process.returncode is not None


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    """Signal a process group that may be gone already (or no longer ours to signal)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)
