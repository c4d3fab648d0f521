"""Fixtures shared by every test: the anyio backend, config files, process checks."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def anyio_backend() -> str:
    """Textual and the mcp SDK both run on asyncio."""
    return "asyncio"


WriteConfig = Callable[..., Path]


@pytest.fixture
def write_config(tmp_path: Path) -> WriteConfig:
    """Write ``{"mcpServers": servers, **top}`` to ``tmp_path/mcp.json`` and return its path."""

    def write(servers: dict[str, Any], **top: Any) -> Path:
        path = tmp_path / "mcp.json"
        path.write_text(json.dumps({**top, "mcpServers": servers}, indent=2) + "\n")
        return path

    return write


@pytest.fixture
def log_dir(tmp_path: Path) -> Path:
    """Where the servers' stderr logs go in a test."""
    return tmp_path / "logs"


@pytest.fixture(autouse=True)
def _isolated_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads or writes the real user's config or state folders."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.delenv("AGENTTY_CONFIG", raising=False)
