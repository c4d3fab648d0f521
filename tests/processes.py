"""Helpers of the orphan tests: the PIDs a server's log names, and a process's last traces."""

from __future__ import annotations

import re
from pathlib import Path

import anyio

from tests.servers import python_server_argv

GRANDCHILD = re.compile(r"^(?:\d\d:\d\d:\d\d )?grandchild pid (\d+)$", re.MULTILINE)
"""What ``faulty_server.py``'s grandchild modes write to stderr (the log adds the time)."""

SERVER = re.compile(r"^\[agentty\] (?:\d\d:\d\d:\d\d )?started pid (\d+)$", re.MULTILINE)
"""The transport's note at each spawn (our notes carry the time of day)."""


def faulty(fault: str, *extra: str) -> list[str]:
    """argv of ``faulty_server.py --fault FAULT``."""
    return python_server_argv("faulty_server.py", "--fault", fault, *extra)


async def logged(log: Path, pattern: re.Pattern[str], text: str = "", timeout: float = 20) -> int:
    """The last PID ``pattern`` finds in ``log``, once ``text`` is there too."""
    path = anyio.Path(log)
    with anyio.fail_after(timeout):
        # A log file gives no event to wait on; reading it until the line shows is the way.
        while True:
            content = await path.read_text(errors="replace") if await path.exists() else ""
            found = pattern.findall(content)
            if found and text in content:
                return int(found[-1])
            await anyio.sleep(0.02)


def exists(pid: int) -> bool:
    """Whether ``pid`` is in the process table at all (a zombie counts: it is not reaped)."""
    return Path(f"/proc/{pid}").exists()
