"""Fixtures of the gateway's tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def runtime(tmp_path: Path) -> Path:
    """A private runtime folder (``XDG_RUNTIME_DIR``) of the test's own: its daemon's socket,
    lock and pid file live there, apart from every other test's."""
    folder = tmp_path / "run"
    folder.mkdir(mode=0o700)
    return folder
