"""Claude Code's plugin servers, read as Claude Code finds them: which plugins are on, where
each is, its server files, their names and variables, and files that cannot be read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentty_tui.config.files import MAX_CONFIG_BYTES
from agentty_tui.config.hosts.claude.plugins import (
    MAX_PLUGINS,
    PluginServers,
    read_plugin_servers,
)
from agentty_tui.config.hosts.claude.switches import ClaudeFiles, read_switches
from agentty_tui.model import ServerConfig, StdioSpec

ENTRY: dict[str, Any] = {"command": "python3", "args": ["${CLAUDE_PLUGIN_ROOT}/server.py"]}


def _write(path: Path, value: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value if isinstance(value, str) else json.dumps(value, indent=2))
    return path


class Home:
    """A fake home and project with a marketplace on this machine (``local``) and one whose
    plugins are installed copies (``remote``)."""

    def __init__(self, tmp_path: Path) -> None:
        self.home, self.project = tmp_path / "home", tmp_path / "project"
        self.market = tmp_path / "market"
        self.files = ClaudeFiles.of(self.home, self.project, {}, managed_dir=tmp_path / "m")
        self.known: dict[str, Any] = {
            "local": {
                "source": {"source": "directory", "path": str(self.market)},
                "installLocation": str(self.market),
                "lastUpdated": "2026-12-02T08:51:34.832Z",
            },
            "remote": {
                "source": {"source": "github", "repo": "someone/plugins"},
                "installLocation": str(self.files.plugins / "marketplaces" / "remote"),
                "lastUpdated": "2026-12-02T08:51:34.832Z",
            },
        }
        self.listed: list[dict[str, Any]] = []
        self.remote_listed: list[dict[str, Any]] = []
        self.installed: dict[str, list[dict[str, Any]]] = {}
        self.settings: dict[Path, dict[str, Any]] = {}

    def plugin(
        self, name: str, *, market: str = "local", entry: Any = None, **files: object
    ) -> Path:
        """A plugin's folder with ``files`` (``mcp_json``, ``manifest`` or a file name), listed
        in its marketplace with ``entry``'s keys too."""
        if market == "local":
            root = self.market / "plugins" / name
            self.listed.append({"name": name, "source": f"./plugins/{name}", **(entry or {})})
        else:
            root = self.files.plugins / "cache" / market / name / "1.0.0"
            self.remote_listed.append({"name": name, "source": {"source": "github"}})
        for key, value in files.items():
            where = {"mcp_json": (".mcp.json",), "manifest": (".claude-plugin", "plugin.json")}
            _write(root.joinpath(*where.get(key, (key.replace("_", "."),))), value)
        return root

    def enable(self, plugin_id: str, on: bool = True, where: Path | None = None) -> None:
        path = where or self.files.user_settings
        self.settings.setdefault(path, {}).setdefault("enabledPlugins", {})[plugin_id] = on

    def read(self) -> PluginServers:
        plugins = self.files.plugins
        _write(plugins / "known_marketplaces.json", self.known)
        _write(plugins / "installed_plugins.json", {"version": 2, "plugins": self.installed})
        _write(self.market / ".claude-plugin" / "marketplace.json", {"plugins": self.listed})
        remote = Path(self.known["remote"]["installLocation"]) / ".claude-plugin"
        _write(remote / "marketplace.json", {"plugins": self.remote_listed})
        for path, value in self.settings.items():
            _write(path, value)
        return read_plugin_servers(read_switches(self.files))


@pytest.fixture
def home(tmp_path: Path) -> Home:
    return Home(tmp_path)


def _servers(found: PluginServers) -> dict[str, ServerConfig]:
    return {server.name: server for _, config in found.parts for server in config.servers}


