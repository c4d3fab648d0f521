"""``catalog --host H``: the catalog as that host's model gets it, in its own model family,
cut at its own tool ceiling (as the gateway cuts it for that host), with its limits said."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.helpers import run_cli
from tests.servers import light_argv


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home where VS Code holds a server of 130 tools and Codex one of 100."""
    home = tmp_path / "home"
    vscode = home / ".config" / "Code" / "User" / "mcp.json"
    vscode.parent.mkdir(parents=True)
    argv = light_argv(130, name="wide")
    entry = {"type": "stdio", "command": argv[0], "args": argv[1:]}
    vscode.write_text(json.dumps({"servers": {"wide": entry}}))
    codex = home / ".codex" / "config.toml"
    codex.parent.mkdir()
    argv = light_argv(100, name="many")
    codex.write_text(
        f"[mcp_servers.many]\ncommand = {json.dumps(argv[0])}\nargs = {json.dumps(argv[1:])}\n"
    )
    (tmp_path / "project").mkdir()
    return home


def _catalog(home: Path, *args: str) -> str:
    env = {
        "HOME": str(home),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
    }
    ran = run_cli("catalog", *args, env=env, whole_env=True, cwd=home.parent / "project")
    assert ran.returncode == 0, ran.stderr
    return ran.stdout


def test_vscode_gets_at_most_its_128_tools_counted_in_openai_tokens(home: Path) -> None:
    listed = json.loads(_catalog(home, "--host", "vscode", "--json", "--budget", "1000"))
    host = listed["host"]
    assert (host["name"], host["family"], host["tool_ceiling"]) == ("vscode", "openai", 128)
    assert len(listed["tools"]) == 128 and listed["budget"] == 128
    assert listed["trimmed"] == 130 + _natives(listed) - 128
    text = _catalog(home, "--host", "vscode", "--budget", "1000")
    assert "VS Code: at most 128 tools" in text
    assert "tokens: OpenAI's" in text


def test_codex_is_said_to_defer_its_hundred_mcp_tools(home: Path) -> None:
    listed = json.loads(_catalog(home, "--host", "codex", "--json", "--budget", "1000"))
    host = listed["host"]
    assert (host["family"], host["defers_from_tools"], host["mcp_tools"]) == ("openai", 100, 100)
    assert host["defers_now"] is True
    assert len(listed["tools"]) == 100 + _natives(listed)  # deferred, not cut: the host decides
    text = _catalog(home, "--host", "codex", "--budget", "1000")
    assert "defers MCP tools from the 100th; it defers them now (100 MCP tools" in text


def test_without_a_host_there_is_no_host_and_no_ceiling(home: Path) -> None:
    listed = json.loads(_catalog(home, "--json", "--budget", "1000"))
    assert "host" not in listed
    assert len(listed["tools"]) == 230 + _natives(listed)


def _natives(listed: dict[str, object]) -> int:
    tools = listed["tools"]
    assert isinstance(tools, list)
    return sum(1 for tool in tools if tool["server"] is None)


def test_a_hosts_ceiling_and_the_token_budget_trim_together_and_both_are_named(
    home: Path,
) -> None:
    """VS Code's lens under a token budget: by tokens alone, by its ceiling alone, and by both
    (the tighter cut ships, the warning names each budget with its excess)."""
    everything = json.loads(_catalog(home, "--host", "vscode", "--json", "--budget", "1000"))
    natives = _natives(everything)
    # What the natives and the first ten MCP tools cost in Claude's family: in VS Code's own
    # (OpenAI's), where the cut is counted, the same tools cost more and fewer of them fit.
    claude = [tool["tokens"]["claude"] for tool in everything["tools"]]
    room = sum(claude[: natives + 10])
    openai = [tool["tokens"]["openai"] for tool in everything["tools"]]
    fit = max(n for n in range(len(openai) + 1) if sum(openai[:n]) <= room)
    assert natives < fit < natives + 10
    by_tokens = json.loads(
        _catalog(
            home, "--host", "vscode", "--json", "--budget", "1000", "--token-budget", "9999999"
        )
    )
    assert by_tokens["tools"] == everything["tools"]  # a token budget that fits: the ceiling
    over = everything["total"] - 128  # the natives and the 130 tools, past the ceiling
    assert by_tokens["warning"].startswith(f"{over} tools over the budget of 128 — ")
    both = json.loads(
        _catalog(
            home, "--host", "vscode", "--json", "--budget", "1000", "--token-budget", str(room)
        )
    )
    assert len(both["tools"]) == fit  # the token budget is the tighter cut, in OpenAI's tokens
    assert both["warning"].startswith(f"{over} tools over the budget of 128 and ")
    assert f"tokens over the token budget of {room:,} — " in both["warning"]
