"""A config its owner made read-only is never replaced by an edit (the rename would allow it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentty_tui.config import (
    AddServer,
    ConfigStore,
    RemoveServer,
    SetServerDisabled,
    SetToolEnabled,
    apply_import,
    plan_import,
)
from agentty_tui.config.engine import ConfigEdit
from agentty_tui.errors import ReadOnlyFileError
from agentty_tui.model import StdioSpec
from tests.helpers import each_dialect_file, write_file

DOCUMENT = {"mcpServers": {"time": {"command": "mcp-server-time", "args": ["--x"]}}}

EDITS: list[ConfigEdit] = [
    AddServer("new", StdioSpec(command="x")),
    RemoveServer("time"),
    SetToolEnabled("time", "convert_time", False),
    SetServerDisabled("time", True),
]


def _config(tmp_path: Path, mode: int) -> Path:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(DOCUMENT, indent=2) + "\n")
    path.chmod(mode)
    return path


@pytest.mark.parametrize("edit", EDITS, ids=lambda edit: type(edit).__name__)
@pytest.mark.parametrize("mode", [0o444, 0o400, 0o555])
def test_an_edit_of_a_read_only_file_is_refused(
    tmp_path: Path, edit: ConfigEdit, mode: int
) -> None:
    path = _config(tmp_path, mode)
    before = path.read_bytes(), path.stat().st_ino
    with pytest.raises(ReadOnlyFileError) as caught:
        ConfigStore(path).apply(edit)
    assert str(caught.value) == f"{path} is read-only (mode {mode:04o}): not written"
    assert (path.read_bytes(), path.stat().st_ino) == before
    assert path.stat().st_mode & 0o777 == mode
    assert sorted(os.listdir(tmp_path)) == ["mcp.json"]  # no temp or lock left


def test_a_no_op_edit_of_a_read_only_file_is_no_error(tmp_path: Path) -> None:
    path = _config(tmp_path, 0o444)
    config = ConfigStore(path).apply(SetToolEnabled("time", "convert_time", True))
    assert config.server("time") is not None


def test_a_read_only_file_reached_through_a_symlink_is_refused(tmp_path: Path) -> None:
    target = _config(tmp_path, 0o444)
    link = tmp_path / "link.json"
    link.symlink_to(target)
    with pytest.raises(ReadOnlyFileError, match=r"link\.json is read-only \(mode 0444\)"):
        ConfigStore(link).apply(RemoveServer("time"))


@each_dialect_file
def test_each_hosts_read_only_file_is_refused(
    tmp_path: Path, dialect: str, name: str, text: str, toggled: str
) -> None:
    path = write_file(tmp_path / name, text)
    path.chmod(0o444)
    with pytest.raises(ReadOnlyFileError):
        ConfigStore(path).apply(SetToolEnabled("plain", "echo", False))
    assert path.read_text() == text


def test_a_writable_file_is_still_written(tmp_path: Path) -> None:
    path = _config(tmp_path, 0o644)
    ConfigStore(path).apply(RemoveServer("time"))
    assert json.loads(path.read_text()) == {"mcpServers": {}}


def test_an_import_into_a_read_only_file_reports_it(tmp_path: Path) -> None:
    target = _config(tmp_path, 0o444)
    source = tmp_path / "other.json"
    source.write_text(json.dumps({"mcpServers": {"extra": {"command": "x"}}}))
    store = ConfigStore(target)
    result = apply_import(plan_import(ConfigStore(source).load(), store.load()), store)
    assert result.added == ()
    assert result.failed == (("extra", f"{target} is read-only (mode 0444): not written"),)


def test_the_cli_exits_1_with_one_line(tmp_path: Path) -> None:
    path = _config(tmp_path, 0o444)
    before = path.read_bytes()
    result = subprocess.run(
        [sys.executable, "-m", "agentty_tui", "remove", "time", "--config", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert result.stderr == f"agentty-tui: {path} is read-only (mode 0444): not written\n"
    assert result.stdout == ""
    assert path.read_bytes() == before
