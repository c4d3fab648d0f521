"""The command line on a workspace: no ``--config``, a fake home and project of every host.

Each command runs in a folder inside the fake project, with the fake home's environment
(``FakeHome.process_env``): in this process (``run``), and once as a child process
(``run_process``), as a script would run it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fake_home import LAYERED, REPO_TOOL, TWIN, VAULT, FakeHome, build_fake_home
from tests.helpers import run_cli


def run(fake: FakeHome, *args: str) -> subprocess.CompletedProcess[str]:
    """``agentty-tui ARGS`` in the fake project, with the fake home, in this process."""
    return run_cli(*args, env=fake.process_env(), whole_env=True, cwd=fake.cwd)


def run_process(fake: FakeHome, *args: str) -> subprocess.CompletedProcess[str]:
    """``agentty-tui ARGS`` in the fake project, with the fake home, as a child process."""
    return subprocess.run(
        [sys.executable, "-m", "agentty_tui", *args],
        capture_output=True,
        text=True,
        timeout=90,
        cwd=fake.cwd,
        env=fake.process_env(),
        check=False,
    )


@pytest.fixture(scope="module")
def fake(tmp_path_factory: pytest.TempPathFactory) -> FakeHome:
    """One fake home for the read-only commands (``list`` runs every server once)."""
    return build_fake_home(tmp_path_factory.mktemp("workspace"))


@pytest.fixture
def own(tmp_path: Path) -> FakeHome:
    """A fake home of the test's own, for the commands that write."""
    return build_fake_home(tmp_path, url=None)


def listed(fake: FakeHome) -> dict[tuple[str, str], dict[str, Any]]:
    result = run(fake, "list", "--json")
    assert result.returncode == 0, result.stderr
    servers = json.loads(result.stdout)["servers"]
    return {(s["name"], s["source"]["path"] + "|" + s["source"]["scope"]): s for s in servers}


def test_sources_lists_every_file_considered(fake: FakeHome) -> None:
    result = run_process(fake, "sources", "--json")  # the folder and home a script has
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["root"] == str(fake.project)
    found = {(s["path"], s["scope"]): s for s in report["sources"]}
    for key, path in fake.files.items():
        scope = "local" if key == "claude-local" else ("project" if "project" in key else "user")
        if key == "project-mcp":
            scope = "project"
        source = found[(str(path), scope)]
        assert source["exists"] is True
        assert source["servers"] == len(fake.servers[key]), key
    text = run(fake, "sources")
    assert text.returncode == 0
    assert str(fake.files["codex-user"]) in text.stdout


def test_list_json_gives_each_server_its_source_shadowed_and_untrusted(fake: FakeHome) -> None:
    servers = listed(fake)
    by_name: dict[str, list[dict[str, Any]]] = {}
    for server in servers.values():
        by_name.setdefault(server["name"], []).append(server)
    layered = by_name[LAYERED]
    statuses = sorted(server["status"] for server in layered)
    assert statuses.count("shadowed") == 1  # by Claude Code's own precedence
    winner = next(s for s in layered if s["status"] != "shadowed")
    assert winner["source"]["scope"] == "local" and winner["source"]["host"] == "claude"
    assert all(s["shadowed_by"] == winner["source"] for s in layered if s is not winner)
    # Our own file's entry of the name is another host's server: its own, keyed by its host.
    (ours,) = by_name[f"{LAYERED}@agentty"]
    assert ours["entry"] == LAYERED and ours["source"]["host"] == "agentty"
    assert ours["status"] != "shadowed" and "entry" not in winner
    (twin,) = by_name[TWIN]
    assert [source["host"] for source in twin["sources"]] == ["claude", "codex"]
    assert list(twin["hosts"]) == ["claude", "codex"]
    codex = twin["hosts"]["codex"]
    assert codex["switch"] == f"disabled_tools in {twin['sources'][1]['path']}"
    assert not codex["off"] and codex["enabled_tools"] == [t["name"] for t in twin["tools"]]
    (repo,) = by_name[REPO_TOOL]
    assert repo["status"] == "untrusted"
    assert repo["source"]["scope"] == "project"


