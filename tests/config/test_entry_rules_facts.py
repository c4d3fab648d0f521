"""config/entry_rules.py and config/workspace.py:trust_prompt: what an untrusted entry shows
before the user trusts it (in the picker's row and ``T`` dialog, ``agentty-tui list``, the
import plan) is every field that decides what runs or what is sent, secrets masked: the
executable its own PATH resolves to (flagged inside the project), env names (values masked but
for PATH, LD_*, NODE_OPTIONS, PYTHON*), cwd, envFile; the URL and the headers' references."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentty_tui.config.entry_rules import (
    INSIDE_PROJECT,
    entry_facts,
    fact_lines,
    facts_line,
    resolve_executable,
)
from agentty_tui.config.workspace import open_workspace, trust_prompt
from agentty_tui.model import EntryFact, HttpSpec, ServerConfig, StdioSpec

SECRET = "s3cret-value-123"


def _executable(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


def _by_label(facts: tuple[EntryFact, ...], label: str) -> list[EntryFact]:
    return [fact for fact in facts if fact.label == label]


def test_the_prompt_says_how_to_trust_and_a_url_among_the_arguments_is_masked() -> None:
    spec = StdioSpec(command="npx", args=("mcp-remote", "https://h.example/mcp?token=s3cret-v"))
    line = trust_prompt(ServerConfig(name="remote", spec=spec))
    assert line == "not trusted — T to trust, or agentty-tui trust remote"
    (runs,) = _by_label(entry_facts(spec, environ={"PATH": ""}), "runs")
    assert runs.value.startswith("npx mcp-remote 'https://h.example/mcp?token=")
    assert "s3cret-v" not in runs.value


def test_the_entrys_own_path_makes_npx_the_projects_and_that_is_flagged(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    own = _executable(project / ".bin" / "npx")
    _executable(tmp_path / "usr" / "bin" / "npx")  # what npx is without the entry's PATH
    spec = StdioSpec(command="npx", args=("-y", "tool"), env={"PATH": f".bin:{tmp_path}/usr/bin"})
    facts = entry_facts(spec, start=project, project=project, environ={"PATH": "/nowhere"})
    (resolves,) = _by_label(facts, "resolves")
    assert resolves.value == str(own)
    assert resolves.alert is not None and INSIDE_PROJECT in resolves.alert
    assert "relative" in resolves.alert
    (path,) = _by_label(facts, "env")
    assert path.value == f"PATH=.bin:{tmp_path}/usr/bin" and path.alert == "decides what runs"
    # Without the entry's PATH, ours decides: the same name is another file, not flagged.
    plain = StdioSpec(command="npx", args=("-y", "tool"))
    found, relative = resolve_executable(
        plain, start=project, environ={"PATH": f"{tmp_path}/usr/bin"}
    )
    assert found == tmp_path / "usr" / "bin" / "npx" and not relative
    (outside,) = _by_label(
        entry_facts(plain, start=project, project=project, environ={"PATH": f"{tmp_path}/usr/bin"}),
        "resolves",
    )
    assert outside.alert is None


def test_a_relative_command_resolves_against_the_entrys_cwd(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    tool = _executable(project / "sub" / "run.sh")
    spec = StdioSpec(command="./run.sh", cwd="sub")
    facts = entry_facts(spec, start=project, project=project, environ={})
    (resolves,) = _by_label(facts, "resolves")
    assert resolves.value == str(tool) and INSIDE_PROJECT in (resolves.alert or "")
    assert _by_label(facts, "cwd") == [EntryFact(label="cwd", value="sub")]
    missing = entry_facts(StdioSpec(command="no-such-tool-x"), start=project, environ={"PATH": ""})
    assert _by_label(missing, "resolves")[0].value == "nothing executable on its PATH"


def test_env_values_are_masked_but_those_that_decide_what_runs(tmp_path: Path) -> None:
    env = {
        "API_KEY": SECRET,
        "GITHUB_TOKEN": "${GITHUB_TOKEN}",
        "LD_PRELOAD": "./evil.so",
        "NODE_OPTIONS": "--require ./hook.js",
        "PYTHONPATH": "./lib",
    }
    spec = StdioSpec(command="node", env=env)
    facts = entry_facts(spec, env_file="/p/.env", start=tmp_path, environ={"PATH": ""})
    shown = [fact.value for fact in _by_label(facts, "env")]
    # The ones that decide what runs first, whole and flagged; the others masked.
    assert shown[:3] == [
        "LD_PRELOAD=./evil.so",
        "NODE_OPTIONS=--require ./hook.js",
        "PYTHONPATH=./lib",
    ]
    assert all(f.alert == "decides what runs" for f in _by_label(facts, "env")[:3])
    assert "GITHUB_TOKEN=${GITHUB_TOKEN}" in shown  # a reference names, it holds nothing
    assert "API_KEY=••••••••" in shown
    assert SECRET not in json.dumps([fact.model_dump() for fact in facts])
    assert _by_label(facts, "envFile") == [EntryFact(label="envFile", value="/p/.env")]


def test_a_url_servers_url_is_masked_and_headers_show_only_their_references() -> None:
    spec = HttpSpec(
        url=f"https://user:{SECRET}@api.example.com/mcp?api_key={SECRET}",
        headers={
            "Authorization": "Bearer ${GITHUB_TOKEN}",
            "X-Api-Key": SECRET,
            "X-Other": "${HOST_TOKEN:-" + SECRET + "}",
        },
    )
    facts = entry_facts(spec)
    assert [fact.label for fact in facts] == ["url", "header", "header", "header"]
    assert facts[0].value == "https://••••:••••••••@api.example.com/mcp?api_key=••••••••"
    assert facts[1].value == "Authorization: Bearer ${GITHUB_TOKEN}"
    assert facts[2].value == "X-Api-Key: ••••••••"
    assert facts[3].value == "X-Other: ${HOST_TOKEN:-••••••••}"
    assert SECRET not in facts_line(facts)


def test_every_rendering_is_safe_for_a_terminal() -> None:
    spec = StdioSpec(
        command="tool", args=("a\x1b]52;c;x\x07", "b\nforged"), env={"PATH": "\x1b[2J"}
    )
    facts = entry_facts(spec, environ={"PATH": ""})
    for text in [facts_line(facts), *fact_lines(facts, indent="  ")]:
        assert "\x1b" not in text and "\n" not in text and "\x07" not in text
    assert "␛]52" in facts_line(facts)


def test_a_workspace_gives_each_waiting_project_entry_its_facts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, root = tmp_path / "home", tmp_path / "repo"
    home.mkdir()
    (root / ".git").mkdir(parents=True)
    own = _executable(root / ".bin" / "npx")
    entries = {
        "repo-tool": {"command": "npx", "args": ["-y", "pkg"], "env": {"PATH": ".bin:/usr/bin"}},
        "remote": {
            "type": "http",
            "url": "https://api.example.com/mcp",
            "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"},
        },
    }
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": entries}))
    env = {"XDG_CONFIG_HOME": str(home / ".config"), "XDG_STATE_HOME": str(home / ".state")}
    monkeypatch.chdir(root)  # the servers start where the picker runs: the project
    config = open_workspace(root, home=home, env=env).load()
    tool, remote = config.server("repo-tool"), config.server("remote")
    assert tool is not None and remote is not None
    (resolves,) = _by_label(tool.trust_facts, "resolves")
    assert resolves.value == str(own) and INSIDE_PROJECT in (resolves.alert or "")
    assert [fact.value for fact in remote.trust_facts] == [
        "https://api.example.com/mcp",
        "Authorization: Bearer ${GITHUB_TOKEN}",
    ]
