"""Fixtures shared by every test: the anyio backend, config files, servers on loopback URLs.

Also the Hypothesis profiles: ``ci`` (the default: every property test's own number of
examples) and ``dev`` (``HYPOTHESIS_PROFILE=dev``: at most ``DEV_EXAMPLES`` a test, for a
quick local run).
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from tests.helpers import serve_over_http
from tests.servers import gated_argv, plain_sdk_argv

DEV_EXAMPLES = 10
"""Examples a property test runs at most under the ``dev`` profile."""

# deadline=None in both: under parallel workers on a small machine one example may take longer
# than Hypothesis's 200 ms default without being slow code; a flaky deadline is no check.
settings.register_profile(
    "ci", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.register_profile(
    "dev", max_examples=DEV_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
settings.load_profile(PROFILE)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under ``dev``, cap the tests that ask for their own number of examples as well
    (``@settings(max_examples=300)`` wins over a profile)."""
    if PROFILE != "dev":
        return
    for item in items:
        function = getattr(item, "function", None)
        chosen = getattr(function, "_hypothesis_internal_use_settings", None)
        if isinstance(chosen, settings) and chosen.max_examples > DEV_EXAMPLES:
            capped = settings(chosen, max_examples=DEV_EXAMPLES)
            function._hypothesis_internal_use_settings = capped  # type: ignore[union-attr]


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
    # The token counts kept across processes (``catalog/token_cache.py``): a test's own.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("AGENTTY_CONFIG", raising=False)


@pytest.fixture(autouse=True)
def _one_of_its_group_at_a_time(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[None]:
    """Tests marked ``xdist_group(NAME)`` run one at a time across the parallel workers.

    For tests that share something beyond their own folders: ``test_leftovers`` plants
    processes carrying one fixed run token and ends every process of the user carrying it, so
    two of them at once would end each other's. (Work stealing ignores the mark itself: a lock
    file in the run's shared temporary folder does the waiting.)
    """
    marker = request.node.get_closest_marker("xdist_group")
    if marker is None:
        yield
        return
    name = str(marker.args[0] if marker.args else marker.kwargs.get("name", "default"))
    # Under xdist each worker's base folder sits in the run's own folder, shared by all.
    shared = tmp_path_factory.getbasetemp().parent
    with (shared / f"group-{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture(params=["streamable-http", "sse"])
def http_server(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    """A plain server on a loopback port; yields (transport, url)."""
    transport: str = request.param
    with serve_over_http(plain_sdk_argv("--name", "web"), transport) as url:
        yield transport, url


@pytest.fixture(params=["streamable-http", "sse"])
def gated_http_server(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    """A gated server (toolsets, list_changed) on a loopback port; yields (transport, url)."""
    transport: str = request.param
    with serve_over_http(gated_argv("--name", "godot"), transport) as url:
        yield transport, url
