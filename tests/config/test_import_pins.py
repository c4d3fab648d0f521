"""Pins travel with an imported server (``config.importing``), on real files: read from where
the source keeps them (its own ``tools.pin`` / ``"priority"``, or agentty's pin store for a
host's file), written where the target keeps them (its own fields, or the pin store under the
target's absolute path), and a server pinned differently is a difference of the plan."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agentty_tui.config import ConfigStore, apply_import, plan_import
from agentty_tui.config.importing import read_source
from agentty_tui.config.pins import PINS_FILE_NAME, PinPlace, PinServer, PinStore, PinTool
from agentty_tui.config.workspace import Workspace

CODEX = """# my Codex config
[mcp_servers.alpha]
command = "alpha"

[mcp_servers.beta]
command = "beta"
"""
OURS = {
    "mcpServers": {
        "alpha": {"command": "alpha", "tools": {"pin": ["find"]}, "priority": 2},
        "beta": {"command": "beta"},
    }
}


def _pin_store() -> PinStore:
    """The user's pin store (``$XDG_CONFIG_HOME``, a folder of this test's own)."""
    return PinStore(Path(os.environ["XDG_CONFIG_HOME"]) / "agentty" / PINS_FILE_NAME)


def _records() -> list[dict[str, object]]:
    found: list[dict[str, object]] = json.loads(_pin_store().path.read_text())["pins"]
    return found


def test_a_hosts_servers_pins_kept_in_the_pin_store_are_written_into_our_file(
    tmp_path: Path,
) -> None:
    """Codex's file cannot hold pins: the pin store keeps them by its path. Imported into an
    agentty ``mcp.json``, each server is pinned there as it was, and the plan says so."""
    codex = tmp_path / ".codex" / "config.toml"
    codex.parent.mkdir()
    codex.write_text(CODEX)
    place = PinPlace(str(codex))
    _pin_store().apply([PinTool(place, "alpha", "add", True), PinServer(place, "beta", 1)])
    source, notes = read_source(ConfigStore(codex))
    assert notes == ()
    target = ConfigStore(tmp_path / "mcp.json")
    plan = plan_import(source, target.load())
    described = plan.describe()
    assert "+ alpha  alpha\n    resolves  nothing executable on its PATH\n" in described
    assert "\n    pinned    add (carried over)\n+ beta" in described
    assert described.endswith("\n    pinned    every tool (priority 1) (carried over)")

    result = apply_import(plan, target)
    assert result.added == ("alpha", "beta") and result.failed == ()
    written = json.loads(target.path.read_text())["mcpServers"]
    assert written["alpha"]["tools"] == {"pin": ["add"]} and "priority" not in written["alpha"]
    assert written["beta"]["priority"] == 1
    assert codex.read_text() == CODEX  # the source is only read
    # Read back, the servers are pinned as their source was: importing again adds nothing.
    again = plan_import(source, target.load())
    assert again.add == () and sorted(again.identical) == ["alpha", "beta"]


def test_our_files_pins_go_to_the_pin_store_of_a_hosts_target_by_its_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An agentty file's ``tools.pin`` and ``priority`` imported into a Codex file named by a
    relative path: the pins land in the pin store under the file's absolute path, the Codex
    file gets no pin key, and the file opened from another folder is pinned the same."""
    source = tmp_path / "ours" / "mcp.json"
    source.parent.mkdir()
    source.write_text(json.dumps(OURS))
    (tmp_path / "team").mkdir()
    monkeypatch.chdir(tmp_path / "team")
    target = ConfigStore(Path("config.toml"))  # relative, as --config config.toml names it
    config, _ = read_source(ConfigStore(source))
    plan = plan_import(config, target.load(), carried=target.dialect.timeout_fields)
    result = apply_import(plan, target)
    assert result.added == ("alpha", "beta")
    written = (tmp_path / "team" / "config.toml").read_text()
    assert "pin" not in written and "priority" not in written
    absolute = str(tmp_path / "team" / "config.toml")
    assert _records() == [{"file": absolute, "server": "alpha", "tools": ["find"], "priority": 2}]
    monkeypatch.chdir(tmp_path)
    alpha = Workspace.of_file(Path("team/config.toml")).load().server("alpha")
    assert alpha is not None and alpha.tools.pin == ("find",) and alpha.priority == 2
    assert alpha.pins_kept_in == str(_pin_store().path)


def test_a_server_pinned_otherwise_is_a_difference_and_a_bad_pin_store_a_note(
    tmp_path: Path,
) -> None:
    """The same server with other pins is not identical (the plan says what differs, and
    leaves it as it is); a pin store that does not read carries no pins and says why."""
    codex = tmp_path / "config.toml"
    codex.write_text(CODEX)
    place = PinPlace(str(codex))
    _pin_store().apply(PinServer(place, "alpha", 3))
    target = ConfigStore(tmp_path / "mcp.json")
    target.path.write_text(json.dumps({"mcpServers": {"alpha": {"command": "alpha"}}}))
    source, _ = read_source(ConfigStore(codex))
    plan = plan_import(source, target.load())
    (different,) = plan.different
    assert different.name == "alpha" and different.diff == ("priority: 0 → 3",)

    _pin_store().path.write_text("{not json")
    source, notes = read_source(ConfigStore(codex))
    assert [server.priority for server in source.servers] == [0, 0]
    (note,) = notes
    assert note.startswith("no pins are carried over:") and "not JSON" in note
