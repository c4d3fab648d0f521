"""A server in Codex's and Gemini CLI's project scope, switched with ``agentty-tui`` in the
project folder, and the switches the hosts' own files hold read back: what ``codex mcp get
--json``, ``gemini mcp list`` and Gemini's model request say is what ``agentty-tui list
--json`` gives in ``hosts`` for each (docs/HOSTS_MEASURED.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import tomlkit

from tests.helpers import run_cli
from tests.hosts import codex_cli
from tests.hosts.codex_cli import CodexHome
from tests.hosts.gemini_cli import GeminiHome, sent_names
from tests.hosts.programs import light_tools, program_path

Hosts = tuple[CodexHome, GeminiHome]
TOOLS = light_tools(3)


def _entry(name: str) -> dict[str, Any]:
    """The same connection in both project files: one server to agentty."""
    entry = codex_cli.light_entry(name, 3)
    return {"command": entry["command"], "args": entry["args"]}


@pytest.fixture
def hosts(tmp_path: Path) -> Hosts:
    for program in ("codex", "gemini"):
        program_path(program)  # skips, with the reason, where one is not installed
    codex = CodexHome.make(tmp_path)
    (codex.home / ".gemini").mkdir()
    gemini = GeminiHome(home=codex.home, project=codex.project)
    codex.workspace["mcp_servers"] = {"proj": _entry("proj")}
    gemini.workspace["mcpServers"] = {"proj": _entry("proj")}
    codex.write()
    gemini.write()
    _agentty(hosts=(codex, gemini), args=("trust", "--all"))  # agentty's own trust
    return codex, gemini


def _agentty(hosts: Hosts, args: tuple[str, ...]) -> str:
    env = {"HOME": str(hosts[0].home), "PATH": "/usr/bin:/bin"}
    result = run_cli(*args, env=env, whole_env=True, cwd=hosts[0].project)
    assert result.returncode == 0, result.stderr
    return result.stdout


def _reread(hosts: Hosts) -> None:
    """Take the files back into the harnesses (they write their dicts before each run)."""
    codex, gemini = hosts
    codex.user = tomlkit.parse((codex.home / ".codex" / "config.toml").read_text()).unwrap()
    codex.workspace = tomlkit.parse((codex.project / ".codex/config.toml").read_text()).unwrap()
    gemini.user = json.loads((gemini.home / ".gemini" / "settings.json").read_text())
    gemini.workspace = json.loads((gemini.project / ".gemini" / "settings.json").read_text())


def _listed(hosts: Hosts) -> dict[str, dict[str, Any]]:
    """``agentty-tui list --json``'s ``hosts`` of ``proj``."""
    listed = json.loads(_agentty(hosts, ("list", "--json")))
    (server,) = (s for s in listed["servers"] if s["name"] == "proj")
    found: dict[str, dict[str, Any]] = server["hosts"]
    return found


def _said(hosts: Hosts) -> dict[str, tuple[bool, list[str], bool | None]]:
    """(off, enabled_tools, approved) by host, as ``list --json`` says."""
    return {
        host: (view["off"], view["enabled_tools"], view["approved"])
        for host, view in _listed(hosts).items()
    }


def _codex_get(hosts: Hosts) -> tuple[bool, list[str] | None]:
    _reread(hosts)
    got = hosts[0].mcp_get("proj")
    return got["enabled"], got["disabled_tools"]


def _gemini_state(hosts: Hosts) -> str:
    _reread(hosts)
    return hosts[1].mcp_list()["proj"].state


