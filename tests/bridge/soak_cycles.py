"""A program for the soak test: N cycles of add / toggle / reload / remove on a real bridge.

Run as ``python -m tests.bridge.soak_cycles`` from the repository, in a process of its own, so
that what it measures is the bridge alone (a test runner keeps things per test). Prints one
JSON object: processes, file descriptors, threads and traced Python memory at every 25th cycle.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import tempfile
import threading
import tracemalloc
from pathlib import Path
from typing import Any

import anyio

from agentty_tui.bridge import Bridge
from agentty_tui.config import ConfigStore
from agentty_tui.model import StdioSpec
from tests.servers import light_argv, plain_argv


def children() -> list[int]:
    """PIDs of live child processes of this process."""
    me = str(os.getpid())
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == me and fields[0] != "Z":
            found.append(int(entry.name))
    return sorted(found)


WORKER = "AnyIO worker thread"
"""anyio's pool of worker threads: its size follows how many blocking calls overlap (a stop
reads /proc in one while a config write holds another) and idle workers exit by themselves, so
it is counted apart from the threads that must never grow."""


def resources() -> dict[str, Any]:
    """What must not grow: child processes, open descriptors, threads (and the worker pool)."""
    names = [thread.name for thread in threading.enumerate()]
    return {
        "children": len(children()),
        "fds": len(os.listdir("/proc/self/fd")),
        "threads": sum(name != WORKER for name in names),
        "workers": names.count(WORKER),
    }


def settled(before: dict[str, Any]) -> bool:
    """No more child processes, descriptors or threads than before the cycles."""
    now = resources()
    return all(now[key] <= before[key] for key in ("children", "fds", "threads"))


async def soak(cycles: int, folder: Path) -> dict[str, Any]:
    """Run the cycles and return the measurements."""
    steady = plain_argv()
    path = folder / "mcp.json"
    path.write_text(
        json.dumps({"mcpServers": {"steady": {"command": steady[0], "args": steady[1:]}}})
    )
    # The cycled server is the light one: what is measured is the bridge, and the SDK server's
    # second of start-up CPU, 200 times, made the soak take minutes for nothing it checks.
    argv = light_argv(4, name="cycled")
    spec = StdioSpec(command=argv[0], args=tuple(argv[1:]))
    checkpoints: dict[int, dict[str, Any]] = {}
    async with Bridge(ConfigStore(path), log_dir=folder / "logs") as bridge:
        await bridge.settled(30)
        before = resources()
        tracemalloc.start()
        for cycle in range(1, cycles + 1):
            await bridge.plugin_add("cycled", spec)
            await bridge.settled(30)
            await bridge.tool_set_enabled("cycled", "tool_0000", cycle % 2 == 0)
            await bridge.reload()
            await bridge.plugin_remove("cycled")
            if cycle % 25 == 0 or cycle == cycles:
                # A removed server's process and pipes go away shortly after the removal
                # returns; wait for that (a real leak never settles, and shows in the figures).
                with anyio.move_on_after(15):
                    while not settled(before):  # noqa: ASYNC110 - no event for a process exit
                        await anyio.sleep(0.05)
                # CPython's type attribute cache keeps the attribute names that C code looks up
                # by a fresh string (json's scanner, re's finditer) alive, up to its 4,096
                # entries: a bounded cache, not ours, that reads as ~300 B a cycle of growth
                # until it is full. Cleared here, the figure is what the bridge itself keeps.
                sys._clear_type_cache()
                gc.collect()
                checkpoints[cycle] = {**resources(), "memory": tracemalloc.get_traced_memory()[0]}
        tracemalloc.stop()
    return {"before": before, "checkpoints": checkpoints, "left": len(children())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cycles", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        print(json.dumps(anyio.run(soak, args.cycles, Path(folder))))


if __name__ == "__main__":
    main()