def test_each_server_file_of_a_plugin_is_read_and_named_as_claude_code_names_it(
    home: Home,
) -> None:
    root = home.plugin(
        "tp",
        mcp_json={"mcpServers": {"wrapped": ENTRY, "both": {"command": "from-mcp-json"}}},
        manifest={"name": "tp", "mcpServers": {"inline": ENTRY, "both": ENTRY}},
    )
    bare = home.plugin("bare", mcp_json={"srv": ENTRY})
    listed = home.plugin(
        "listed",
        manifest={"name": "listed", "mcpServers": ["extra.json", {"inline": ENTRY}]},
        extra_json={"mcpServers": {"other": ENTRY}},
    )
    for name in ("tp", "bare", "listed"):
        home.enable(f"{name}@local")
    found = home.read()
    assert found.problems == ()
    servers = _servers(found)
    assert sorted(servers) == [
        "plugin:bare:srv",
        "plugin:listed:inline",
        "plugin:listed:other",
        "plugin:tp:both",
        "plugin:tp:inline",
        "plugin:tp:wrapped",
    ]
    spec = servers["plugin:tp:both"].spec  # the manifest's entry wins a name
    assert isinstance(spec, StdioSpec) and spec.args == (f"{root}/server.py",)
    assert dict(spec.env) == {
        "CLAUDE_PLUGIN_ROOT": str(root),
        "CLAUDE_PLUGIN_DATA": str(home.files.plugins / "data" / "tp-local"),
    }
    bare_spec = servers["plugin:bare:srv"].spec
    assert isinstance(bare_spec, StdioSpec) and bare_spec.args == (f"{bare}/server.py",)
    refs = {source.ref.path: source.ref for source, _ in found.parts}
    assert set(refs) == {
        str(root / ".mcp.json"),
        str(root / ".claude-plugin" / "plugin.json"),
        str(bare / ".mcp.json"),
        str(listed / "extra.json"),
        str(listed / ".claude-plugin" / "plugin.json"),
    }
    ref = refs[str(root / ".mcp.json")]
    assert (ref.host, ref.scope, ref.plugin) == ("claude", "user", "tp@local")
    assert ref.label == "claude · plugin tp@local (user)"


def test_the_settings_that_decide_a_plugin_give_its_scope_and_false_turns_it_off(
    home: Home,
) -> None:
    for name in ("shared", "mine", "off", "never"):
        home.plugin(name, mcp_json={"s": ENTRY})
    files = home.files
    home.enable("shared@local", where=files.project_settings)
    home.enable("mine@local", where=files.user_settings)
    home.enable("mine@local", where=files.local_settings)
    home.enable("off@local", where=files.project_settings)
    home.enable("off@local", False, where=files.local_settings)
    home.enable("never@local", False)
    found = home.read()
    scopes = {source.ref.plugin: source.ref.scope for source, _ in found.parts}
    assert scopes == {"shared@local": "project", "mine@local": "local"}


def test_a_plugin_of_another_marketplace_is_read_from_its_installed_copy(home: Home) -> None:
    mine = home.plugin("mine", market="remote", mcp_json={"s": ENTRY})
    ours = home.plugin("ours", market="remote", mcp_json={"s": ENTRY})
    home.plugin("elsewhere", market="remote", mcp_json={"s": ENTRY})
    home.installed = {
        "mine@remote": [{"scope": "user", "installPath": str(mine)}],
        "ours@remote": [
            {"scope": "project", "projectPath": "/other", "installPath": "/nowhere"},
            {"scope": "project", "projectPath": str(home.project), "installPath": str(ours)},
        ],
        "elsewhere@remote": [{"scope": "local", "projectPath": "/other", "installPath": "/x"}],
    }
    home.remote_listed.append({"name": "absent", "source": {"source": "github"}})
    for name in ("mine", "ours", "elsewhere", "absent"):
        home.enable(f"{name}@remote")
    found = home.read()
    spec = _servers(found)["plugin:ours:s"].spec
    assert isinstance(spec, StdioSpec) and spec.args == (f"{ours}/server.py",)
    assert sorted(_servers(found)) == ["plugin:mine:s", "plugin:ours:s"]
    assert len(found.problems) == 2
    assert (
        "elsewhere@remote" in found.problems[0]
        and "not installed for this project" in (found.problems[0])
    )
    assert "absent@remote" in found.problems[1] and "not installed" in found.problems[1]


def test_a_file_that_cannot_be_read_is_a_warning_naming_it_and_the_rest_is_read(
    home: Home,
) -> None:
    broken = home.plugin("broken", mcp_json="{not json")
    home.plugin("wrong", mcp_json={"mcpServers": ["a list"]})
    home.plugin(
        "bundle", mcp_json={"s": ENTRY}, manifest={"name": "bundle", "mcpServers": "x.mcpb"}
    )
    home.plugin("big", mcp_json=" " * (MAX_CONFIG_BYTES + 1))
    home.plugin("good", mcp_json={"s": ENTRY, "bad": {"command": 3}})
    for name in ("broken", "wrong", "bundle", "big", "good", "unlisted"):
        home.enable(f"{name}@local")
    home.enable("bad-id")
    home.enable("x@unknown")
    found = home.read()
    servers = _servers(found)
    # A bundle the manifest names is not read; the plugin's other servers are.
    assert sorted(servers) == ["plugin:bundle:s", "plugin:good:bad", "plugin:good:s"]
    assert servers["plugin:good:bad"].problem is not None  # shown with what is wrong
    text = "\n".join(found.problems)
    assert f"{broken / '.mcp.json'}" in text and "broken@local unread" in text
    assert "wrong@local unread" in text
    assert "names 'x.mcpb', which is not read here" in text and "plugin bundle@local)" in text
    assert "big@local unread" in text and "limit" in text
    assert "'bad-id' is not <plugin>@<marketplace>" in text
    assert "its marketplace 'unknown' is not in" in text
    assert "does not list the plugin 'unlisted'" in text
    # Settings that say something of the wrong type are a problem of the switches, named.
    _write(home.files.user_settings, {"enabledPlugins": ["good@local"]})
    switches = read_switches(home.files)
    assert switches.enabled_plugins == ()
    assert any("enabledPlugins" in line for line in switches.problems)


