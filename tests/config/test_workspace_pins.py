"""Pins in a workspace: written into agentty's own file; a server of a host's file is pinned
in agentty's pin store (``config.pins``), read into the config as its file's pins are, and the
host's file is never written for it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from agentty_tui.config.engine import (
    AddServer,
    RemoveServer,
    SetServerPriority,
    SetToolPinned,
)
from agentty_tui.config.pins import PINS_FILE_NAME
from agentty_tui.config.routing import connect, disconnect, plan_connect, plan_disconnect, route_of
from agentty_tui.config.sources import workspace_sources
from agentty_tui.config.store import ConfigStore
from agentty_tui.config.workspace import Workspace, open_workspace, source_dialect
from agentty_tui.errors import ConfigError, OperationError
from agentty_tui.model import StdioSpec
from tests.fake_home import LAYERED, SOURCES, FakeHome, build_fake_home


def _pins_file(fake: FakeHome) -> Path:
    return Path(fake.env["XDG_CONFIG_HOME"]) / "agentty" / PINS_FILE_NAME


def _records(fake: FakeHome) -> list[dict[str, object]]:
    found: list[dict[str, object]] = json.loads(_pins_file(fake).read_text())["pins"]
    return found


def _owned(fake: FakeHome, source: str) -> str | None:
    """The workspace key of a server whose entry in ``source`` is the one that runs."""
    for key, entry in fake.winners().items():
        if entry.source == source and not entry.problem:
            return key
    return None


def test_a_pin_goes_to_our_file(tmp_path: Path) -> None:
    fake = build_fake_home(tmp_path)
    workspace = open_workspace(fake.cwd, home=fake.home, env=fake.env)
    workspace.apply(AddServer(name="ours", spec=StdioSpec(command="true")))
    config = workspace.apply(
        [
            SetToolPinned(server="ours", tool="add", pinned=True),
            SetServerPriority(server="ours", priority=1),
        ]
    )
    ours = config.server("ours")
    assert ours is not None and ours.tools.pin == ("add",) and ours.priority == 1
    assert ours.pins_kept_in is None  # its own file holds them
    assert not _pins_file(fake).exists()


HOST_SOURCES = [key for key, source in SOURCES.items() if source.host != "agentty"]


@pytest.mark.parametrize("source", HOST_SOURCES)
def test_a_server_of_every_hosts_file_is_pinned_in_the_pin_store(
    tmp_path: Path, source: str
) -> None:
    """Claude Code's (user, local, project), Claude Desktop's, Cursor's, Gemini CLI's, Codex's
    and VS Code's files: the pins land in the pin store, keyed by the file and the entry's
    name, read back into the config; no host's file changes by a byte."""
    fake = build_fake_home(tmp_path)
    key = _owned(fake, source)
    assert key is not None, f"the fake home has no running entry of {source}"
    workspace = open_workspace(fake.cwd, home=fake.home, env=fake.env)
    workspace.load()
    before = fake.snapshot()
    config = workspace.apply(
        [
            SetToolPinned(server=key, tool="echo", pinned=True),
            SetServerPriority(server=key, priority=1),
        ]
    )
    assert fake.snapshot() == before  # no host's file written
    server = config.server(key)
    assert server is not None and server.tools.pin == ("echo",) and server.priority == 1
    assert server.pins_kept_in == str(_pins_file(fake))
    (record,) = _records(fake)
    entry = fake.winners()[key]
    assert record["file"] == str(fake.files[source]) and record["server"] == entry.name
    assert ("project" in record) == (SOURCES[source].scope == "local")
    # A fresh workspace reads the same (the catalog cannot tell where a pin came from).
    again = open_workspace(fake.cwd, home=fake.home, env=fake.env).load().server(key)
    assert again is not None and again.tools.pin == ("echo",) and again.priority == 1
    config = workspace.apply(
        [
            SetToolPinned(server=key, tool="echo", pinned=False),
            SetServerPriority(server=key, priority=0),
        ]
    )
    server = config.server(key)
    assert server is not None and server.tools.pin == () and server.priority == 0
    assert _records(fake) == []  # no record left behind
    assert fake.snapshot() == before


def test_removing_a_server_drops_its_kept_pins(tmp_path: Path) -> None:
    fake = build_fake_home(tmp_path)
    key = _owned(fake, "gemini-user")
    other = _owned(fake, "codex-user")
    assert key is not None and other is not None
    workspace = open_workspace(fake.cwd, home=fake.home, env=fake.env)
    workspace.load()
    workspace.apply(SetToolPinned(server=key, tool="echo", pinned=True))
    workspace.apply(SetToolPinned(server=other, tool="echo", pinned=True))
    config = workspace.apply(RemoveServer(name=key))
    assert config.server(key) is None
    assert [record["server"] for record in _records(fake)] == [fake.winners()[other].name]


