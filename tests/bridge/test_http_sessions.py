"""Streamable HTTP sessions: ended with a DELETE however the connection closes, and
re-established once when the server restarted and forgot them; a server gone for good is a
failed row that says it cannot be reached. Against a real 2025-era session server."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import pytest

from agentty_tui.bridge import Bridge
from agentty_tui.config import ConfigStore
from agentty_tui.errors import OperationError
from tests.helpers import free_port, run_cli, serving
from tests.servers import python_server_argv


@dataclass
class SessionServer:
    """The ``session_http_server.py`` process, and the sessions it saw begin and end."""

    port: int
    events: Path
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        """The MCP endpoint."""
        return f"http://127.0.0.1:{self.port}/mcp"

    def start(self) -> None:
        """Start (again): a restarted server knows none of the sessions it gave out before."""
        self.stop()
        argv = python_server_argv(
            "session_http_server.py", "--port", str(self.port), "--events", str(self.events)
        )
        self.process = subprocess.Popen(argv, stderr=subprocess.DEVNULL)
        # No event says "listening" from another process: polling the port is the only way.
        for _ in range(1200):
            if serving(self.port) or self.process.poll() is not None:
                break
            time.sleep(0.05)
        assert serving(self.port), "the session test server did not start"

    def stop(self) -> None:
        """Stop the process, if it runs."""
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None

    def seen(self) -> list[str]:
        """``initialize`` and ``delete ID`` lines, in order."""
        return self.events.read_text().splitlines() if self.events.exists() else []

    async def wait_for(self, count: int, what: str) -> list[str]:
        """Wait until ``count`` lines starting with ``what`` were written."""
        with anyio.fail_after(20):
            # Written by another process: reading the file again is the only way to know.
            while len(lines := [x for x in self.seen() if x.startswith(what)]) < count:  # noqa: ASYNC110
                await anyio.sleep(0.05)
        return lines


@pytest.fixture
def session_server(tmp_path: Path) -> Iterator[SessionServer]:
    """A running session server on a free port."""
    server = SessionServer(free_port(), tmp_path / "sessions.txt")
    server.start()
    yield server
    server.stop()


def _config(tmp_path: Path, **servers: str) -> Path:
    path = tmp_path / "mcp.json"
    path.write_text(
        json.dumps({"mcpServers": {name: {"url": url} for name, url in servers.items()}})
    )
    return path


@pytest.mark.anyio
async def test_remove_and_quit_end_each_session_with_a_delete(
    session_server: SessionServer, tmp_path: Path
) -> None:
    path = _config(tmp_path, a=session_server.url, b=session_server.url)
    async with Bridge(ConfigStore(path), log_dir=tmp_path / "logs") as bridge:
        model = await bridge.settled(30)
        assert [s.status for s in model.servers] == ["connected", "connected"]
        assert model.servers[0].info is not None
        assert model.servers[0].info.protocol_version == "2025-11-25"  # a session-era server
        await bridge.plugin_remove("a")
        (first,) = await session_server.wait_for(1, "delete")
    deletes = await session_server.wait_for(2, "delete")
    assert deletes[0] == first
    assert len(set(deletes)) == 2  # each session ended once, by its own id
    assert all(len(line.split()) == 2 for line in deletes)


def test_cli_list_and_call_end_their_sessions(
    session_server: SessionServer, tmp_path: Path
) -> None:
    # The commands run in this process (each runs its own event loop, so the test has none).
    path = _config(tmp_path, web=session_server.url)
    listed = run_cli("list", "--config", str(path))
    assert listed.returncode == 0, listed.stderr
    anyio.run(session_server.wait_for, 1, "delete")
    called = run_cli("call", "web", "add", '{"a": 2, "b": 3}', "--config", str(path))
    assert called.returncode == 0, called.stderr
    assert called.stdout.strip() == "5"
    anyio.run(session_server.wait_for, 2, "delete")
    assert session_server.seen() == [
        "initialize",
        session_server.seen()[1],
        "initialize",
        session_server.seen()[3],
    ]


@pytest.mark.anyio
async def test_a_restarted_server_gets_a_new_session_and_the_call_is_retried(
    session_server: SessionServer, tmp_path: Path
) -> None:
    path = _config(tmp_path, web=session_server.url)
    async with Bridge(ConfigStore(path), log_dir=tmp_path / "logs") as bridge:
        await bridge.settled(30)
        first = await bridge.call_tool("web", "pid")
        session_server.start()  # the same port, no memory of the session
        again = await bridge.call_tool("web", "pid")
        assert again.content != first.content  # a new process answered
        assert not again.is_error
        model = await bridge.settled(30)
        assert model.server("web").status == "connected"  # type: ignore[union-attr]
        assert (await bridge.call_tool("web", "add", {"a": 1, "b": 1})).content[0].text == "2"  # type: ignore[union-attr]
    assert [line for line in session_server.seen() if line == "initialize"] == ["initialize"] * 2


@pytest.mark.anyio
async def test_a_server_gone_for_good_is_a_failed_row_that_cannot_connect(
    session_server: SessionServer, tmp_path: Path
) -> None:
    path = _config(tmp_path, web=session_server.url)
    async with Bridge(ConfigStore(path), log_dir=tmp_path / "logs") as bridge:
        await bridge.settled(30)
        session_server.stop()
        with pytest.raises(OperationError, match="cannot connect to"):
            await bridge.call_tool("web", "add", {"a": 1, "b": 2})
        model = await bridge.settled(30)
        web = model.server("web")
        assert web is not None and web.status == "failed"
        assert web.error is not None and web.error.startswith(
            f"cannot connect to {session_server.url}"
        )