def test_list_groups_servers_by_file(fake: FakeHome) -> None:
    result = run(fake, "list")
    assert result.returncode == 0, result.stderr
    headers = [
        line
        for line in result.stdout.splitlines()
        if line.endswith(")") and "  (" in line and not line.startswith(" ")
    ]
    assert f"claude · local  ({fake.files['claude-local']})" in headers
    assert f"project .mcp.json  ({fake.files['project-mcp']})" in headers
    # One header a file and scope: the shadowed entries sit under their own file.
    assert len(headers) == len(set(headers))
    assert "not started until trusted" in result.stderr


def test_trust_starts_a_project_server_and_remembers_it(own: FakeHome) -> None:
    result = run(own, "call", REPO_TOOL, "echo", '{"text": "hi"}')
    assert result.returncode == 1
    assert f"agentty-tui trust {REPO_TOOL}" in result.stderr
    trusted = run(own, "trust", REPO_TOOL)
    assert trusted.returncode == 0, trusted.stderr
    assert trusted.stdout == f"trusted 1 server of {own.project}\n"
    called = run(own, "call", REPO_TOOL, "echo", '{"text": "hi"}')
    assert called.returncode == 0, called.stderr
    assert called.stdout == "hi\n"


def test_a_server_that_needs_a_prompt_says_so_once_and_not_that_it_waits_for_trust(
    tmp_path: Path,
) -> None:
    # VAULT, in the project's .vscode/mcp.json, needs ${input:vault-token}: trust cannot start
    # it, so it is not among the servers that wait for trust, and trusting it says why.
    fake = build_fake_home(
        tmp_path, sources=["vscode-project"], layered=False, twins=(), untrusted=False, url=None
    )
    listed = run(fake, "list", "--json")
    assert listed.returncode == 0, listed.stderr
    (vault,) = [s for s in json.loads(listed.stdout)["servers"] if s["name"] == VAULT]
    assert vault["status"] == "failed"
    assert "${input:vault-token}" in vault["error"]
    waiting = [line for line in listed.stderr.splitlines() if "until trusted" in line]
    assert all(VAULT not in line for line in waiting), listed.stderr
    trusted = run(fake, "trust", VAULT)
    assert trusted.returncode == 2
    assert "trusted 0" not in trusted.stdout + trusted.stderr
    assert trusted.stderr.count("${input:vault-token}") == 1
    assert "a value VS Code prompts for" in trusted.stderr
    assert "trusting it would not start it" in trusted.stderr


def test_add_goes_to_the_scope_asked_for(own: FakeHome) -> None:
    argv = [sys.executable, "-c", "pass"]
    before = own.snapshot()
    result = run(own, "add", "scoped", "--scope", "local", "--", *argv)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"added 'scoped' to {own.files['claude-local']}\n"
    after = own.snapshot()
    assert {key for key in before if before[key] != after[key]} == {"claude-user", "claude-local"}
    document = json.loads(own.files["claude-local"].read_text())
    assert "scoped" in document["projects"][str(own.project)]["mcpServers"]
    assert "scoped" not in document["mcpServers"]
    plain = run(own, "add", "mine", "--", *argv)
    assert plain.stdout == f"added 'mine' to {own.files['agentty-user']}\n"


def test_remove_of_a_name_in_several_files_lists_them(own: FakeHome) -> None:
    result = run(own, "remove", LAYERED)
    assert result.returncode == 2
    for key in ("claude-local", "project-mcp"):  # Claude Code's two entries of the name
        assert str(own.files[key]) in result.stderr
    assert str(own.files["agentty-user"]) not in result.stderr  # another host's server
    assert "--source" in result.stderr
    chosen = run(own, "remove", LAYERED, "--source", str(own.files["project-mcp"]))
    assert chosen.returncode == 0, chosen.stderr
    assert LAYERED not in json.loads(own.files["project-mcp"].read_text())["mcpServers"]
    assert LAYERED in json.loads(own.files["agentty-user"].read_text())["mcpServers"]
    ours = run(own, "remove", f"{LAYERED}@agentty")
    assert ours.returncode == 0, ours.stderr
    assert LAYERED not in json.loads(own.files["agentty-user"].read_text())["mcpServers"]
    assert (
        LAYERED
        in json.loads(own.files["claude-local"].read_text())["projects"][str(own.project)][
            "mcpServers"
        ]
    )


