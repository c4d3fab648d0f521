"""The store's lock stays out of the user's folders, and still orders writers of one file."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

from agentty_tui.config import (
    AddServer,
    ConfigStore,
    RemoveServer,
    SetServerDisabled,
    SetToolEnabled,
    UpdateServer,
)
from agentty_tui.config.locking import lock_folders, lock_path
from agentty_tui.errors import ConfigError
from agentty_tui.model import StdioSpec
from agentty_tui.runtime_folder import private_runtime_folder

CONFIGS = {
    "mcp.json": '{"mcpServers": {"a": {"command": "x"}}}\n',
    ".mcp.json": '{"mcpServers": {"a": {"command": "x"}}}\n',
    "settings.json": '{"mcpServers": {"a": {"command": "x"}}}\n',
    "config.toml": '[mcp_servers.a]\ncommand = "x"\n',
}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_no_file_but_the_config_appears_in_its_folder(tmp_path: Path, name: str) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    path = folder / name
    path.write_text(CONFIGS[name])
    store = ConfigStore(path)
    store.apply(AddServer("b", StdioSpec(command="y")))
    store.apply(SetToolEnabled("a", "t", False))
    store.apply(SetServerDisabled("a", True))
    store.apply(UpdateServer("a", StdioSpec(command="z")))
    store.apply(RemoveServer("b"))
    assert os.listdir(folder) == [name]
    assert lock_path(path).exists()


def test_a_new_config_in_a_new_folder_is_alone_there(tmp_path: Path) -> None:
    path = tmp_path / "new" / ".mcp.json"
    ConfigStore(path).apply(AddServer("a", StdioSpec(command="x")))
    assert os.listdir(path.parent) == [".mcp.json"]


def test_every_name_of_one_file_shares_one_lock(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(CONFIGS["mcp.json"])
    link = tmp_path / "link.json"
    link.symlink_to(path)
    assert lock_path(link) == lock_path(path) == lock_path(tmp_path / "." / "mcp.json")
    assert lock_path(tmp_path / "other.json") != lock_path(path)
    # Held under one name, the lock stops a writer that came by the other.
    with open(lock_path(path), "w") as holder:
        fcntl.flock(holder.fileno(), fcntl.LOCK_EX)
        with pytest.raises(ConfigError, match="another process"):
            ConfigStore(link, lock_timeout=0.05).apply(SetServerDisabled("a", True))
    assert path.read_text() == CONFIGS["mcp.json"]


def test_a_lock_folder_others_can_write_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = tmp_path / "run"
    (runtime / "agentty" / "locks").mkdir(parents=True)
    (runtime / "agentty" / "locks").chmod(0o777)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    path = tmp_path / "mcp.json"
    assert lock_path(path).parent == lock_folders()[1]
    assert lock_path(path).parent != runtime / "agentty" / "locks"


def test_the_first_lock_leaves_the_runtime_folder_private(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A config written before the gateway ever ran must not make its folder one it refuses.
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    lock = lock_path(tmp_path / "mcp.json")
    assert lock.parent == runtime / "agentty" / "locks"
    assert private_runtime_folder(os.environ) == runtime / "agentty"  # not refused
    assert (runtime / "agentty").stat().st_mode & 0o777 == 0o700
