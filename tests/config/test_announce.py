"""Config writes announced to the running bridges: one datagram to each listening socket.

Real sockets in the test's private runtime folder (the autouse fixture's
``$XDG_RUNTIME_DIR``); a datagram on a Unix socket is queued when ``sendto`` returns, so what
a listener got is read at once, without waiting.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentty_tui.config import ConfigStore, SetToolEnabled
from agentty_tui.config.announce import (
    LISTENERS,
    MESSAGE,
    announce_written,
    listener_path,
    one_announcement,
)
from agentty_tui.config.workspace import open_workspace
from agentty_tui.errors import AgenttyError
from tests.fake_home import TWIN, build_fake_home


@contextlib.contextmanager
def listening() -> Iterator[socket.socket]:
    """A bound listener, as a bridge binds one."""
    path = listener_path()
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener:
        listener.bind(os.fsencode(path))
        listener.setblocking(False)
        try:
            yield listener
        finally:
            path.unlink(missing_ok=True)


def heard(listener: socket.socket) -> list[bytes]:
    """Every datagram queued for ``listener`` now."""
    got: list[bytes] = []
    while True:
        try:
            got.append(listener.recv(64))
        except BlockingIOError:
            return got


def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "mcp.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({"mcpServers": {"alpha": {"command": "true"}}}))
    return path


def test_a_write_is_announced_once_to_every_listener(tmp_path: Path) -> None:
    store = ConfigStore(config_file(tmp_path))
    with listening() as one, listening() as two:
        store.apply(SetToolEnabled("alpha", "add", False))
        assert heard(one) == [MESSAGE]
        assert heard(two) == [MESSAGE]


def test_a_write_that_changes_nothing_is_not_announced(tmp_path: Path) -> None:
    store = ConfigStore(config_file(tmp_path))
    store.apply(SetToolEnabled("alpha", "add", False))
    with listening() as listener:
        store.apply(SetToolEnabled("alpha", "add", False))  # already so: nothing written
        assert heard(listener) == []


def test_writes_inside_one_announcement_are_announced_once_at_its_end(tmp_path: Path) -> None:
    first, second = ConfigStore(config_file(tmp_path)), ConfigStore(config_file(tmp_path / "b"))
    with listening() as listener:
        with one_announcement():
            first.apply(SetToolEnabled("alpha", "add", False))
            with one_announcement():  # an inner block waits for the outer one
                second.apply(SetToolEnabled("alpha", "add", False))
            assert heard(listener) == []
        assert heard(listener) == [MESSAGE]


def test_a_switch_written_to_two_hosts_files_is_announced_once(tmp_path: Path) -> None:
    fake = build_fake_home(tmp_path, twins=("claude-user", "codex-user"))
    workspace = open_workspace(fake.cwd, home=fake.home, env=fake.env)
    workspace.load()
    before = workspace.version()
    with listening() as listener:
        workspace.apply(SetToolEnabled(TWIN, "echo", False))
        written = [a != b for a, b in zip(before, workspace.version(), strict=True)]
        assert written.count(True) == 2  # both hosts' files
        assert heard(listener) == [MESSAGE]


def test_a_socket_nobody_listens_on_is_removed(tmp_path: Path) -> None:
    gone = listener_path()
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as dead:
        dead.bind(os.fsencode(gone))  # closed below: its process was killed, say
    assert gone.exists()
    with listening() as listener:
        announce_written()
        assert heard(listener) == [MESSAGE]
    assert not gone.exists()


def test_a_folder_others_may_enter_is_neither_used_nor_told(tmp_path: Path) -> None:
    with listening() as listener:
        folder = Path(os.environ["XDG_RUNTIME_DIR"]) / "agentty" / LISTENERS
        folder.chmod(0o755)
        try:
            announce_written()
            assert heard(listener) == []
            with pytest.raises(OSError, match="not a private folder"):
                listener_path()
        finally:
            folder.chmod(0o700)
    runtime = folder.parent
    runtime.chmod(0o755)
    try:
        with pytest.raises(AgenttyError, match="not a private folder"):
            listener_path()
    finally:
        runtime.chmod(0o700)
