"""The roots a server is offered: its config entry's ``roots``, else the project's; a change of
them alone is announced to the running server (``roots/list_changed``), never a restart; a
host's offered roots win. The one-shot ``call`` offers the same (``tests/cli/test_commands.py``).

Real server: ``asking_server.py --legacy`` (2025 handshake: ``roots_seen`` counts the
``roots/list_changed`` notifications and reports what it got by asking after the last one).
"""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import mcp_types as types
import pytest

from agentty_tui.bridge import Bridge
from agentty_tui.bridge.roots import RootsBoard, project_roots, server_roots
from agentty_tui.config import ConfigStore, validate_document
from agentty_tui.model import ServerConfig
from tests.conftest import WriteConfig
from tests.helpers import stdio_entry
from tests.servers import asking_argv

pytestmark = pytest.mark.anyio

HOST_ROOT = types.Root(uri="file:///host/project", name="project")


def text_of(result: types.CallToolResult) -> str:
    first = result.content[0]
    assert isinstance(first, types.TextContent)
    return first.text


def test_the_board_gives_offers_else_each_servers_config_roots_else_the_project() -> None:
    default = project_roots(Path("/work/p"))
    board = RootsBoard(default)
    config = validate_document(
        {"mcpServers": {"a": {"command": "x", "roots": ["/data/a"]}, "b": {"command": "x"}}}
    )
    assert board.configure(config) == ("a",)
    assert [(str(r.uri), r.name) for r in board.current("a")] == [("file:///data/a", "a")]
    assert board.current("b") == default
    assert board.current() == default
    assert board.configure(config) == ()  # unchanged: nobody to tell
    board.offer("host", [HOST_ROOT])
    assert board.current("a") == (HOST_ROOT,)  # a host's own roots win
    board.withdraw("host")
    assert board.configure(validate_document({"mcpServers": {"a": {"command": "x"}}})) == ("a",)
    assert board.current("a") == default


def test_server_roots_are_the_entrys_else_the_projects() -> None:
    plain = ServerConfig(name="s")
    assert server_roots(plain, Path("/work/p")) == project_roots(Path("/work/p"))
    rooted = ServerConfig(name="s", roots=("file:///srv/x%20y/",))
    assert [(str(r.uri), r.name) for r in server_roots(rooted, Path("/p"))] == [
        ("file:///srv/x%20y/", "x y")
    ]


async def test_config_roots_are_answered_and_a_change_announced_without_a_restart(
    write_config: WriteConfig, log_dir: Path, tmp_path: Path
) -> None:
    argv = asking_argv("--legacy")
    path = write_config({"ask": stdio_entry(argv, roots=["src", "file:///srv/data"])})
    with anyio.fail_after(30):
        async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
            state = (await bridge.settled(timeout=30)).server("ask")
            assert state is not None and state.status == "connected", state
            pid = state.pid
            asked = text_of(await bridge.call_tool("ask", "roots", {}))
            assert asked == f"{(tmp_path / 'src').as_uri()}\nfile:///srv/data"
            # An outside edit of the roots alone: reloaded, the server kept and told.
            document = json.loads(path.read_text())
            document["mcpServers"]["ask"]["roots"] = ["/elsewhere"]
            path.write_text(json.dumps(document))
            report = await bridge.reload()
            assert report.restarted == () and report.error is None
            seen = ""
            while "\n" not in seen:  # the server asks in a task of its own
                seen = text_of(await bridge.call_tool("ask", "roots_seen", {}))
            after = bridge.snapshot.server("ask")
            assert after is not None and after.pid == pid and after.status == "connected"
            assert text_of(await bridge.call_tool("ask", "roots", {})) == "file:///elsewhere"
    assert seen == "1\nfile:///elsewhere"


async def test_a_host_offer_still_wins_over_the_config_roots(
    write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config({"ask": stdio_entry(asking_argv("--legacy"), roots=["/configured"])})
    with anyio.fail_after(30):
        async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
            await bridge.settled(timeout=30)
            bridge.roots.offer("host", [HOST_ROOT])
            assert text_of(await bridge.call_tool("ask", "roots", {})) == "file:///host/project"
            bridge.roots.withdraw("host")
            assert text_of(await bridge.call_tool("ask", "roots", {})) == "file:///configured"
