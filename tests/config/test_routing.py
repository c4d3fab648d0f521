"""Routing a host through agentty's gateway (``config/routing.py``), on a fake home holding
every host's user file: connect moves the host's servers aside and writes one gateway entry,
the workspace reads them from the stash as that host's, reached through the gateway, and
disconnect gives them back byte for byte, or entry by entry around the host's own edits."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from agentty_tui.config.engine import AddServer, SetToolEnabled
from agentty_tui.config.routing import (
    GATEWAY_NAME,
    GATEWAY_PROBLEM,
    connect,
    disconnect,
    gateway_spec,
    is_gateway_entry,
    plan_connect,
    plan_disconnect,
    route_of,
)
from agentty_tui.config.sources import SourceFile, workspace_sources
from agentty_tui.config.store import ConfigStore
from agentty_tui.config.workspace import open_workspace, source_dialect
from agentty_tui.errors import ConfigError
from agentty_tui.model import StdioSpec
from tests.fake_home import FakeHome, build_fake_home

PROGRAM = [sys.executable, "-m", "agentty_tui"]
USER_FILES = {
    "claude": "claude-user",
    "claude-desktop": "claude-desktop",
    "cursor": "cursor-user",
    "gemini": "gemini-user",
    "codex": "codex-user",
    "vscode": "vscode-user",
}
"""Each host, and the fake home's key of its user file."""


@pytest.fixture
def fake(tmp_path: Path) -> FakeHome:
    return build_fake_home(tmp_path)


def host_file(fake: FakeHome, host: str) -> tuple[SourceFile, ConfigStore]:
    source = next(
        s
        for s in workspace_sources(fake.home, fake.env, fake.project)
        if s.ref.host == host and s.ref.scope == "user"
    )
    return source, ConfigStore(source.path, dialect=source_dialect(source, fake.project))


def connected(fake: FakeHome, host: str) -> tuple[SourceFile, ConfigStore]:
    source, store = host_file(fake, host)
    route = route_of(fake.home, fake.env, host, source.dialect)
    connect(plan_connect(source, store, route, PROGRAM), store)
    return source, store


@pytest.mark.parametrize("host", list(USER_FILES))
def test_connect_then_disconnect_gives_the_file_back_byte_for_byte(
    fake: FakeHome, host: str
) -> None:
    key = USER_FILES[host]
    before = fake.files[key].read_bytes()
    names = fake.servers[key]
    source, store = connected(fake, host)
    # The host's file holds the one gateway entry now; its servers are agentty's to serve.
    after = store.load()
    assert [s.name for s in after.servers] == [GATEWAY_NAME]
    gateway = after.server(GATEWAY_NAME)
    assert gateway is not None and gateway.spec == gateway_spec(host, PROGRAM)
    config = open_workspace(fake.cwd, home=fake.home, env=fake.env).load()
    for name in names:
        server = config.server(name)
        assert server is not None, name
        views = [v for v in server.hosts if v.source.host == host and v.source.scope == "user"]
        assert views and all(v.routed for v in views), name
    assert config.server(GATEWAY_NAME) is None  # the gateway entry is not read as a server
    route = route_of(fake.home, fake.env, host, source.dialect)
    plan = plan_disconnect(source, store, route)
    assert plan.exact is not None
    connected_text = fake.files[key].read_text()
    assert f"keep the file as it is now at {route.before_disconnect}" in plan.describe()
    disconnect(plan, store)
    assert fake.files[key].read_bytes() == before
    # What disconnect replaced is kept: the file as it was while connected, and nothing else.
    assert route.before_disconnect.read_text() == connected_text
    assert [path.name for path in route.folder.iterdir()] == [route.before_disconnect.name]


def test_a_host_that_rewrote_its_file_meanwhile_keeps_its_edit_and_gets_its_servers_back(
    fake: FakeHome,
) -> None:
    source, store = connected(fake, "claude")
    fake.claude_code_writes("a prompt while connected")  # Claude Code rewrites ~/.claude.json
    route = route_of(fake.home, fake.env, "claude", source.dialect)
    plan = plan_disconnect(source, store, route)
    assert plan.exact is None and list(plan.entries) == list(fake.servers["claude-user"])
    disconnect(plan, store)
    state = json.loads(fake.files["claude-user"].read_text())
    assert list(state["mcpServers"]) == list(fake.servers["claude-user"])
    history = state["projects"][str(fake.project)]["history"]
    assert history[0]["display"] == "a prompt while connected"


def test_a_switch_of_a_host_without_switches_works_while_connected_and_is_said_lost_after(
    fake: FakeHome,
) -> None:
    name = fake.servers["cursor-user"][0]
    source, store = connected(fake, "cursor")
    workspace = open_workspace(fake.cwd, home=fake.home, env=fake.env)
    workspace.load()
    config = workspace.apply(SetToolEnabled(server=name, tool="echo", enabled=False), host="cursor")
    server = config.server(name)
    assert server is not None
    (view,) = [v for v in server.hosts if v.source.host == "cursor"]
    assert view.routed and not view.tools.allows("echo")
    assert view.tool_switch is not None and view.tool_switch.endswith("(via agentty)")
    route = route_of(fake.home, fake.env, "cursor", source.dialect)
    stash = json.loads(route.stash.read_text())
    assert stash["mcpServers"][name]["tools"] == {"exclude": ["echo"]}
    plan = plan_disconnect(source, store, route)
    assert plan.exact is None
    assert any("sent again" in line for line in plan.lost), plan.lost
    disconnect(plan, store)
    entry = json.loads(fake.files["cursor-user"].read_text())["mcpServers"][name]
    assert "tools" not in entry  # Cursor has no place for it: not left behind as clutter


def test_disconnect_refuses_a_name_the_host_took_again_and_writes_nothing(
    fake: FakeHome,
) -> None:
    name = fake.servers["codex-user"][0]
    source, store = connected(fake, "codex")
    store.apply(AddServer(name, StdioSpec(command="other")))
    route = route_of(fake.home, fake.env, "codex", source.dialect)
    before = fake.files["codex-user"].read_bytes()
    with pytest.raises(ConfigError, match="is in the file again"):
        plan_disconnect(source, store, route)
    assert fake.files["codex-user"].read_bytes() == before
    assert route.connected() and route.stash.is_file()


def test_connect_twice_is_refused_and_nothing_is_lost(fake: FakeHome) -> None:
    source, store = connected(fake, "gemini")
    route = route_of(fake.home, fake.env, "gemini", source.dialect)
    stash = route.stash.read_bytes()
    with pytest.raises(ConfigError, match="connected already"):
        plan_connect(source, store, route, PROGRAM)
    assert route.stash.read_bytes() == stash


def test_a_gateway_entry_in_any_file_is_never_started(fake: FakeHome) -> None:
    path = fake.files["project-mcp"]
    document = json.loads(path.read_text())
    document["mcpServers"]["via"] = {"command": "agentty-tui", "args": ["serve"]}
    path.write_text(json.dumps(document))
    config = open_workspace(fake.cwd, home=fake.home, env=fake.env).load()
    via = config.server("via")
    assert via is not None and via.problem == GATEWAY_PROBLEM
    assert is_gateway_entry(StdioSpec(command=sys.executable, args=("-m", "agentty_tui", "serve")))
    assert not is_gateway_entry(StdioSpec(command="uvx", args=("serve",)))
