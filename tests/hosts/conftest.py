"""Fixtures of the host-program tests: a fake home per host (each skips where its program
is not installed). Every test here but the stand-in's own runs a host program (3 to 18 s a
run), so each is ``slow``: the quick run leaves them out, the README's command runs them."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentty_tui.gateway.rendezvous import rendezvous
from tests.hosts.claude_code import ClaudeCodeHome
from tests.hosts.codex_cli import CodexHome
from tests.hosts.gemini_cli import GeminiHome
from tests.hosts.programs import program_path


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test of this folder that runs a host program ``slow`` (the stand-in's own
    tests run none)."""
    here = Path(__file__).parent
    for item in items:
        if here in item.path.parents and item.path.name != "test_standin.py":
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _fake_homes_daemon_stopped(tmp_path: Path) -> Iterator[None]:
    """After the test, end the gateway daemon a connected host started in the fake home
    (``tmp_path/home``), and so its servers, rather than leave them for its idle time."""
    yield
    place = rendezvous({"HOME": str(tmp_path / "home")})
    with contextlib.suppress(OSError, ValueError):
        os.kill(int(place.pid.read_text()), signal.SIGTERM)


@pytest.fixture
def claude(tmp_path: Path) -> ClaudeCodeHome:
    """An empty, trusted Claude Code home and project (skips where claude is not installed)."""
    program_path("claude")
    return ClaudeCodeHome.make(tmp_path)


@pytest.fixture
def gemini(tmp_path: Path) -> GeminiHome:
    """An empty Gemini CLI home and a trusted project (skips where gemini is not installed)."""
    program_path("gemini")
    return GeminiHome.make(tmp_path)


@pytest.fixture
def codex(tmp_path: Path) -> CodexHome:
    """An empty Codex home and a trusted project (skips where codex is not installed)."""
    program_path("codex")
    return CodexHome.make(tmp_path)
