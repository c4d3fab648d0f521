"""Pins and priorities in the config (``tools.pin``, ``priority``): written through the edit
engine in agentty's own spelling, read back, dropped without litter; every host's spelling
refuses them without touching its file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentty_tui.config import ConfigStore, SetServerPriority, SetToolPinned
from agentty_tui.errors import ConfigError

OURS = """{
  "toolBudget": 40,
  "mcpServers": {
    "notes": {"command": "notes-server", "tools": {"exclude": ["drop"]}, "mine": 1},
    "other": {"command": "other-server"}
  }
}
"""


def test_pins_and_priority_round_trip_in_agenttys_spelling(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(OURS)
    store = ConfigStore(path)
    config = store.apply(
        [
            SetToolPinned(server="notes", tool="add", pinned=True),
            SetToolPinned(server="notes", tool="find", pinned=True),
            SetServerPriority(server="other", priority=2),
        ]
    )
    notes, other = config.server("notes"), config.server("other")
    assert notes is not None and other is not None
    assert notes.tools.pin == ("add", "find") and notes.tools.exclude == ("drop",)
    assert (notes.priority, other.priority) == (0, 2)
    written = json.loads(path.read_text())["mcpServers"]
    assert written["notes"] == {
        "command": "notes-server",
        "tools": {"exclude": ["drop"], "pin": ["add", "find"]},
        "mine": 1,
    }
    assert written["other"] == {"command": "other-server", "priority": 2}
    assert ConfigStore(path).load() == config  # read back the same by a fresh store
    store.apply(
        [
            SetToolPinned(server="notes", tool="add", pinned=False),
            SetToolPinned(server="notes", tool="find", pinned=False),
            SetServerPriority(server="other", priority=0),
        ]
    )
    assert path.read_text() == OURS  # no litter: the file is as it was


def test_a_bad_pin_list_or_priority_names_the_file_server_and_field(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{"mcpServers": {"a": {"command": "x", "priority": true}}}')
    bad = ConfigStore(path).load().server("a")
    assert bad is not None and "priority" in (bad.problem or "")
    path.write_text('{"mcpServers": {"a": {"command": "x", "tools": {"pin": "add"}}}}')
    bad = ConfigStore(path).load().server("a")
    assert bad is not None and "tools.pin" in (bad.problem or "")


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("config.toml", "[mcp_servers.notes]\ncommand = 'x'\n"),
        (".gemini/settings.json", '{"mcpServers": {"notes": {"command": "x"}}}\n'),
        (".vscode/mcp.json", '{"servers": {"notes": {"type": "stdio", "command": "x"}}}\n'),
    ],
)
def test_the_hosts_own_spellings_cannot_carry_pins(tmp_path: Path, name: str, text: str) -> None:
    """Codex's, Gemini CLI's and VS Code's files have no such fields: the edit is refused,
    naming the format, and the file is left as it was."""
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    store = ConfigStore(path)
    with pytest.raises(ConfigError, match="cannot pin tools"):
        store.apply(SetToolPinned(server="notes", tool="add", pinned=True))
    with pytest.raises(ConfigError, match="has no server priority"):
        store.apply(SetServerPriority(server="notes", priority=1))
    assert path.read_text() == text
