"""One golden file per dialect, with comments (where the format has them) and unknown fields.

Each input is loaded, then edited in its own dialect: a tool toggled off, a stdio and an HTTP
server added, a server removed, another disabled. The written file must equal
``expected_after.*`` byte for byte: everything the edits do not own stays as it was.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agentty_tui.config import (
    AddServer,
    ConfigEdit,
    ConfigStore,
    RemoveServer,
    SetServerDisabled,
    SetToolEnabled,
    dialect_name,
)
from agentty_tui.model import HttpSpec, StdioSpec, ToolFilter

GOLDEN = Path(__file__).parent / "golden"

# (dialect, file name the host uses, extension of the golden files)
CASES = [
    ("claude", "claude_desktop_config.json", "json"),
    ("gemini", "settings.json", "json"),
    ("vscode", ".vscode/mcp.json", "json"),
    ("codex", "config.toml", "toml"),
]

EDITS: list[ConfigEdit] = [
    SetToolEnabled(server="time", tool="get_time", enabled=False),
    AddServer(
        name="notes",
        spec=StdioSpec(
            command="notes-server",
            args=("--db", "notes.sqlite"),
            env={"NOTES_TOKEN": "${NOTES_TOKEN}"},
        ),
    ),
    AddServer(
        name="docs",
        spec=HttpSpec(
            url="https://docs.example.invalid/mcp",
            headers={"Authorization": "Bearer ${DOCS_TOKEN}"},
        ),
    ),
    RemoveServer(name="old"),
    SetServerDisabled(server="search", disabled=True),
]


def _copy_input(tmp_path: Path, dialect: str, file_name: str, ext: str) -> Path:
    target = tmp_path / file_name
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(GOLDEN / dialect / f"input.{ext}", target)
    return target


@pytest.mark.parametrize(("dialect", "file_name", "ext"), CASES)
def test_golden_edits_keep_the_rest_byte_for_byte(
    tmp_path: Path, dialect: str, file_name: str, ext: str
) -> None:
    target = _copy_input(tmp_path, dialect, file_name, ext)
    store = ConfigStore(target)
    assert dialect_name(store.dialect) == dialect
    before = store.load()
    assert [server.name for server in before.servers] == ["time", "old", "search"]
    for edit in EDITS:
        store.apply(edit)
    expected = (GOLDEN / dialect / f"expected_after.{ext}").read_bytes()
    assert target.read_bytes() == expected
    after = store.load()
    assert [server.name for server in after.servers] == ["time", "search", "notes", "docs"]
    time = after.server("time")
    assert time is not None and not time.tools.allows("get_time")
    search = after.server("search")
    assert search is not None
    if dialect == "vscode":
        # Its header needs ${input:search-key}: it loads with a problem, but is still edited.
        assert search.problem is not None and "${input:search-key}" in search.problem
    else:
        assert search.disabled
    notes, docs = after.server("notes"), after.server("docs")
    assert notes is not None and notes.spec == EDITS[1].spec  # type: ignore[union-attr]
    assert docs is not None and docs.spec == EDITS[2].spec  # type: ignore[union-attr]
    assert not notes.disabled and not docs.disabled


@pytest.mark.parametrize(("dialect", "file_name", "ext"), CASES)
def test_golden_toggle_back_on_restores_the_tool_lists(
    tmp_path: Path, dialect: str, file_name: str, ext: str
) -> None:
    target = _copy_input(tmp_path, dialect, file_name, ext)
    store = ConfigStore(target)
    original = store.load().server("time")
    assert original is not None
    store.apply(SetToolEnabled(server="time", tool="get_time", enabled=False))
    store.apply(SetToolEnabled(server="time", tool="get_time", enabled=True))
    time = store.load().server("time")
    assert time is not None and time.tools == original.tools
    assert time.tools != ToolFilter(exclude=("get_time",))