def test_remove_from_a_scope_or_file_without_the_name_is_refused_and_writes_nothing(
    own: FakeHome,
) -> None:
    local_only = own.servers["claude-local"][0]
    codex_only = own.servers["codex-user"][0]
    claude_json, codex = own.files["claude-local"], own.files["codex-user"]
    before = own.snapshot()
    refused = {
        ("--scope", "local", codex_only): (
            f"'{codex_only}' is not in the local scope; it is in: {codex} (codex · user)"
        ),
        ("--scope", "project", local_only): (
            f"'{local_only}' is not in the project scope; it is in: {claude_json} (claude · local)"
        ),
        ("--source", str(own.files["cursor-user"]), TWIN): (
            f"'{TWIN}' is not in {own.files['cursor-user']} (cursor · user); "
            f"it is in: {own.files['claude-user']} (claude · user), {codex} (codex · user)"
        ),
    }
    for (option, value, name), said in refused.items():
        result = run(own, "remove", name, option, value)
        assert (result.returncode, result.stdout) == (1, ""), result.stderr
        assert result.stderr == f"agentty-tui: {said}\n"
    # ~/.claude.json is two files: its user part does not hold the local entry.
    split = run(own, "remove", local_only, "--source", str(claude_json), "--scope", "user")
    assert split.returncode == 1
    assert f"is not in {claude_json} (claude · user); it is in: {claude_json} (claude · local)" in (
        split.stderr
    )
    assert own.snapshot() == before
    chosen = run(own, "remove", LAYERED, "--scope", "project")
    assert chosen.returncode == 0, chosen.stderr
    assert chosen.stdout == f"removed '{LAYERED}' from {own.files['project-mcp']}\n"
    changed = {key for key, data in own.snapshot().items() if data != before[key]}
    assert changed == {"project-mcp"}


def test_a_tool_toggle_says_which_files_it_wrote_one_for_each_host(own: FakeHome) -> None:
    result = run(own, "disable", TWIN, "echo")
    assert result.returncode == 0, result.stderr
    codex = own.files["codex-user"]
    assert result.stdout == (
        f"disabled {TWIN}/echo: permissions.deny in ~/.claude/settings.json; "
        f"disabled_tools in {codex}\n"
    )


def test_scope_and_source_are_refused_with_one_file(own: FakeHome) -> None:
    result = run(
        own, "add", "x", "--scope", "user", "--config", str(own.files["agentty-user"]), "--", "x"
    )
    assert result.returncode == 2
    assert "--config is one file" in result.stderr


def test_the_hosts_flag_limits_the_files_read(own: FakeHome) -> None:
    result = run(own, "sources", "--json", "--hosts", "codex")
    assert result.returncode == 0, result.stderr
    hosts = {source["host"] for source in json.loads(result.stdout)["sources"]}
    assert hosts == {"agentty", "codex"}
    wrong = run(own, "sources", "--hosts", "cursr")
    assert wrong.returncode == 2
    assert "unknown host 'cursr'" in wrong.stderr


def test_a_name_of_another_file_may_be_added_to_a_scope_named_on_purpose(own: FakeHome) -> None:
    argv = [sys.executable, "-c", "pass"]
    refused = run(own, "add", TWIN, "--", *argv)
    assert refused.returncode == 2
    assert "already exists" in refused.stderr
    local = run(own, "add", TWIN, "--scope", "local", "--", *argv)
    assert local.returncode == 0, local.stderr
    assert f"it shadows '{TWIN}' of {own.files['claude-user']}" in local.stderr
    user = run(own, "add", LAYERED, "--source", str(own.files["cursor-user"]), "--", *argv)
    assert user.returncode == 0, user.stderr
    # Cursor runs its own: another host's entry of the name hides nothing of it.
    assert f"it is '{LAYERED}@cursor' here: another host runs a different '{LAYERED}'" in (
        user.stdout
    )
    assert "does not run" not in user.stderr


def test_trust_all_trusts_every_waiting_project_server(tmp_path: Path) -> None:
    fake = build_fake_home(tmp_path)  # a stdio and a URL server wait in project files
    before = run(fake, "list", "--json")
    waiting = {
        s["name"] for s in json.loads(before.stdout)["servers"] if s["status"] == "untrusted"
    }
    assert REPO_TOOL in waiting and len(waiting) > 2
    usage = run(fake, "trust")
    assert usage.returncode == 2
    assert "give a server NAME, or --all" in usage.stderr
    result = run(fake, "trust", "--all")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"trusted {len(waiting)} servers of {fake.project}\n"
    after = run(fake, "list", "--json")
    assert not [s for s in json.loads(after.stdout)["servers"] if s["status"] == "untrusted"]


