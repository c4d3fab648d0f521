"""The command line's tables: one handler per COMMAND, the dialect names from the config
layer, one config load per ``list``, and the demo config in a folder of its own."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import pytest

from agentty_tui.cli.headless import COMMANDS
from agentty_tui.cli.listing import cmd_list
from agentty_tui.cli.parser import FORMAT_CHOICES, command_names
from agentty_tui.cli.picker import default_demo_dir, demo_config
from agentty_tui.config import ConfigStore, dialect_by_name
from agentty_tui.config.detect import FORMAT_NAMES
from tests.cli.test_commands import run
from tests.conftest import WriteConfig
from tests.helpers import stdio_entry
from tests.servers import plain_argv


def test_every_command_of_the_parser_has_its_handler() -> None:
    assert set(command_names()) == {"demo", "serve", *COMMANDS}
    for name, handler in COMMANDS.items():
        assert handler.__name__ == f"cmd_{name}"


def test_format_offers_exactly_the_config_layers_names() -> None:
    assert FORMAT_CHOICES == FORMAT_NAMES  # written out in cli: the parser needs no config
    result = run("--format", "nope", "list")
    assert result.returncode == 2
    assert f"(choose from {', '.join(repr(n) for n in FORMAT_NAMES)})" in result.stderr
    for name in FORMAT_NAMES:
        dialect_by_name(name)  # each is a dialect the config layer knows


@pytest.mark.anyio
async def test_list_loads_the_config_once(
    write_config: WriteConfig, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_config({"plain": stdio_entry(plain_argv())})
    loads: list[Path] = []
    load = ConfigStore.load

    def counted(store: ConfigStore) -> object:
        loads.append(store.path)
        return load(store)

    monkeypatch.setattr(ConfigStore, "load", counted)
    args = argparse.Namespace(json=True)
    assert await cmd_list(path, args) == 0
    assert loads == [path]
    listed = json.loads(capsys.readouterr().out)
    assert [(s["name"], s["status"]) for s in listed["servers"]] == [("plain", "connected")]


def test_the_demo_config_has_a_folder_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    monkeypatch.setenv("PATH", os.environ.get("PATH", ""))  # the demo puts its scripts first
    elsewhere = tmp_path / "logs-elsewhere" / "agentty" / "logs"
    monkeypatch.setattr("agentty_tui.bridge.logs.default_log_dir", lambda: elsewhere)
    target = demo_config()
    assert target == state / "agentty" / "demo" / "mcp.json" == default_demo_dir() / "mcp.json"
    assert json.loads(target.read_text())["mcpServers"]
    assert not (tmp_path / "logs-elsewhere").exists()
