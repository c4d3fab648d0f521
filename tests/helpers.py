"""Small helpers the tests share (fixtures live in conftest.py)."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def stdio_entry(argv: Sequence[str], **extra: Any) -> dict[str, Any]:
    """A ``mcpServers`` entry that starts ``argv``."""
    return {"command": argv[0], "args": list(argv[1:]), **extra}


def process_alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie waiting to be reaped counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def python_argv(code: str) -> list[str]:
    """argv that runs a few lines of Python: for servers that only misbehave."""
    return [sys.executable, "-c", code]


def time_server_command() -> str | None:
    """The third-party ``mcp-server-time`` installed next to this interpreter, if any."""
    beside = Path(sys.executable).parent / "mcp-server-time"
    if beside.exists():
        return str(beside)
    return shutil.which("mcp-server-time")


async def wait_until_gone(pid: int, timeout: float = 10.0) -> None:
    """Wait until process ``pid`` has ended; fail the test after ``timeout`` seconds."""
    import anyio

    with anyio.fail_after(timeout):
        # No event fires when a foreign process ends: polling is the only way to see it.
        while process_alive(pid):  # noqa: ASYNC110
            await anyio.sleep(0.05)
