"""A folder only root may change, for the system files a host reads only from one.

Gemini CLI reads its system settings only when the file and every folder above it are owned
by root and writable by neither group nor others (``config/hosts/gemini_system``), which no
folder under ``/tmp`` is (``/tmp`` is writable by all). ``root_folder`` makes one beside the
tests (their checkout's folders are root's when the tests run as root), else in the home
folder (``/root`` when they run as root, wherever the checkout is, as a clone under ``/tmp``
in CI); it skips, saying why, where none can be had.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentty_tui.config.hosts.gemini_system import system_file_insecure

__all__ = ["root_folder"]


@pytest.fixture
def root_folder() -> Iterator[Path]:
    """A new empty folder that passes Gemini CLI's check (removed afterwards), or a skip."""
    reasons = []
    for place in (Path(__file__).parent, Path.home()):
        folder = Path(tempfile.mkdtemp(prefix="root-only-", dir=place))
        try:
            probe = folder / "probe.json"
            probe.write_text("{}")
            why = system_file_insecure(probe)
            probe.unlink()
            if why is None:
                yield folder
                return
            reasons.append(why)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    pytest.skip(f"no folder here passes Gemini CLI's check for system files: {reasons}")