def test_an_empty_workspace_says_where_to_look(tmp_path: Path) -> None:
    fake = build_fake_home(tmp_path, sources=[], layered=False, twins=(), untrusted=False, url=None)
    result = run(fake, "list")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(
        f"no servers configured in the workspace of {fake.project} "
        "(agentty-tui sources lists the files it reads)\n"
    )


def test_list_shows_what_a_waiting_server_runs_and_sends(tmp_path: Path) -> None:
    """A project entry's own PATH makes ``npx`` the repository's ``.bin/npx``: ``list`` says
    so (the resolved path, flagged), with its env (PATH whole, a secret masked), and a URL
    server's URL and header references; ``--json`` adds ``trust_facts`` to each server."""
    fake = build_fake_home(tmp_path, sources=["project-mcp"], layered=False, twins=(), url=None)
    own = fake.cwd / ".bin" / "npx"
    own.parent.mkdir()
    own.write_text("#!/bin/sh\nexit 0\n")
    own.chmod(0o755)
    secret = "s3cret-value-123"
    entries = {
        "shim": {"command": "npx", "args": ["-y", "pkg"], "env": {"PATH": ".bin:/usr/bin"}},
        "keyed": {"command": "npx", "env": {"API_KEY": secret}},
        "remote": {
            "type": "http",
            "url": f"https://api.example.com/mcp?token={secret}",
            "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"},
        },
    }
    fake.files["project-mcp"].write_text(json.dumps({"mcpServers": entries}))
    text = run(fake, "list")
    assert text.returncode == 0, text.stderr
    assert f"resolves  {own}  ⚠ inside the project folder" in text.stdout
    assert "env       PATH=.bin:/usr/bin  ⚠ decides what runs" in text.stdout
    assert "env       API_KEY=••••••••" in text.stdout
    assert "url     https://api.example.com/mcp?token=••••••••" in text.stdout
    assert "header  Authorization: Bearer ${GITHUB_TOKEN}" in text.stdout
    assert secret not in text.stdout
    listed_json = run(fake, "list", "--json")
    servers = {s["name"]: s for s in json.loads(listed_json.stdout)["servers"]}
    assert secret not in listed_json.stdout
    (resolves,) = [f for f in servers["shim"]["trust_facts"] if f["label"] == "resolves"]
    assert resolves["value"] == str(own) and "inside the project folder" in resolves["alert"]
    assert [f["label"] for f in servers["remote"]["trust_facts"]] == ["url", "header"]
    assert servers["shim"]["spec"]["command"] == "npx"  # the keys there before are all kept


def test_host_narrows_a_switch_and_a_listing_to_one_host(own: FakeHome) -> None:
    # The twin is held by Claude Code and Codex: --host codex switches Codex alone, and each
    # host's listing says what that host's model gets.
    result = run(own, "disable", TWIN, "echo", "--host", "codex")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"disabled {TWIN}/echo: disabled_tools in {own.files['codex-user']}\n"
    tools: dict[str, dict[str, bool]] = {}
    for host in ("codex", "claude"):
        listed = run(own, "list", "--json", "--host", host)
        assert listed.returncode == 0, listed.stderr
        servers = json.loads(listed.stdout)["servers"]
        assert all(host in s["hosts"] for s in servers if s["status"] != "shadowed")
        (twin,) = [s for s in servers if s["name"] == TWIN]
        tools[host] = {t["name"]: t["enabled"] for t in twin["tools"]}
    assert tools["codex"]["echo"] is False and tools["claude"]["echo"] is True
    refused = run(own, "disable", TWIN, "echo", "--host", "gemini")
    assert refused.returncode == 1
    assert f"gemini does not hold '{TWIN}'; it is held by claude, codex" in refused.stderr
    unknown = run(own, "list", "--host", "notepad")
    assert unknown.returncode == 2 and "unknown host 'notepad'" in unknown.stderr