def test_a_project_servers_switches_flipped_with_agentty_are_what_the_hosts_read(
    hosts: Hosts,
) -> None:
    said = _agentty(hosts, ("disable", "proj", "tool_0001"))
    assert "disabled_tools in" in said and "excludeTools in" in said, said
    kept = ["tool_0000", "tool_0002"]
    assert _said(hosts) == {"codex": (False, kept, True), "gemini": (False, kept, True)}
    assert _codex_get(hosts) == (True, ["tool_0001"])
    assert hosts[1].mcp_tools_sent() == sent_names("proj", kept)

    _agentty(hosts, ("disable", "proj"))
    assert {host: off for host, (off, _, _) in _said(hosts).items()} == {
        "codex": True,
        "gemini": True,
    }
    assert _codex_get(hosts) == (False, ["tool_0001"])
    assert _gemini_state(hosts) == "Blocked"

    _agentty(hosts, ("enable", "proj", "tool_0001"))
    _agentty(hosts, ("enable", "proj"))
    assert _said(hosts) == {"codex": (False, TOOLS, True), "gemini": (False, TOOLS, True)}
    enabled, disabled_tools = _codex_get(hosts)
    assert enabled and not disabled_tools
    assert _gemini_state(hosts) == "Connected"


def test_switches_set_in_the_hosts_own_files_are_read_back(hosts: Hosts) -> None:
    codex, gemini = hosts
    # `codex mcp` has no disable and `gemini mcp disable` does not find a settings file's
    # server: the user writes the switch, Codex's in the project table, Gemini's in the
    # user's settings (every file's mcp.excluded counts).
    _reread(hosts)
    codex.workspace["mcp_servers"]["proj"]["enabled"] = False
    gemini.user["mcp"] = {"excluded": ["proj"]}
    codex.write()
    gemini.write()
    listed = _listed(hosts)
    assert {host: (view["off"], view["off_by"]) for host, view in listed.items()} == {
        "codex": (True, f"enabled = false in {codex.project / '.codex' / 'config.toml'}"),
        "gemini": (True, f"mcp.excluded in {gemini.home / '.gemini' / 'settings.json'}"),
    }
    assert _codex_get(hosts) == (False, None)
    assert _gemini_state(hosts) == "Blocked"
    # Turned on with agentty: Gemini CLI's switch is in its user settings, not in the entry's
    # file, and is taken out there too.
    said = _agentty(hosts, ("enable", "proj"))
    assert _said(hosts)["gemini"][0] is False, said
    assert _gemini_state(hosts) == "Connected"
    assert "proj" not in json.dumps(gemini.user.get("mcp", {}))


def test_a_project_the_hosts_do_not_trust_is_off_for_them(hosts: Hosts) -> None:
    codex, gemini = hosts
    codex.trust = "untrusted"
    gemini.trusted = False
    codex.write()
    gemini.write()
    listed = _listed(hosts)
    assert {host: (view["off"], view["approved"]) for host, view in listed.items()} == {
        "codex": (True, False),
        "gemini": (True, False),
    }
    assert "trust_level in" in listed["codex"]["off_by"]
    assert "trustedFolders.json" in listed["gemini"]["off_by"]
    _reread(hosts)
    assert "proj" not in codex.mcp_list()
    assert _gemini_state(hosts) == "Disabled"


def test_a_codex_project_table_is_merged_into_the_users_as_codex_merges_it(
    codex: CodexHome,
) -> None:
    """Codex merges a trusted project's ``[mcp_servers.time]`` into the user's key by key: a
    table of ``enabled = false`` alone turns the user's ``time`` off there, and another of
    ``disabled_tools`` alone leaves one tool out. agentty's view is Codex's own."""
    codex.user["mcp_servers"] = {
        "time": codex_cli.light_entry("time", 3),
        "clock": codex_cli.light_entry("clock", 3),
    }
    codex.workspace["mcp_servers"] = {
        "time": {"enabled": False},
        "clock": {"disabled_tools": ["tool_0001"]},
    }
    codex.write()
    assert codex.mcp_get("time")["enabled"] is False
    assert codex.mcp_get("clock")["disabled_tools"] == ["tool_0001"]
    env = {"HOME": str(codex.home), "PATH": "/usr/bin:/bin"}
    result = run_cli("list", "--json", env=env, whole_env=True, cwd=codex.project)
    assert result.returncode == 0, result.stderr
    servers = {s["name"]: s for s in json.loads(result.stdout)["servers"]}
    assert set(servers) >= {"time", "clock"}
    assert servers["time"]["hosts"]["codex"]["off"] is True
    # The user's table is the same process, which Codex runs only as merged: not started.
    assert servers["time"]["status"] == "disabled"
    assert ".codex/config.toml" in servers["time"]["hosts"]["codex"]["off_by"]
    assert servers["clock"]["hosts"]["codex"]["off"] is False
    assert servers["clock"]["hosts"]["codex"]["enabled_tools"] == ["tool_0000", "tool_0002"]
    assert not [s for s in servers.values() if s.get("problem")]


