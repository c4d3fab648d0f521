"""Where the pinned host programs are, the environment they run in, and a bounded run.

Every run gets a fake ``HOME`` and an environment built from nothing but ``PATH``: no API key,
proxy or config of the real user leaks in, and each program's switches for update checks,
telemetry and other traffic are set, so the only address a host reaches is the loopback
stand-in a test gives it (checked with strace when this was written; docs/HOSTS_MEASURED.md).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pytest

Program = Literal["claude", "gemini", "codex"]

HOSTS_DIR = Path(__file__).resolve().parent
BIN_DIR = HOSTS_DIR / "node_modules" / ".bin"
LIGHT_SERVER = HOSTS_DIR.parent / "servers" / "light_server.py"

PACKAGES: dict[Program, str] = {
    "claude": "@anthropic-ai/claude-code",
    "gemini": "@google/gemini-cli",
    "codex": "@openai/codex",
}
"""The npm package each program comes from."""

# Gemini CLI and Codex start through a node script; Claude Code's bin is a native binary.
_NEEDS_NODE: frozenset[Program] = frozenset({"gemini", "codex"})


def pinned_version(program: Program) -> str:
    """The version package.json pins for ``program``."""
    manifest = json.loads((HOSTS_DIR / "package.json").read_text())
    return str(manifest["dependencies"][PACKAGES[program]])


def program_path(program: Program) -> Path:
    """The installed program, or a skip that says why it cannot run here."""
    path = BIN_DIR / program
    if not path.exists():
        pytest.skip(
            f"{program} ({PACKAGES[program]} {pinned_version(program)}) is not installed: "
            "run tests/hosts/install.sh (needs npm and the npm registry)"
        )
    if program in _NEEDS_NODE and shutil.which("node") is None:
        pytest.skip(f"{program} needs node, which is not on PATH")
    return path


def host_env(home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """An environment from scratch for a host run in the fake ``home``.

    Only ``PATH`` is taken from ours. The XDG folders point into ``home`` so nothing of the
    real user's is read or written.
    """
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        # The MCP servers the hosts start are Python scripts run by this interpreter.
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    if extra:
        env.update(extra)
    return env


@dataclass(frozen=True)
class Ran:
    """A finished host run."""

    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str

    def describe(self) -> str:
        """The run, for an assertion message."""
        return (
            f"{' '.join(self.argv)} exited {self.returncode}\n"
            f"--- stdout\n{self.stdout[-3000:]}\n--- stderr\n{self.stderr[-3000:]}"
        )


def run_program(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    timeout: float,
    stdin: str | None = None,
) -> Ran:
    """Run a host program to its end, within ``timeout`` seconds, then kill what it left;
    ``stdin`` is its whole input (none by default).

    The program runs in a session of its own, so the MCP servers it started (and anything
    they started) are killed with it, on a timeout and after a normal exit alike.
    """
    process = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        start_new_session=True,
    )
    try:
        stdout, stderr = process.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(process.pid)
        stdout, stderr = process.communicate()
        raise AssertionError(
            f"{' '.join(argv)} did not finish within {timeout} s\n"
            f"--- stdout\n{stdout[-3000:]}\n--- stderr\n{stderr[-3000:]}"
        ) from None
    finally:
        _kill_group(process.pid)
    return Ran(tuple(argv), process.returncode, stdout, stderr)


def _kill_group(pgid: int) -> None:
    """SIGKILL a process group that may already be gone."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def light_argv(name: str, tools: int) -> list[str]:
    """argv of ``light_server.py`` with ``tools`` tools (``tool_0000`` ...), marked ``name``."""
    return [sys.executable, str(LIGHT_SERVER), "--tools", str(tools), "--name", name]


def light_tools(count: int) -> list[str]:
    """The tool names ``light_server.py --tools count`` advertises."""
    width = max(4, len(str(count - 1)))
    return [f"tool_{i:0{width}d}" for i in range(count)]
