"""Fixtures shared by every test: the anyio backend, config files, servers on loopback URLs."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import serve_over_http
from tests.servers import gated_argv, plain_argv


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
def _isolated_state(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No test reads or writes the real user's config or state folders."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    # Outside tmp_path: the config store's lock files must not show up in a test's folder.
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path_factory.mktemp("run")))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.delenv("AGENTTY_CONFIG", raising=False)


@pytest.fixture(params=["streamable-http", "sse"])
def http_server(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    """A plain server on a loopback port; yields (transport, url)."""
    transport: str = request.param
    with serve_over_http(plain_argv("--name", "web"), transport) as url:
        yield transport, url


@pytest.fixture(params=["streamable-http", "sse"])
def gated_http_server(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    """A gated server (toolsets, list_changed) on a loopback port; yields (transport, url)."""
    transport: str = request.param
    with serve_over_http(gated_argv("--name", "godot"), transport) as url:
        yield transport, url