def test_a_corrupt_pin_store_is_named_and_never_overwritten(tmp_path: Path) -> None:
    fake = build_fake_home(tmp_path)
    key = _owned(fake, "codex-user")
    assert key is not None
    workspace = open_workspace(fake.cwd, home=fake.home, env=fake.env)
    workspace.load()
    workspace.apply(SetToolPinned(server=key, tool="echo", pinned=True))
    path = _pins_file(fake)
    path.write_text('{"pins": [{"file": 7}]}\n')
    config = workspace.load()
    warning = next(line for line in config.warnings if str(path) in line)
    assert "pins[0].file" in warning and "as last read are kept" in warning
    server = config.server(key)
    assert server is not None and server.tools.pin == ("echo",)  # kept as last read
    with pytest.raises(ConfigError, match=r"pins\[0\]\.file"):
        workspace.apply(SetToolPinned(server=key, tool="other", pinned=True))
    assert path.read_text() == '{"pins": [{"file": 7}]}\n'
    path.write_text("{not json")
    with pytest.raises(ConfigError, match="not JSON") as raised:
        workspace.apply(SetToolPinned(server=key, tool="x", pinned=True))
    assert str(path) in str(raised.value)
    assert path.read_text() == "{not json"


def test_edits_of_two_writers_both_land(tmp_path: Path) -> None:
    """Each edit re-reads the store under its lock: a second workspace's pin does not undo
    the first's."""
    fake = build_fake_home(tmp_path)
    key, other = _owned(fake, "codex-user"), _owned(fake, "vscode-user")
    assert key is not None and other is not None
    first = open_workspace(fake.cwd, home=fake.home, env=fake.env)
    second = open_workspace(fake.cwd, home=fake.home, env=fake.env)
    first.load()
    second.load()
    first.apply(SetToolPinned(server=key, tool="echo", pinned=True))
    config = second.apply(SetToolPinned(server=other, tool="echo", pinned=True))
    for name in (key, other):
        server = config.server(name)
        assert server is not None and server.tools.pin == ("echo",)


def test_the_pin_store_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentty_tui.config import pins

    fake = build_fake_home(tmp_path)
    key = _owned(fake, "codex-user")
    assert key is not None
    workspace = open_workspace(fake.cwd, home=fake.home, env=fake.env)
    workspace.load()
    monkeypatch.setattr(pins, "MAX_TOOLS", 2)
    workspace.apply([SetToolPinned(server=key, tool=name, pinned=True) for name in "ab"])
    before = _pins_file(fake).read_bytes()
    with pytest.raises(ConfigError, match="2 pinned tools already"):
        workspace.apply(SetToolPinned(server=key, tool="c", pinned=True))
    assert _pins_file(fake).read_bytes() == before


def test_one_hosts_file_named_alone_keeps_its_pins_in_the_store(tmp_path: Path) -> None:
    """``--config ~/.codex/config.toml``: the TOML is never written for a pin."""
    path = tmp_path / "config.toml"
    text = "[mcp_servers.notes]\ncommand = 'notes-server'\n"
    path.write_text(text)
    workspace = Workspace.of_file(path)
    config = workspace.apply(SetToolPinned(server="notes", tool="add", pinned=True))
    notes = config.server("notes")
    assert notes is not None and notes.tools.pin == ("add",) and notes.pins_kept_in
    assert path.read_text() == text
    assert Workspace.of_file(path).load() == config


def test_without_a_pin_store_a_hosts_file_refuses_a_pin(tmp_path: Path) -> None:
    fake = build_fake_home(tmp_path)
    workspace = open_workspace(fake.cwd, home=fake.home, env=fake.env)
    workspace.pins = None
    workspace.load()
    before = fake.snapshot()
    with pytest.raises(OperationError, match="only agentty's own files hold them"):
        workspace.apply(SetToolPinned(server=LAYERED, tool="x", pinned=True))
    assert fake.snapshot() == before


def test_pins_of_a_host_outlive_connecting_and_disconnecting_it(tmp_path: Path) -> None:
    """A connected host's servers are read from its stash, but their pins stay keyed by the
    host's own file: a pin made before ``connect`` still holds while connected, one made while
    connected still holds after ``disconnect``, and the host's file comes back as it was."""
    fake = build_fake_home(tmp_path)
    first, second = fake.servers["gemini-user"][:2]
    source = next(
        s
        for s in workspace_sources(fake.home, fake.env, fake.project)
        if s.ref.host == "gemini" and s.ref.scope == "user"
    )
    store = ConfigStore(source.path, dialect=source_dialect(source, fake.project))
    route = route_of(fake.home, fake.env, "gemini", source.dialect)
    before = fake.files["gemini-user"].read_bytes()

    def pins() -> dict[str, tuple[str, ...]]:
        config = open_workspace(fake.cwd, home=fake.home, env=fake.env).load()
        found = (config.server(name) for name in (first, second))
        return {server.name: server.tools.pin for server in found if server is not None}

    workspace = open_workspace(fake.cwd, home=fake.home, env=fake.env)
    workspace.load()
    workspace.apply(SetToolPinned(server=first, tool="echo", pinned=True))
    connect(plan_connect(source, store, route, [sys.executable, "-m", "agentty_tui"]), store)
    assert pins() == {first: ("echo",), second: ()}
    workspace = open_workspace(fake.cwd, home=fake.home, env=fake.env)
    workspace.load()
    workspace.apply(SetToolPinned(server=second, tool="add", pinned=True))
    assert pins() == {first: ("echo",), second: ("add",)}
    disconnect(plan_disconnect(source, store, route), store)
    assert fake.files["gemini-user"].read_bytes() == before
    assert pins() == {first: ("echo",), second: ("add",)}
    assert {record["file"] for record in _records(fake)} == {str(fake.files["gemini-user"])}
