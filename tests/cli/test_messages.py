"""The command line tells the truth: missing files, a server's own on/off switch, unchecked
tool names, and a suggestion for a mistyped name. End to end, the whole output asserted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentty_tui.config import ConfigStore
from tests.cli.test_commands import run
from tests.conftest import WriteConfig
from tests.helpers import each_dialect_file, stdio_entry, write_file
from tests.servers import plain_argv


@pytest.mark.parametrize(
    "args",
    [
        ["list"],
        ["list", "--json"],
        ["catalog"],
        ["remove", "a"],
        ["disable", "a", "t"],
        ["enable", "a"],
        ["call", "a", "t"],
        ["login", "a"],
        ["logout", "a"],
    ],
)
def test_a_missing_config_is_named_as_missing(tmp_path: Path, args: list[str]) -> None:
    path = tmp_path / "nope.json"
    result = run(*args, "--config", str(path))
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"agentty-tui: {path}: the config file does not exist (agentty-tui add creates it)\n"
    )
    assert not path.exists()


def test_import_of_a_missing_file_names_it(write_config: WriteConfig, tmp_path: Path) -> None:
    config = write_config({})
    before = config.read_bytes()
    source = tmp_path / "nope.toml"
    result = run("import", str(source), "--yes", "--config", str(config))
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == f"agentty-tui: {source}: the file to import from does not exist\n"
    assert config.read_bytes() == before


def test_add_on_a_new_file_says_it_created_it(tmp_path: Path) -> None:
    path = tmp_path / "fresh" / "mcp.json"
    argv = plain_argv()
    result = run("add", "--config", str(path), "plain", "--", *argv)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == f"added 'plain' to {path} (a new file)\n"
    again = run("add", "--config", str(path), "other", "--", *argv)
    assert (again.returncode, again.stdout) == (0, f"added 'other' to {path}\n")


DISABLED_SPELLING = {
    "claude": '"disabled": true',
    "gemini": '"excluded": ["plain"]',
    "vscode": '"disabled": true',
    "codex": "enabled = false",
}


@each_dialect_file
def test_enable_and_disable_a_whole_server_in_the_files_own_dialect(
    tmp_path: Path, dialect: str, name: str, text: str, toggled: str
) -> None:
    path = write_file(tmp_path / name, text)
    result = run("disable", "plain", "--config", str(path))
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == f"disabled 'plain' in {path}\n"
    assert DISABLED_SPELLING[dialect] in path.read_text()
    server = ConfigStore(path).load().server("plain")
    assert server is not None and server.disabled
    again = run("disable", "plain", "--config", str(path))
    assert again.stdout == f"'plain' is already disabled in {path}\n"
    result = run("enable", "plain", "--config", str(path))
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == f"enabled 'plain' in {path}\n"
    server = ConfigStore(path).load().server("plain")
    assert server is not None and not server.disabled


def test_disable_of_an_unknown_tool_on_a_disabled_server_warns(write_config: WriteConfig) -> None:
    path = write_config({"gitc": stdio_entry(plain_argv(), disabled=True)})
    result = run("disable", "gitc", "no_such_tool", "--config", str(path))
    assert result.returncode == 0
    assert result.stdout == "disabled gitc/no_such_tool\n"
    assert result.stderr == (
        "agentty-tui: warning: could not check the tool name, 'gitc' is disabled in the config\n"
    )
    assert json.loads(path.read_text())["mcpServers"]["gitc"]["tools"] == {
        "exclude": ["no_such_tool"]
    }


def test_a_mistyped_command_gets_a_suggestion() -> None:
    result = run("lsit", "--json")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "agentty-tui: unknown command 'lsit'; did you mean 'list'? "
        "('agentty-tui --help' lists them)\n"
    )
    far = run("zzz")
    assert far.stderr == "agentty-tui: unknown command 'zzz' ('agentty-tui --help' lists them)\n"


def test_mistyped_server_and_tool_names_get_a_suggestion(write_config: WriteConfig) -> None:
    path = write_config({"plain": stdio_entry(plain_argv())})
    before = path.read_bytes()
    server = run("disable", "plian", "echo", "--config", str(path))
    assert (server.returncode, server.stdout) == (1, "")
    assert server.stderr == (
        "agentty-tui: no server named 'plian' in the config; did you mean 'plain'?\n"
    )
    tool = run("disable", "plain", "ecko", "--config", str(path))
    assert (tool.returncode, tool.stdout) == (1, "")
    assert tool.stderr == (
        "agentty-tui: no tool named 'ecko' on server 'plain'; did you mean 'echo'?\n"
    )
    call = run("call", "plain", "ech", "--config", str(path))
    assert (
        call.stderr == "agentty-tui: no tool named 'ech' on server 'plain'; did you mean 'echo'?\n"
    )
    assert path.read_bytes() == before
