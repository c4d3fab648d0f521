"""Claude Code's plugin servers, measured with the program: how a plugin with an MCP server is
installed offline, what the program needs of its files, what it names the server and its tools,
which switches it obeys for them; and the same switches written through ``agentty-tui``.

Each plugin comes from a marketplace folder in the test's own directory (``claude plugin
marketplace add <dir>``: no network), its server is ``light_server.py`` copied into the plugin
and started as ``${CLAUDE_PLUGIN_ROOT}/light_server.py``. Several cases share one run, each a
plugin of its own (a run costs 3 to 12 s).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

from tests.helpers import run_cli
from tests.hosts.claude_code import ClaudeCodeHome
from tests.hosts.programs import LIGHT_SERVER, light_tools

MARKET = "mk"
"""The marketplace's name (every plugin here is ``<name>@mk``)."""


def _entry(name: str, tools: int = 3) -> dict[str, Any]:
    """A stdio entry starting the plugin's copy of ``light_server.py``."""
    script = "${CLAUDE_PLUGIN_ROOT}/light_server.py"
    return {"command": sys.executable, "args": [script, "--tools", str(tools), "--name", name]}


def _write(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2) + "\n")


class Market:
    """A marketplace folder of plugins, each with one MCP server ``s`` (or as given)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.listed: list[dict[str, str]] = []

    def plugin(self, name: str, how: str = "wrapped", tools: int = 3, entry: Any = None) -> Path:
        """A plugin whose server ``s`` is in ``.mcp.json`` (``wrapped`` in ``mcpServers`` or
        ``bare``), in its manifest (``manifest``), or in its marketplace entry and no manifest
        (``entry``); ``entry``: more keys of its marketplace entry."""
        folder = self.root / "plugins" / name
        folder.mkdir(parents=True)
        shutil.copy(LIGHT_SERVER, folder / "light_server.py")
        manifest: dict[str, Any] = {"name": name, "version": "1.0.0"}
        servers = {"s": _entry(name, tools)}
        listed: dict[str, Any] = {"name": name, "source": f"./plugins/{name}", **(entry or {})}
        if how == "manifest":
            manifest["mcpServers"] = servers
        elif how == "entry":
            listed.update(mcpServers=servers, strict=False)
        else:
            _write(folder / ".mcp.json", {"mcpServers": servers} if how == "wrapped" else servers)
        if how != "entry":
            _write(folder / ".claude-plugin" / "plugin.json", manifest)
        self.listed.append(listed)
        _write(
            self.root / ".claude-plugin" / "marketplace.json",
            {"name": MARKET, "owner": {"name": "tests"}, "plugins": self.listed},
        )
        return folder


def _names(plugin: str, tools: int = 3) -> list[str]:
    """What Claude Code sends for the tools of server ``s`` of ``plugin``."""
    return [f"mcp__plugin_{plugin}_s__{tool}" for tool in light_tools(tools)]


def _claude(claude: ClaudeCodeHome, *args: str) -> str:
    ran = claude.run(*args, write=False)
    assert ran.returncode == 0, ran.describe()
    return ran.stdout


def _known(claude: ClaudeCodeHome, market: Market, *, stamped: bool = True) -> Path:
    """What ``claude plugin marketplace add`` writes (known_marketplaces.json), by hand
    (without its ``lastUpdated`` when not ``stamped``)."""
    entry = {
        "source": {"source": "directory", "path": str(market.root)},
        "installLocation": str(market.root),
    }
    if stamped:
        entry["lastUpdated"] = "2026-12-02T08:51:34.832Z"
    path = claude.home / ".claude" / "plugins" / "known_marketplaces.json"
    _write(path, {MARKET: entry})
    return path


def test_a_plugin_installed_from_a_marketplace_folder_sends_its_servers_tools(
    claude: ClaudeCodeHome,
) -> None:
    market = Market(claude.home.parent / "market")
    folders = {how: market.plugin(f"p{how[0]}", how) for how in ("wrapped", "bare", "manifest")}
    claude.write()
    _claude(claude, "plugin", "marketplace", "add", str(market.root))
    for how in folders:
        _claude(claude, "plugin", "install", f"p{how[0]}@{MARKET}")
    plugins = claude.home / ".claude" / "plugins"
    settings = json.loads((claude.home / ".claude" / "settings.json").read_text())
    assert settings["enabledPlugins"] == {f"p{how[0]}@{MARKET}": True for how in folders}
    known = json.loads((plugins / "known_marketplaces.json").read_text())
    assert known[MARKET]["installLocation"] == str(market.root)
    installed = json.loads((plugins / "installed_plugins.json").read_text())["plugins"]
    record = installed[f"pw@{MARKET}"][0]
    assert record["scope"] == "user" and record["installPath"] == str(
        plugins / "cache" / MARKET / "pw" / "1.0.0"
    )

    sent = claude.mcp_tools_sent(write=False)
    assert sent == sorted(n for plugin in ("pb", "pm", "pw") for n in _names(plugin))
    # `claude mcp list` names them plugin:<plugin>:<server>; a marketplace folder's plugin
    # runs where it is (CLAUDE_PLUGIN_ROOT is the folder, not the installed copy).
    listed = _claude(claude, "mcp", "list")
    line = next(line for line in listed.splitlines() if line.startswith("plugin:pw:s: "))
    assert f"{folders['wrapped']}/light_server.py" in line and "✔ Connected" in line, listed


def test_what_the_program_needs_of_a_plugins_files(claude: ClaudeCodeHome) -> None:
    market = Market(claude.home.parent / "market")
    for name in ("enabled", "notenabled", "offbyfalse"):
        market.plugin(name)
    other = Market(claude.home.parent / "other")
    other.plugin("unknownmarket")
    _known(claude, market)
    claude.settings["user"] = {
        "enabledPlugins": {
            f"enabled@{MARKET}": True,  # no installed_plugins.json record at all
            f"offbyfalse@{MARKET}": False,
            "unknownmarket@other": True,  # a marketplace only declared in settings
        },
        "extraKnownMarketplaces": {
            "other": {"source": {"source": "directory", "path": str(other.root)}}
        },
    }
    installed = {
        f"notenabled@{MARKET}": [
            {"scope": "user", "installPath": str(market.root / "plugins" / "notenabled")}
        ]
    }
    _write(
        claude.home / ".claude" / "plugins" / "installed_plugins.json",
        {
            "version": 2,
            "plugins": installed,
        },
    )
    assert claude.mcp_tools_sent() == _names("enabled")
    # One entry of known_marketplaces.json without its lastUpdated: the whole file is dropped.
    _known(claude, market, stamped=False)
    claude.settings["user"]["enabledPlugins"] = {f"enabled@{MARKET}": True}
    assert claude.mcp_tools_sent() == []


def test_the_switches_claude_code_obeys_for_a_plugin_server(claude: ClaudeCodeHome) -> None:
    market = Market(claude.home.parent / "market")
    plugins = ("deny", "wide", "off", "spelledoff", "unspelleddeny", "mcpjson", "local", "keep")
    for name in plugins:
        market.plugin(name)
    _known(claude, market)
    claude.settings["user"] = {
        "enabledPlugins": {f"{name}@{MARKET}": True for name in plugins},
        "permissions": {
            "deny": [
                "mcp__plugin_deny_s__tool_0001",  # one tool, the name spelled
                "mcp__plugin_wide_s",  # the whole server
                "mcp__plugin:unspelleddeny:s__tool_0001",  # the name as /mcp shows it
            ]
        },
    }
    claude.project_state["disabledMcpServers"] = ["plugin:off:s", "plugin_spelledoff_s"]
    claude.settings["project"] = {"enabledPlugins": {f"local@{MARKET}": True}}
    claude.settings["local"] = {
        "disabledMcpjsonServers": ["plugin:mcpjson:s"],
        "enabledPlugins": {f"local@{MARKET}": False},  # the local word wins
    }
    sent = claude.mcp_tools_sent()
    kept = ("spelledoff", "unspelleddeny", "mcpjson", "keep")
    expected = [n for name in kept for n in _names(name)]
    expected += [n for n in _names("deny") if not n.endswith("tool_0001")]
    assert sent == sorted(expected)


def test_a_plugins_name_is_its_manifests_not_its_marketplace_entrys(
    claude: ClaudeCodeHome,
) -> None:
    market = Market(claude.home.parent / "market")
    folder = market.plugin("listed")
    _write(folder / ".claude-plugin" / "plugin.json", {"name": "own", "version": "1.0.0"})
    _known(claude, market)
    claude.settings["user"] = {"enabledPlugins": {f"listed@{MARKET}": True}}
    assert claude.mcp_tools_sent() == _names("own")
    server = json.loads(_agentty(claude, "list", "--json"))["servers"][0]
    assert server["name"] == "plugin:own:s"


def test_a_marketplace_entrys_servers_run_only_for_a_plugin_without_a_manifest(
    claude: ClaudeCodeHome,
) -> None:
    market = Market(claude.home.parent / "market")
    market.plugin("inline", "entry")
    other = {"mcpServers": {"e": _entry("both")}}
    market.plugin("both", "manifest", entry=other)  # the entry's server "e" is not run
    _known(claude, market)
    claude.settings["user"] = {
        "enabledPlugins": {f"{n}@{MARKET}": True for n in ("inline", "both")}
    }
    assert claude.mcp_tools_sent() == sorted(_names("inline") + _names("both"))
    listed = json.loads(_agentty(claude, "list", "--json"))["servers"]
    assert sorted(server["name"] for server in listed) == ["plugin:both:s", "plugin:inline:s"]


def test_claude_codes_own_server_toggle_writes_the_plugin_servers_name(
    claude: ClaudeCodeHome,
) -> None:
    market = Market(claude.home.parent / "market")
    market.plugin("tp")
    _known(claude, market)
    claude.settings["user"] = {"enabledPlugins": {f"tp@{MARKET}": True}}
    claude.write()
    claude.toggle({"plugin:tp:s": False})
    state = json.loads((claude.home / ".claude.json").read_text())
    assert state["projects"][str(claude.project)]["disabledMcpServers"] == ["plugin:tp:s"]


def test_installs_of_project_and_local_scope_are_written_to_the_projects_settings(
    claude: ClaudeCodeHome,
) -> None:
    market = Market(claude.home.parent / "market")
    market.plugin("shared")
    market.plugin("mine")
    claude.write()
    _claude(claude, "plugin", "marketplace", "add", str(market.root))
    _claude(claude, "plugin", "install", f"shared@{MARKET}", "--scope", "project")
    _claude(claude, "plugin", "install", f"mine@{MARKET}", "--scope", "local")
    settings = claude.project / ".claude"
    assert json.loads((settings / "settings.json").read_text()) == {
        "enabledPlugins": {f"shared@{MARKET}": True}
    }
    assert json.loads((settings / "settings.local.json").read_text()) == {
        "enabledPlugins": {f"mine@{MARKET}": True}
    }
    installed = json.loads(
        (claude.home / ".claude" / "plugins" / "installed_plugins.json").read_text()
    )["plugins"]
    assert [(r["scope"], r["projectPath"]) for r in installed[f"mine@{MARKET}"]] == [
        ("local", str(claude.project))
    ]
    assert claude.mcp_tools_sent(write=False) == sorted(_names("shared") + _names("mine"))


def _agentty(claude: ClaudeCodeHome, *args: str, code: int = 0) -> str:
    env = {"HOME": str(claude.home), "PATH": "/usr/bin:/bin"}
    result = run_cli(*args, env=env, whole_env=True, cwd=claude.project)
    assert result.returncode == code, result.stderr
    return result.stdout if code == 0 else result.stdout + result.stderr


def test_a_plugin_servers_tool_and_server_switched_with_agentty_are_obeyed(
    claude: ClaudeCodeHome,
) -> None:
    market = Market(claude.home.parent / "market")
    market.plugin("tp")
    market.plugin("parked", tools=2)
    claude.write()
    _claude(claude, "plugin", "marketplace", "add", str(market.root))
    for name in ("tp", "parked"):
        _claude(claude, "plugin", "install", f"{name}@{MARKET}")

    listed = json.loads(_agentty(claude, "list", "--json"))
    servers = {server["name"]: server for server in listed["servers"]}
    assert set(servers) == {"plugin:tp:s", "plugin:parked:s"}
    tp = servers["plugin:tp:s"]
    assert tp["status"] == "connected" and tp["source"]["plugin"] == f"tp@{MARKET}"
    assert [tool["name"] for tool in tp["tools"]] == light_tools(3)

    said = _agentty(claude, "disable", "plugin:tp:s", "tool_0001")
    assert "permissions.deny in ~/.claude/settings.json" in said, said
    said = _agentty(claude, "disable", "plugin:parked:s")
    assert "disabledMcpServers in ~/.claude.json" in said, said
    assert claude.mcp_tools_sent(write=False) == [
        n for n in _names("tp") if not n.endswith("tool_0001")
    ]
    listed = json.loads(_agentty(claude, "list", "--json"))
    view = next(s for s in listed["servers"] if s["name"] == "plugin:tp:s")["hosts"]["claude"]
    assert view["enabled_tools"] == ["tool_0000", "tool_0002"]

    _agentty(claude, "enable", "plugin:tp:s", "tool_0001")
    _agentty(claude, "enable", "plugin:parked:s")
    assert claude.mcp_tools_sent(write=False) == sorted(_names("tp") + _names("parked", 2))
    said = _agentty(claude, "remove", "plugin:tp:s", code=1)
    assert "`claude plugin`" in said, said


def test_a_plugin_of_a_git_marketplace_runs_from_its_installed_copy_as_agentty_reads_it(
    claude: ClaudeCodeHome,
) -> None:
    """A GitHub marketplace whose clone is in place (as ``marketplace add owner/repo`` leaves
    it; no network here): ``plugin install`` copies the plugin into the cache, and that copy
    is what runs (CLAUDE_PLUGIN_ROOT), the path agentty reads too."""
    plugins = claude.home / ".claude" / "plugins"
    market = Market(plugins / "marketplaces" / MARKET)
    market.plugin("tp")
    entry = {
        "source": {"source": "github", "repo": "someone/plugins"},
        "installLocation": str(market.root),
        "lastUpdated": "2026-12-02T08:51:34.832Z",
    }
    _write(plugins / "known_marketplaces.json", {MARKET: entry})
    claude.write()
    _claude(claude, "plugin", "install", f"tp@{MARKET}")
    copy = plugins / "cache" / MARKET / "tp" / "1.0.0"
    listed = _claude(claude, "mcp", "list")
    assert f"plugin:tp:s: {sys.executable} {copy}/light_server.py" in listed, listed
    assert claude.mcp_tools_sent(write=False) == _names("tp")
    server = json.loads(_agentty(claude, "list", "--json"))["servers"][0]
    assert server["spec"]["args"][0] == f"{copy}/light_server.py"
    assert server["status"] == "connected"


def test_a_plugin_the_repository_turns_on_runs_uninstalled_and_waits_for_trust_in_agentty(
    claude: ClaudeCodeHome,
) -> None:
    """A project's shared settings name a plugin of a marketplace folder the user knows: the
    program runs it with no install for this project; agentty holds it until trusted."""
    market = Market(claude.home.parent / "market")
    market.plugin("shared")
    _known(claude, market)
    claude.settings["project"] = {"enabledPlugins": {f"shared@{MARKET}": True}}
    assert claude.mcp_tools_sent() == _names("shared")
    server = json.loads(_agentty(claude, "list", "--json"))["servers"][0]
    assert server["name"] == "plugin:shared:s" and server["source"]["scope"] == "project"
    assert server["status"] != "connected" and server["trust_facts"], server
