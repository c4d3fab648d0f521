"""The command line on config files that need a word: one warning line each.

A config file others can change (mode 0666) holds its stdio servers back unless ``--trust`` is
given; a key given twice is named with its line. ``agentty-tui`` run in this process (``run``),
real files and a real stdio server.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.bridge.test_trust import untrusted_message, write_config
from tests.cli.test_commands import run
from tests.helpers import stdio_entry
from tests.servers import plain_argv


def test_list_warns_and_holds_the_server_back(tmp_path: Path) -> None:
    path = write_config(tmp_path, 0o666)
    result = run("list", "--json", "--config", str(path))
    assert result.returncode == 0
    assert result.stderr == f"agentty-tui: warning: {untrusted_message(path)}\n"
    [server] = json.loads(result.stdout)["servers"]
    assert server["status"] == "untrusted" and server["tools"] == []


def test_list_with_trust_runs_it_without_a_warning(tmp_path: Path) -> None:
    path = write_config(tmp_path, 0o666)
    result = run("list", "--json", "--trust", "--config", str(path))
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    [server] = json.loads(result.stdout)["servers"]
    assert server["status"] == "connected"


def test_list_on_a_file_only_its_owner_writes_says_nothing(tmp_path: Path) -> None:
    path = write_config(tmp_path, 0o644)
    result = run("list", "--json", "--config", str(path))
    assert result.returncode == 0 and result.stderr == ""
    assert json.loads(result.stdout)["servers"][0]["status"] == "connected"


def test_call_is_refused_without_trust_and_runs_with_it(tmp_path: Path) -> None:
    path = write_config(tmp_path, 0o666)
    refused = run("call", "plain", "echo", '{"text": "hi"}', "--config", str(path))
    assert refused.returncode == 1
    assert refused.stderr == (
        f"agentty-tui: warning: {untrusted_message(path)}\n"
        "agentty-tui: server 'plain' was not started: the config file is not trusted "
        "(--trust runs it)\n"
    )
    assert refused.stdout == ""
    done = run("call", "plain", "echo", '{"text": "hi"}', "--trust", "--config", str(path))
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert "hi" in done.stdout


def test_disable_warns_and_does_not_start_the_server_to_check(tmp_path: Path) -> None:
    path = write_config(tmp_path, 0o666)
    result = run("disable", "plain", "echo", "--config", str(path))
    assert result.returncode == 0
    assert result.stderr == f"agentty-tui: warning: {untrusted_message(path)}\n"
    tools = json.loads(path.read_text())["mcpServers"]["plain"]["tools"]
    assert tools == {"exclude": ["echo"]}
    trusted = run("disable", "plain", "add", "--trust", "--config", str(path))
    assert trusted.returncode == 0 and trusted.stderr == ""
    tools = json.loads(path.read_text())["mcpServers"]["plain"]["tools"]
    assert tools == {"exclude": ["echo", "add"]}


def test_duplicate_keys_are_one_warning_line_each(tmp_path: Path) -> None:
    plain = json.dumps(stdio_entry(plain_argv()))
    path = tmp_path / "mcp.json"
    path.write_text(
        '{\n  "mcpServers": {\n    "plain": {"command": "x"},\n'
        f'    "plain": {plain}\n'
        '  },\n  "toolBudget": 5,\n  "toolBudget": 6\n}\n'
    )
    result = run("list", "--json", "--config", str(path))
    assert result.returncode == 0
    assert result.stderr == (
        f"agentty-tui: warning: {path}:4: duplicate key 'plain' (the last one is used)\n"
        f"agentty-tui: warning: {path}:7: duplicate key 'toolBudget' (the last one is used)\n"
    )
    data = json.loads(result.stdout)
    assert data["servers"][0]["status"] == "connected"
    assert data["budget"]["limit"] == 6
