"""Fixtures of the host-program tests: a fake home per host (each skips where its program
is not installed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hosts.claude_code import ClaudeCodeHome
from tests.hosts.programs import program_path


@pytest.fixture
def claude(tmp_path: Path) -> ClaudeCodeHome:
    """An empty, trusted Claude Code home and project (skips where claude is not installed)."""
    program_path("claude")
    return ClaudeCodeHome.make(tmp_path)
