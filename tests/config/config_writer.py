"""A config writer run as a separate process by the concurrency and crash-safety tests.

Run: ``python tests/config/config_writer.py MODE PATH ...`` with MODE one of

- ``toggle PATH SERVER PREFIX COUNT``: print ``ready``, wait for one byte on stdin (the start
  gate, so that every writer begins at once), then turn off the tools ``PREFIX0`` ..
  ``PREFIX{COUNT-1}`` of SERVER one edit at a time, then turn the odd-numbered ones back on.
  Afterwards exactly the even-numbered ones are excluded, if no edit was lost. Prints ``done``.
- ``cycle PATH START``: apply ``cycle_edit(START)``, ``cycle_edit(START + 1)``, ... until killed
  (at most ``CYCLE_LIMIT`` edits), printing how many have been applied after each one.
- ``zygote PATH``: import everything once, then for each line ``START`` read on stdin fork a
  child that runs ``cycle PATH START`` on the shared stdout, print ``pid <child pid>``, and once
  the child is gone print ``dead <wait status>``. Each writer is still a process of its own
  (killed with SIGKILL, its lock released by the kernel), without paying the interpreter's start
  for every kill. The child opens its lock file itself, so no lock is shared across the fork.
- ``die-before-replace PATH``: apply ``cycle_edit(0)`` but SIGKILL itself after the temp file is
  written and before the rename (through the store's ``_before_replace`` seam).

The edits of ``cycle`` are a pure function of their index, so a test can compute every state a
complete write could have left (``cycle_state``).
"""

from __future__ import annotations

import os
import signal
import sys
import traceback
from pathlib import Path
from typing import Any

from agentty_tui.config import ConfigStore, SetToolEnabled

CYCLE_SERVERS = 200
"""Servers in the big config of the crash-safety test."""
CYCLE_TOOLS = 4
"""Tools each ``cycle`` edit round goes through per server."""
CYCLE_LIMIT = 20_000
"""A ``cycle`` writer stops by itself after this many edits (it is meant to be killed)."""


def server_name(index: int) -> str:
    """Name of server ``index`` in the big config."""
    return f"s{index:03d}"


def big_config() -> dict[str, Any]:
    """A sizable config (``CYCLE_SERVERS`` servers, about 60 kB) so a write takes a while."""
    return {
        "$schema": "https://example.invalid/mcp.schema.json",
        "mcpServers": {
            server_name(i): {
                "command": "server-binary",
                "args": ["--port", str(8000 + i), "--verbose"],
                "env": {"TOKEN": f"{i:040d}"},
                "x-note": "an unknown key the store must keep " * 2,
            }
            for i in range(CYCLE_SERVERS)
        },
        "zLast": {"kept": True},
    }


def cycle_edit(n: int) -> SetToolEnabled:
    """Edit number ``n``: rounds of turning one tool per server off, then all back on.

    Every edit changes the file (none is a no-op), so consecutive states differ.
    """
    per_phase = CYCLE_SERVERS * CYCLE_TOOLS
    server = server_name(n % CYCLE_SERVERS)
    tool = f"tool{(n // CYCLE_SERVERS) % CYCLE_TOOLS}"
    return SetToolEnabled(server, tool, enabled=(n // per_phase) % 2 == 1)


def cycle_state(n: int) -> dict[str, Any]:
    """The document after edits ``0`` .. ``n - 1`` of ``cycle_edit`` on ``big_config()``.

    Computed directly (not by replaying the store's edit code), in the file's key order.
    """
    document = big_config()
    per_phase = CYCLE_SERVERS * CYCLE_TOOLS
    phase, done = divmod(n, per_phase)
    if phase % 2 == 0:
        # Turning off: `done` edits into this phase; tool k of server s is off when its edit
        # (k * CYCLE_SERVERS + s) is below `done`.
        for s in range(CYCLE_SERVERS):
            off = [f"tool{k}" for k in range(CYCLE_TOOLS) if k * CYCLE_SERVERS + s < done]
            if off:
                document["mcpServers"][server_name(s)]["tools"] = {"exclude": off}
    else:
        # Turning back on, in the same order: the tools not yet re-enabled stay listed.
        for s in range(CYCLE_SERVERS):
            off = [f"tool{k}" for k in range(CYCLE_TOOLS) if k * CYCLE_SERVERS + s >= done]
            if off:
                document["mcpServers"][server_name(s)]["tools"] = {"exclude": off}
    return document


def _toggle(path: str, server: str, prefix: str, count: int) -> None:
    # The lock is polled, not queued for: a writer in a tight loop like this one tends to take it
    # again before a waiting one wakes, so a waiter can wait for several others' whole runs. A
    # slow CI disk must not turn that into a lock timeout; losing no edit is what is tested here.
    store = ConfigStore(path, lock_timeout=120)
    print("ready", flush=True)
    sys.stdin.buffer.read(1)  # the start gate
    for j in range(count):
        store.apply(SetToolEnabled(server, f"{prefix}{j}", False))
    for j in range(1, count, 2):
        store.apply(SetToolEnabled(server, f"{prefix}{j}", True))
    print("done", flush=True)


def _cycle(path: str, start: int) -> None:
    store = ConfigStore(path)
    for n in range(start, start + CYCLE_LIMIT):
        store.apply(cycle_edit(n))
        print(n + 1 - start, flush=True)


def _zygote(path: str) -> None:
    for line in sys.stdin:
        sys.stdout.flush()  # nothing buffered may be written twice, by parent and child
        pid = os.fork()
        if pid == 0:
            status = 0
            try:
                _cycle(path, int(line))
            except BaseException:
                traceback.print_exc()
                status = 1
            finally:
                sys.stdout.flush()
                os._exit(status)
        print(f"pid {pid}", flush=True)
        _, status = os.waitpid(pid, 0)
        print(f"dead {status}", flush=True)


def _die_before_replace(path: str) -> None:
    store = ConfigStore(path)

    def die(_target: Path) -> None:
        os.kill(os.getpid(), signal.SIGKILL)

    store._before_replace = die
    store.apply(cycle_edit(0))


def main(argv: list[str]) -> None:
    """Dispatch on the mode (see the module docstring)."""
    mode, path, *rest = argv
    if mode == "toggle":
        server, prefix, count = rest
        _toggle(path, server, prefix, int(count))
    elif mode == "cycle":
        (start,) = rest
        _cycle(path, int(start))
    elif mode == "zygote":
        _zygote(path)
    elif mode == "die-before-replace":
        _die_before_replace(path)
    else:
        raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
