"""Claude Code's own lock of ``~/.claude.json`` (``<file>.lock``), held by the store while it
writes that file: waited for, taken over when stale, always let go."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from agentty_tui.config.hosts.claude.statelock import STALE_SECONDS, state_lock_path
from agentty_tui.config.hosts.claude.switching import JsonListView, ListEdit
from agentty_tui.config.store import DocumentStore
from agentty_tui.errors import ConfigError

EDIT = ListEdit(("projects", "/p", "disabledMcpServers"), "clock", True)


def _state(tmp_path: Path) -> Path:
    path = tmp_path / ".claude.json"
    path.write_text(json.dumps({"projects": {"/p": {"x": 1}}}, indent=2))
    return path


def _store(path: Path, timeout: float = 5.0) -> DocumentStore[ListEdit, object]:
    return DocumentStore(path, JsonListView(), lock_timeout=timeout)


def test_the_lock_is_held_while_the_file_is_replaced_and_let_go_after(tmp_path: Path) -> None:
    path = _state(tmp_path)
    lock = tmp_path / ".claude.json.lock"
    assert state_lock_path(path) == lock
    seen: list[bool] = []
    store = _store(path)
    store._before_replace = lambda _target: seen.append(lock.is_dir())
    store.apply(EDIT)
    assert seen == [True]
    assert not lock.exists()
    assert json.loads(path.read_text())["projects"]["/p"]["disabledMcpServers"] == ["clock"]


def test_a_lock_claude_code_holds_is_waited_for_then_refused(tmp_path: Path) -> None:
    path = _state(tmp_path)
    before = path.read_bytes()
    lock = tmp_path / ".claude.json.lock"
    lock.mkdir()
    with pytest.raises(ConfigError, match=r"Claude Code has held its lock .*\.claude\.json\.lock"):
        _store(path, timeout=0.2).apply(EDIT)
    assert path.read_bytes() == before
    assert lock.is_dir()  # theirs: left alone


def test_a_stale_lock_is_taken_over(tmp_path: Path) -> None:
    path = _state(tmp_path)
    lock = tmp_path / ".claude.json.lock"
    lock.mkdir()
    old = time.time() - STALE_SECONDS - 5
    os.utime(lock, (old, old))
    _store(path, timeout=0.2).apply(EDIT)
    assert "clock" in path.read_text()
    assert not lock.exists()


def test_the_lock_is_let_go_when_the_edit_is_refused(tmp_path: Path) -> None:
    path = tmp_path / ".claude.json"
    path.write_text('{"projects": ')
    with pytest.raises(ConfigError, match="invalid JSON"):
        _store(path).apply(EDIT)
    assert not (tmp_path / ".claude.json.lock").exists()


def test_another_file_takes_no_such_lock(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    assert state_lock_path(path) is None
    made: list[list[str]] = []
    store = _store(path)
    store._before_replace = lambda _target: made.append(sorted(os.listdir(tmp_path)))
    store.apply(ListEdit(("permissions", "deny"), "mcp__a", True))
    assert made and not any(name.endswith(".lock") for name in made[0])