def test_from_a_subfolder_gemini_reads_that_folders_settings_and_so_does_agentty(
    gemini: GeminiHome,
) -> None:
    """Gemini CLI reads the project settings of the folder it runs in, not the repository
    top's: from ``sub/`` it runs ``sub``'s server, not ``top``'s; agentty's Gemini view there
    is the same."""
    (gemini.project / ".git").mkdir()
    gemini.workspace["mcpServers"] = {"top": codex_cli.light_entry("top", 2)}
    gemini.write()
    sub = gemini.project / "sub"
    (sub / ".gemini").mkdir(parents=True)
    entry = codex_cli.light_entry("sub", 2)
    settings = {"mcpServers": {"sub": {"command": entry["command"], "args": entry["args"]}}}
    (sub / ".gemini" / "settings.json").write_text(json.dumps(settings))
    ran = gemini.run("mcp", "list", write=False, cwd=sub)
    assert ran.returncode == 0, ran.describe()
    shown = ran.stdout + ran.stderr
    assert "sub" in shown and "top" not in shown, shown
    env = {"HOME": str(gemini.home), "PATH": "/usr/bin:/bin"}
    result = run_cli("list", "--json", env=env, whole_env=True, cwd=sub)
    assert result.returncode == 0, result.stderr
    held = {
        s["name"] for s in json.loads(result.stdout)["servers"] if "gemini" in s.get("hosts", {})
    }
    assert held == {"sub"}


def test_from_a_subfolder_codex_merges_every_projects_file_down_to_it_and_so_does_agentty(
    codex: CodexHome,
) -> None:
    """Codex reads a ``.codex/config.toml`` in every folder from the repository's top down to
    where it runs, each merged into the one above (the user's first): from ``sub/`` the
    deepest table's ``disabled_tools`` is the one it obeys. agentty's Codex view there is the
    same, and at the top it is the top's."""
    codex.git_init()
    codex.user["mcp_servers"] = {"time": codex_cli.light_entry("time", 3)}
    codex.workspace["mcp_servers"] = {"time": {"disabled_tools": ["tool_0001"]}}
    codex.write()
    sub = codex.project / "sub"
    (sub / ".codex").mkdir(parents=True)
    (sub / ".codex" / "config.toml").write_text(
        '[mcp_servers.time]\ndisabled_tools = ["tool_0002"]\n'
    )
    env = {"HOME": str(codex.home), "PATH": "/usr/bin:/bin"}
    for folder, off in ((codex.project, "tool_0001"), (sub, "tool_0002")):
        ran = codex.run("mcp", "get", "time", "--json", cwd=folder)
        assert ran.returncode == 0, ran.describe()
        assert json.loads(ran.stdout)["disabled_tools"] == [off]
        result = run_cli("list", "--json", env=env, whole_env=True, cwd=folder)
        assert result.returncode == 0, result.stderr
        servers = json.loads(result.stdout)["servers"]
        (time,) = (s for s in servers if s["name"] == "time" and s["status"] != "shadowed")
        assert time["hosts"]["codex"]["enabled_tools"] == [t for t in TOOLS if t != off], folder
