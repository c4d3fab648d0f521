"""A key given twice in a config file: read as every JSON reader does (the last one wins), and
said, with the file and the line, for each host's JSON file; Codex's TOML refuses it."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentty_tui.config import ConfigStore
from agentty_tui.errors import ConfigError
from agentty_tui.model import StdioSpec
from tests.helpers import write_file

# Line 7 repeats "time"; line 8 repeats "args" inside it.
SERVERS = """\
    "other": {"command": "other"},
    "time": {"command": "first"},
    "x": {"command": "x"},
    "time": {
      "command": "second",
      "args": ["a"],
      "args": ["b"]
    }"""

FILES = {
    "claude": ("mcp.json", '{\n  "toolBudget": 9,\n  "mcpServers": {\n' + SERVERS + "\n  }\n}\n"),
    "gemini": (
        ".gemini/settings.json",
        '{\n  // Gemini\n  "mcpServers": {\n' + SERVERS + "\n  }\n}\n",
    ),
    "vscode": (".vscode/mcp.json", '{\n  // VS Code\n  "servers": {\n' + SERVERS + "\n  }\n}\n"),
}


@pytest.mark.parametrize("dialect", list(FILES))
def test_each_json_dialect_warns_with_file_and_line(tmp_path: Path, dialect: str) -> None:
    name, text = FILES[dialect]
    path = write_file(tmp_path / name, text)
    config = ConfigStore(path).load()
    assert config.warnings == (
        f"{path}:7: duplicate key 'time' (the last one is used)",
        f"{path}:10: duplicate key 'args' (the last one is used)",
    )
    time = config.server("time")
    assert time is not None and isinstance(time.spec, StdioSpec)
    assert (time.spec.command, time.spec.args) == ("second", ("b",))


@pytest.mark.parametrize("dialect", list(FILES))
def test_a_file_without_repeated_keys_has_no_warning(tmp_path: Path, dialect: str) -> None:
    name, text = FILES[dialect]
    text = text.replace('"x": {"command": "x"},\n    "time"', '"t2"')
    path = write_file(tmp_path / name, text.replace('      "args": ["a"],\n', ""))
    assert ConfigStore(path).load().warnings == ()


def test_many_repeated_keys_are_summed_up_after_ten(tmp_path: Path) -> None:
    body = ",\n".join(f'"k": {i}' for i in range(25))
    path = write_file(tmp_path / "mcp.json", '{"mcpServers": {},\n' + body + "\n}\n")
    warnings = ConfigStore(path).load().warnings
    assert len(warnings) == 11
    assert warnings[0] == f"{path}:3: duplicate key 'k' (the last one is used)"
    assert warnings[9] == f"{path}:12: duplicate key 'k' (the last one is used)"
    assert warnings[10] == f"{path}: and 14 more duplicate keys"


def test_codex_refuses_a_repeated_key_naming_the_line(tmp_path: Path) -> None:
    text = '[mcp_servers.time]\ncommand = "a"\ncommand = "b"\n'
    path = write_file(tmp_path / ".codex/config.toml", text)
    with pytest.raises(ConfigError) as caught:
        ConfigStore(path).load()
    assert str(caught.value) == f'{path}:3: invalid TOML: Key "command" already exists.'
    tables = '[mcp_servers.t]\ncommand = "a"\n\n[mcp_servers.t]\ncommand = "b"\n'
    write_file(path, tables)
    with pytest.raises(ConfigError) as caught:
        ConfigStore(path).load()
    assert str(caught.value).startswith(f"{path}:5:")
