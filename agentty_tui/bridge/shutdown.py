"""The app's way out: SIGTERM and SIGHUP stop it in order, and no descendant outlives it.

``kill <pid>`` or a closed terminal would otherwise end the process on the spot, leaving every
server that ignores its stdin's end running. Here the first such signal asks the app to stop
(the picker exits as on ``q``; a command is cancelled), so the bridge's shielded close stops
each server with its usual escalation; later signals are ignored while that runs. On the way
out, whatever was re-parented to the app (it is a child subreaper) is killed and reaped. The
exit status is then 128 + the signal's number, with one line on stderr.
"""

from __future__ import annotations

import contextlib
import signal
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.abc

from agentty_tui.bridge.reaper import enable_subreaper, reap_orphans

__all__ = [
    "STOP_SIGNALS",
    "StopRequest",
    "announce_stop",
    "run_app",
    "run_command",
    "watch_stop_signals",
]

STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
"""Signals that mean "stop now, in order": ``kill``, and the terminal going away."""


@dataclass
class StopRequest:
    """The stop signal the app received, if any."""

    signal: signal.Signals | None = None
    """The first of ``STOP_SIGNALS`` that arrived (``None``: the app ended by itself)."""
    handler: Callable[[], object] | None = None
    """What that signal calls: set by an app with a way out of its own (the picker's exit);
    when ``None``, the app is cancelled."""

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
    the spot) is what this is here to prevent.
    """
    with anyio.open_signal_receiver(*STOP_SIGNALS) as signals:
        task_status.started()
        async for number in signals:
            if request.signal is None:
                request.signal = signal.Signals(number)
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
    they are (not wrapped in an exception group).
    """
    enable_subreaper()
    request = StopRequest()
    status = 0

    async def guarded() -> None:
        nonlocal status
        error: Exception | None = None
        try:
            async with anyio.create_task_group() as group:
                await group.start(watch_stop_signals, request, group.cancel_scope.cancel)
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

    anyio.run(guarded, backend="asyncio")
    stopped = announce_stop(request)
    return stopped if stopped is not None else status


def run_command(handler: Callable[..., Awaitable[int]], *args: Any) -> int:
    """Run one headless command's ``handler(*args)`` as the app (see ``run_app``)."""

    async def main(request: StopRequest) -> int:
        return await handler(*args)

    return run_app(main)