def test_an_unreadable_marketplace_list_is_one_warning(home: Home) -> None:
    home.plugin("good", mcp_json={"s": ENTRY})
    home.enable("good@local")
    home.read()
    _write(home.files.plugins / "known_marketplaces.json", "[1, 2")
    found = read_plugin_servers(read_switches(home.files))
    assert found.parts == ()
    (line,) = found.problems
    assert "known_marketplaces.json" in line and "plugin servers unread" in line


def test_only_so_many_plugins_are_read(home: Home) -> None:
    for index in range(MAX_PLUGINS + 2):
        home.plugin(f"p{index}", mcp_json={"s": ENTRY})
        home.enable(f"p{index}@local")
    found = home.read()
    assert len(_servers(found)) == MAX_PLUGINS
    assert found.problems == (
        f"Claude Code turns on {MAX_PLUGINS + 2} plugins here: only the first {MAX_PLUGINS} "
        "are read",
    )


def test_a_marketplace_list_claude_code_drops_whole_gives_no_plugin(home: Home) -> None:
    home.plugin("good", mcp_json={"s": ENTRY})
    home.enable("good@local")
    del home.known["remote"]["lastUpdated"]  # another marketplace's entry
    found = home.read()
    assert found.parts == ()
    (line,) = found.problems
    assert "known_marketplaces.json" in line and "remote" in line
    assert "has no lastUpdated, so Claude Code drops the whole file" in line


def test_the_plugins_name_in_its_servers_names_is_its_manifests(home: Home) -> None:
    home.plugin("listed", mcp_json={"s": ENTRY}, manifest={"name": "own"})
    home.plugin("plain", mcp_json={"s": ENTRY})
    home.enable("listed@local")
    home.enable("plain@local")
    assert sorted(_servers(home.read())) == ["plugin:own:s", "plugin:plain:s"]


def test_a_plugin_without_a_manifest_has_its_marketplace_entry_for_one(home: Home) -> None:
    inline = {"mcpServers": {"s": ENTRY}, "strict": False}
    root = home.plugin("inline", entry=inline)
    home.plugin("both", entry={"mcpServers": {"e": ENTRY}}, manifest={"mcpServers": {"m": ENTRY}})
    home.enable("inline@local")
    home.enable("both@local")
    found = home.read()
    assert sorted(_servers(found)) == ["plugin:both:m", "plugin:inline:s"]
    spec = _servers(found)["plugin:inline:s"].spec
    assert isinstance(spec, StdioSpec) and spec.args == (f"{root}/server.py",)
    paths = {source.ref.plugin: source.ref.path for source, _ in found.parts}
    assert paths["inline@local"] == str(home.market / ".claude-plugin" / "marketplace.json")


def test_a_url_server_of_a_plugin_gets_its_variables_but_no_environment(home: Home) -> None:
    url = {"url": "https://example.test/${CLAUDE_PLUGIN_ROOT}"}
    root = home.plugin("web", mcp_json={"w": url})
    home.enable("web@local")
    server = _servers(home.read())["plugin:web:w"]
    assert server.problem is None and server.spec is not None
    assert server.spec.model_dump()["url"] == f"https://example.test/{root}"


def test_hostile_paths_are_warnings_never_a_crash(home: Home) -> None:
    home.plugin("nul", entry={"source": "./plugins/\x00x"})
    home.plugin("listed", manifest={"mcpServers": ["\x00.json", "../" * 40 + "x.json"]})
    home.plugin("remote", market="remote")
    home.installed = {"remote@remote": [{"scope": "user", "installPath": "/\x00"}]}
    home.known["elsewhere"] = {**home.known["local"], "installLocation": "\x00/x"}
    for plugin_id in ("nul@local", "listed@local", "remote@remote"):
        home.enable(plugin_id)
    found = home.read()
    assert found.parts == ()
    text = "\n".join(found.problems)
    assert "nul@local" in text and "listed@local" in text and "remote@remote" in text
