"""Starting and stopping a stdio server's process: its own session, nothing of it left behind.

The child runs in a session of its own (its own process group), with all three pipes ours and
its environment marked with the spawn's token (``SESSION_VARIABLE``). Stopping follows the MCP
shutdown rule (stdin closed, then SIGTERM, then SIGKILL) and always ends with a kill of the
process group and of the recorded tree (``reaper.ProcessTree``), escaped descendants included.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess

import anyio
import anyio.abc
from mcp.client.stdio import get_default_environment

from agentty_tui.bridge.logs import ServerLog
from agentty_tui.bridge.reaper import SESSION_VARIABLE, ProcessTree
from agentty_tui.model import StdioSpec

__all__ = ["SILENT_GRACE", "STDIN_CLOSE_GRACE", "TERM_GRACE", "spawn", "stop"]

STDIN_CLOSE_GRACE = 2.0
"""Seconds a server gets to exit by itself once its stdin is closed (the MCP shutdown rule)."""

SILENT_GRACE = 0.2
"""The same for a server that has not written a message yet: still starting, it has nothing to
save and may not read its stdin for seconds (quitting while it starts must not wait for it)."""

TERM_GRACE = 2.0
"""Seconds between SIGTERM and SIGKILL to the process group."""


async def spawn(spec: StdioSpec, token: str) -> anyio.abc.Process:
    """Start ``spec`` (argv verbatim, no shell) in a new session, its pipes all ours."""
    return await anyio.open_process(
        [spec.command, *spec.args],
        env=get_default_environment() | dict(spec.env) | {SESSION_VARIABLE: token},
        cwd=spec.cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        # A pipe we drain into the log, not the log file itself: only then can the log
        # be capped, and a log that cannot be written cannot stop the server.
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


async def stop(process: anyio.abc.Process, token: str, log: ServerLog, *, spoke: bool) -> None:
    """Stop ``process`` and everything it started; ``spoke``: it has sent a message already."""
    # Read the tree while the server still runs: once it exits, its children are
    # re-parented and only the record says they were its (a setsid one left the group).
    tree = ProcessTree(process.pid, token)
    await tree.record()
    if process.stdin is not None:
        with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await process.stdin.aclose()
    grace = STDIN_CLOSE_GRACE if spoke else SILENT_GRACE
    if not await _exited_within(process, grace):
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
