"""Files under ``/etc`` for one process tree only: what an administrator keeps there, such as
Claude Code's managed MCP file, whose folder (``/etc/claude-code``) is fixed in its binary.

``EtcOverlay.wrap`` runs a command in a private mount namespace where an overlay lies over
``/etc``: the command and its children see ``/etc`` plus the overlay's files; nothing else on
the machine does, and the real ``/etc`` is never written. It needs ``unshare`` with root (a
mount namespace) or with unprivileged user namespaces and overlayfs in them (``unshare -rm``,
Linux 5.11 or later); elsewhere ``etc_overlay`` skips the test, saying why.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

_MOUNT = (
    'mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1,workdir=$2" /etc || exit 97; '
    'shift 2; exec "$@"'
)
"""The shell run inside the namespace: lay the overlay over ``/etc``, then become the command
(status 97: the overlay could not be mounted)."""


def _try(unshare: Sequence[str], scratch: Path) -> bool:
    upper, work = scratch / "upper", scratch / "work"
    upper.mkdir()
    work.mkdir()
    (upper / "agentty-overlay-probe").write_text("seen\n")
    argv = [*unshare, "sh", "-c", _MOUNT, "sh", str(upper), str(work)]
    argv += ["cat", "/etc/agentty-overlay-probe"]
    try:
        ran = subprocess.run(argv, capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return ran.returncode == 0 and ran.stdout == "seen\n"


@functools.cache
def _unshare() -> tuple[str, ...] | str:
    """How this machine gives a process its own mounts, or why it cannot."""
    program = shutil.which("unshare")
    if program is None:
        return "unshare (util-linux) is not on PATH"
    # As root a mount namespace is enough; otherwise a user namespace maps us to root in it.
    for flags in (("-m",), ("-r", "-m")):
        command = (program, *flags, "--propagation", "private")
        with tempfile.TemporaryDirectory() as scratch:
            if _try(command, Path(scratch)):
                return command
    return (
        "neither `unshare -m` (root) nor `unshare -rm` (user namespaces) could lay an overlay "
        "over /etc here"
    )


@dataclass
class EtcOverlay:
    """Files to put under ``/etc`` for the commands ``wrap`` runs."""

    scratch: Path
    """Where the overlay's upper and work folders live."""
    unshare: tuple[str, ...]
    """The ``unshare`` command line that works on this machine."""
    files: dict[str, str] = field(default_factory=dict)
    """Text by path relative to ``/etc`` (``claude-code/managed-mcp.json``)."""

    @property
    def upper(self) -> Path:
        """The overlay's upper folder: what the commands see added to ``/etc``."""
        return self.scratch / "upper"

    def write(self) -> None:
        """Write ``files`` into the overlay (each command sees them as they are then)."""
        for relative, text in self.files.items():
            path = self.upper / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)

    def wrap(self, argv: Sequence[str]) -> list[str]:
        """``argv`` run with the overlay's files under ``/etc`` (written first)."""
        self.write()
        work = self.scratch / "work"
        work.mkdir(parents=True, exist_ok=True)
        # The work folder must be empty at each mount: the last run may have left its own.
        for leftover in work.iterdir():
            shutil.rmtree(leftover, ignore_errors=True)
        return [*self.unshare, "sh", "-c", _MOUNT, "sh", str(self.upper), str(work), *argv]


def etc_overlay(scratch: Path) -> EtcOverlay:
    """An empty overlay kept in ``scratch``, or a skip that says why this machine has none."""
    how = _unshare()
    if isinstance(how, str):
        pytest.skip(how)
    scratch.mkdir(parents=True, exist_ok=True)
    (scratch / "upper").mkdir(exist_ok=True)
    return EtcOverlay(scratch=scratch, unshare=how)
