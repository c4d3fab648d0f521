"""``agentty-tui pin`` / ``unpin`` on a workspace of a fake home: a server of a host's file is
pinned in agentty's pin store (its file untouched), one of agentty's own file in that file;
``list --json`` says which tools are pinned and where the pins are kept; ``remove`` drops them.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from agentty_tui.config.pins import PINS_FILE_NAME
from tests.fake_home import FakeHome, small_fake_home
from tests.helpers import run_cli

SOURCES = ("agentty-user", "codex-user", "gemini-user", "vscode-user")


def run(fake: FakeHome, *args: str) -> subprocess.CompletedProcess[str]:
    """``agentty-tui ARGS`` in the fake project, with the fake home, in this process."""
    return run_cli(*args, env=fake.process_env(), whole_env=True, cwd=fake.cwd)


def _name(fake: FakeHome, source: str) -> str:
    return fake.servers[source][0]


def _listed(fake: FakeHome) -> dict[str, dict[str, Any]]:
    result = run(fake, "list", "--json")
    assert result.returncode == 0, result.stderr
    return {server["name"]: server for server in json.loads(result.stdout)["servers"]}


def test_pin_and_unpin_a_hosts_server_in_the_pin_store(tmp_path: Path) -> None:
    fake = small_fake_home(tmp_path, SOURCES)
    store = Path(fake.env["XDG_CONFIG_HOME"]) / "agentty" / PINS_FILE_NAME
    codex, gemini, ours = (_name(fake, s) for s in ("codex-user", "gemini-user", "agentty-user"))
    before = fake.snapshot()
    result = run(fake, "pin", codex, "add")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"pinned {codex}/add in {store}\n"
    result = run(fake, "pin", gemini)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"pinned {gemini!r} (every tool) in {store}\n"
    assert fake.snapshot() == before  # no host's file written

    result = run(fake, "pin", ours, "echo")  # agentty's own file holds its own pins
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"pinned {ours}/echo in {fake.files['agentty-user']}\n"

    servers = _listed(fake)
    assert servers[codex]["pins"] == {"priority": 0, "tools": ["add"], "kept_in": str(store)}
    assert servers[gemini]["pins"]["priority"] == 1
    assert servers[gemini]["pins"]["kept_in"] == str(store)
    assert all(tool["pinned"] for tool in servers[gemini]["tools"])
    assert servers[ours]["pins"]["kept_in"] == str(fake.files["agentty-user"])
    assert [t["name"] for t in servers[codex]["tools"] if t["pinned"]] == ["add"]
    assert "pins" not in servers[_name(fake, "vscode-user")]

    assert run(fake, "unpin", codex, "add").returncode == 0
    assert run(fake, "unpin", gemini).returncode == 0
    assert json.loads(store.read_text()) == {"pins": []}
    assert fake.snapshot() != before  # our own file holds its pin
    assert {k: v for k, v in fake.snapshot().items() if k != "agentty-user"} == {
        k: v for k, v in before.items() if k != "agentty-user"
    }


def test_remove_drops_the_pins_kept_for_the_server(tmp_path: Path) -> None:
    fake = small_fake_home(tmp_path, SOURCES)
    store = Path(fake.env["XDG_CONFIG_HOME"]) / "agentty" / PINS_FILE_NAME
    codex, vscode = _name(fake, "codex-user"), _name(fake, "vscode-user")
    assert run(fake, "pin", codex, "add").returncode == 0
    assert run(fake, "pin", vscode, "echo").returncode == 0
    result = run(fake, "remove", codex)
    assert result.returncode == 0, result.stderr
    assert [record["server"] for record in json.loads(store.read_text())["pins"]] == [vscode]


def test_pin_names_an_unknown_server(tmp_path: Path) -> None:
    fake = small_fake_home(tmp_path, SOURCES)
    result = run(fake, "pin", "nobody", "add")
    assert result.returncode != 0
    assert "nobody" in result.stderr


def test_import_carries_a_hosts_pins_into_our_file(tmp_path: Path) -> None:
    """``import ~/.codex/config.toml`` in a workspace: the Codex server's pins, kept in the pin
    store, come with it into our own file (its ``tools.pin`` and ``"priority"``); the plan
    says so, and the Codex file and its record are left as they are."""
    fake = small_fake_home(tmp_path, ("agentty-user", "codex-user"))
    store = Path(fake.env["XDG_CONFIG_HOME"]) / "agentty" / PINS_FILE_NAME
    codex = _name(fake, "codex-user")
    assert run(fake, "pin", codex, "add").returncode == 0
    assert run(fake, "pin", codex).returncode == 0
    records = store.read_text()
    before = fake.files["codex-user"].read_bytes()
    result = run(fake, "import", str(fake.files["codex-user"]), "--yes")
    assert result.returncode == 0, result.stderr
    assert "\n    pinned  every tool (priority 1); add (carried over)\n" in result.stdout
    written = json.loads(fake.files["agentty-user"].read_text())["mcpServers"][codex]
    assert written["tools"]["pin"] == ["add"] and written["priority"] == 1
    assert fake.files["codex-user"].read_bytes() == before
    assert store.read_text() == records
