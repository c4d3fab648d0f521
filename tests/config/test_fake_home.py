"""The fake home of ``tests/fake_home.py``: every file it writes loads with our own dialect for
it, holds the servers its manifest names, and looks like the host's own file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
import tomlkit

from agentty_tui.bridge import Bridge
from agentty_tui.config import ConfigStore
from agentty_tui.config.detect import detect_file, dialect_by_name
from agentty_tui.config.discover import host_config_files
from agentty_tui.config.documents.jsonc import parse_jsonc
from agentty_tui.config.hosts.mcpjson import validate_document
from agentty_tui.model import HttpSpec, PluginConfig, ServerConfig, StdioSpec
from tests.fake_home import (
    LAYERED,
    MUTED,
    REMOTE_DOCS,
    REPO_TOOL,
    SOURCES,
    TWIN,
    VAULT,
    FakeEntry,
    FakeHome,
    build_fake_home,
)
from tests.servers import PLAIN_TOOLS


def _load(fake: FakeHome, source: str) -> PluginConfig:
    """The file of ``source`` parsed by our dialect for it; the local scope is the project's
    ``mcpServers`` inside ``~/.claude.json``."""
    path = fake.files[source]
    text = path.read_text()
    if source == "claude-local":
        local = json.loads(text)["projects"][str(fake.project)]
        return validate_document(local, path=str(path))
    return dialect_by_name(SOURCES[source].dialect).parse(text, str(path))[1]


def _matches(config: ServerConfig, entry: FakeEntry) -> bool:
    """Whether the loaded entry is reached the way the manifest says."""
    if entry.problem:
        return config.spec is None and config.problem is not None
    spec = config.spec
    if entry.url is not None:
        return isinstance(spec, HttpSpec) and spec.url == entry.url
    assert entry.argv is not None
    return (
        isinstance(spec, StdioSpec)
        and (spec.command, *spec.args) == entry.argv
        and dict(spec.env) == dict(entry.env)
    )


@pytest.fixture
def fake(tmp_path: Path) -> FakeHome:
    """The default fake home: every source, one plain server each, every planned case."""
    return build_fake_home(tmp_path / "fake")


@pytest.mark.parametrize("source", list(SOURCES))
def test_each_file_loads_with_its_own_dialect_and_holds_the_manifest(
    fake: FakeHome, source: str
) -> None:
    config = _load(fake, source)
    assert tuple(s.name for s in config.servers) == fake.servers[source]
    assert fake.servers[source]  # every source holds at least its plain server
    for server in config.servers:
        entry = fake.entry(source, server.name)
        assert _matches(server, entry), (source, server)
        assert server.disabled is entry.disabled
    assert config.insecure is None and config.warnings == ()


@pytest.mark.parametrize("source", [k for k in SOURCES if k != "claude-local"])
def test_each_file_is_recognised_and_loaded_by_the_store_without_being_told_its_format(
    fake: FakeHome, source: str
) -> None:
    path = fake.files[source]
    assert detect_file(path).name == SOURCES[source].dialect
    config = ConfigStore(path).load()
    assert tuple(s.name for s in config.servers) == fake.servers[source]


def test_the_same_name_has_another_connection_in_each_scope_and_each_host_runs_its_own(
    fake: FakeHome,
) -> None:
    layered = [e for e in fake.entries if e.name == LAYERED]
    assert [(e.source, e.scope) for e in layered] == [
        ("agentty-user", "user"),
        ("claude-local", "local"),
        ("project-mcp", "project"),
    ]
    loaded = [_load(fake, e.source).server(LAYERED) for e in layered]
    specs = [server.spec for server in loaded if server is not None]
    assert len(specs) == 3 and specs[0] != specs[1] != specs[2] != specs[0]
    assert fake.winners()[LAYERED].source == "claude-local"
    assert fake.winners()[f"{LAYERED}@agentty"].source == "agentty-user"
    assert {(e.source, e.name) for e in fake.shadowed()} == {("project-mcp", LAYERED)}


@pytest.mark.parametrize(
    "twins",
    [("claude-user", "codex-user"), ("cursor-user", "gemini-user", "vscode-user")],
    ids=["claude-codex", "cursor-gemini-vscode"],
)
def test_the_twin_loads_as_one_connection_from_several_hosts_dialects(
    tmp_path: Path, twins: tuple[str, ...]
) -> None:
    fake = build_fake_home(tmp_path, twins=twins)
    loaded = [_load(fake, source).server(TWIN) for source in twins]
    keys = [server.connection_key() for server in loaded if server is not None]
    assert len(keys) == len(twins) and all(key == keys[0] for key in keys)
    assert fake.sources_of(TWIN) == twins
    assert TWIN not in {e.name for e in fake.shadowed()}


@pytest.mark.parametrize("url_source", ["project-mcp", "vscode-project", "gemini-project"])
def test_project_files_hold_a_stdio_server_and_a_url_server(
    tmp_path: Path, url_source: str
) -> None:
    fake = build_fake_home(tmp_path, url="http://127.0.0.1:1234/mcp", url_source=url_source)
    repo_tool = _load(fake, "project-mcp").server(REPO_TOOL)
    assert repo_tool is not None and isinstance(repo_tool.spec, StdioSpec)
    assert fake.entry("project-mcp", REPO_TOOL).scope == "project"
    docs = _load(fake, url_source).server(REMOTE_DOCS)
    assert docs is not None and isinstance(docs.spec, HttpSpec)
    assert docs.spec.url == "http://127.0.0.1:1234/mcp"
    assert docs.spec.transport == "streamable-http"
    assert fake.winners()[REMOTE_DOCS].scope == "project"


def test_claude_json_is_laid_out_as_claude_code_writes_it(fake: FakeHome) -> None:
    text = fake.files["claude-user"].read_text()
    document = json.loads(text)
    # JSON.stringify(x, null, 2): two spaces, non-ASCII as is, no final newline.
    assert text == json.dumps(document, indent=2, ensure_ascii=False)
    assert "résumé: the layering ✓" in text and not text.endswith("\n")
    for key in ("numStartups", "tipsHistory", "userID", "oauthAccount", "cachedChangelog"):
        assert key in document
    projects = document["projects"]
    assert len(projects) == 3 and str(fake.project) in projects
    for entry in projects.values():
        for key in ("allowedTools", "history", "mcpContextUris", "enabledMcpjsonServers"):
            assert key in entry
        assert entry["hasTrustDialogAccepted"] is True
    others = [p for root, p in projects.items() if root != str(fake.project)]
    assert LAYERED in others[0]["mcpServers"]  # another project's server of the same name
    assert "website-preview" not in {e.name for e in fake.entries}
    ours = projects[str(fake.project)]["mcpServers"]
    assert ours[LAYERED]["args"][-1] == "layered@local"


@pytest.mark.parametrize("atomic", [True, False], ids=["rename", "in-place"])
def test_claude_code_rewrites_its_file_keeping_the_servers(fake: FakeHome, atomic: bool) -> None:
    before = fake.snapshot()
    text = fake.claude_code_writes("add a test", atomic=atomic)
    after = fake.snapshot()
    assert {k for k in before if before[k] != after[k]} == {"claude-user", "claude-local"}
    assert after["claude-user"] == text.encode()
    document = json.loads(text)
    assert document["numStartups"] == 185
    assert document["projects"][str(fake.project)]["history"][0]["display"] == "add a test"
    assert text == json.dumps(document, indent=2, ensure_ascii=False)
    for source in ("claude-user", "claude-local"):
        assert tuple(s.name for s in _load(fake, source).servers) == fake.servers[source]
    assert not list(fake.home.glob(".claude.json.*"))  # no temporary file left behind


def test_the_codex_files_carry_comments_and_other_settings(fake: FakeHome) -> None:
    user = fake.files["codex-user"].read_text()
    assert user.startswith("# Codex settings\n")
    assert "# codex-user-1: started with every session\n[mcp_servers.codex-user-1]\n" in user
    document = tomlkit.parse(user).unwrap()
    assert document["model"] == "gpt-5-codex"
    assert document["projects"][str(fake.project)] == {"trust_level": "trusted"}
    assert document["mcp_servers"][TWIN]["env"] == {"TWIN_MODE": "same"}
    project = tomlkit.parse(fake.files["codex-project"].read_text()).unwrap()
    assert project["tui"] == {"notifications": True}
    assert project["model_reasoning_effort"] == "medium"


def test_the_vscode_files_are_jsonc_with_inputs(fake: FakeHome) -> None:
    text = fake.files["vscode-project"].read_text()
    assert text.startswith("// servers of this workspace\n")
    assert "    // asks for a token first\n" in text
    assert ",\n  },\n}\n" in text  # trailing commas
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)
    document: Any = parse_jsonc(text).value
    assert document["inputs"][0]["type"] == "promptString"
    assert document["servers"][VAULT]["env"]["VAULT_TOKEN"] == "${input:vault-token}"
    problem = _load(fake, "vscode-project").server(VAULT)
    assert problem is not None and "${input:vault-token}" in (problem.problem or "")
    assert "Vault token" in (problem.problem or "")


def test_the_gemini_files_hold_servers_among_other_settings(fake: FakeHome) -> None:
    text = fake.files["gemini-user"].read_text()
    assert "  // servers for every session\n" in text
    document: Any = parse_jsonc(text).value
    assert document["theme"] == "GitHub" and document["selectedAuthType"] == "oauth-personal"
    assert document["mcp"] == {"excluded": [MUTED]}
    assert document["mcpServers"]["gemini-user-1"]["timeout"] == 30000
    project: Any = parse_jsonc(fake.files["gemini-project"].read_text()).value
    assert project["context"] == {"fileName": "AGENTS.md"}


@pytest.mark.parametrize("source", list(SOURCES))
def test_a_no_op_load_and_dump_gives_the_same_bytes(fake: FakeHome, source: str) -> None:
    path = fake.files[source]
    text = path.read_text()
    # The local scope's file is ~/.claude.json, whole: the same bytes as the user scope's.
    dialect = dialect_by_name("claude" if source == "claude-local" else SOURCES[source].dialect)
    document, _ = dialect.parse(text, str(path))
    assert dialect.dump(document, text) == text


def test_discovery_finds_every_user_level_host_file(fake: FakeHome) -> None:
    found = host_config_files(fake.home, fake.env, fake.cwd)
    expected = [
        ("Claude Code", fake.files["claude-user"], len(fake.servers["claude-user"])),
        ("Claude Desktop", fake.files["claude-desktop"], 1),
        ("Cursor", fake.files["cursor-user"], 1),
        ("Gemini CLI", fake.files["gemini-user"], 2),
        ("VS Code", fake.files["vscode-user"], 1),
        ("Codex", fake.files["codex-user"], 2),
    ]
    assert [(f.host, f.path, f.servers) for f in found] == expected
    assert all(f.problem is None for f in found)
    user_files = {p for k, p in fake.files.items() if SOURCES[k].scope != "project"}
    assert {f.path for f in found} == user_files - {fake.files["agentty-user"]}


def test_codex_home_moves_the_codex_user_file(tmp_path: Path) -> None:
    fake = build_fake_home(tmp_path, codex_home=True)
    assert fake.files["codex-user"] == tmp_path.resolve() / "codex-home" / "config.toml"
    assert fake.env["CODEX_HOME"] == str(fake.files["codex-user"].parent)
    assert not (fake.home / ".codex").exists()
    found = {f.host: f.path for f in host_config_files(fake.home, fake.env)}
    assert found["Codex"] == fake.files["codex-user"]


def test_the_project_is_a_git_root_above_the_current_folder(fake: FakeHome) -> None:
    assert (fake.project / ".git" / "HEAD").is_file()
    assert fake.cwd.is_dir() and fake.project in fake.cwd.parents
    assert not (fake.cwd / ".git").exists()
    assert set(fake.env) == {"HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"}
    assert fake.files["agentty-user"] == Path(fake.env["XDG_CONFIG_HOME"]) / "agentty/mcp.json"


def test_the_build_is_deterministic(tmp_path: Path) -> None:
    first, second = build_fake_home(tmp_path / "a"), build_fake_home(tmp_path / "b")
    for source in SOURCES:
        a = first.files[source].read_text().replace(str(first.root), "ROOT")
        b = second.files[source].read_text().replace(str(second.root), "ROOT")
        assert a == b, source
    assert [e.name for e in first.entries] == [e.name for e in second.entries]


def test_a_chosen_set_of_sources_with_many_servers_and_no_special_cases(tmp_path: Path) -> None:
    chosen = [
        "agentty-user",
        "claude-user",
        "claude-local",
        "cursor-user",
        "gemini-user",
        "codex-user",
        "project-mcp",
        "vscode-project",
    ]
    fake = build_fake_home(
        tmp_path,
        sources=chosen,
        servers_per_source=5,
        layered=False,
        twins=(),
        untrusted=False,
        url=None,
        prompted_input=False,
        muted=False,
    )
    assert list(fake.files) == chosen
    assert len(fake.entries) == 40 and len(fake.winners()) == 40 and fake.shadowed() == ()
    for source in chosen:
        assert [s.name for s in _load(fake, source).servers] == [
            f"{source}-{i}" for i in range(1, 6)
        ]
    written = {p for p in fake.root.rglob("*") if p.is_file() and ".git" not in p.parts}
    # and Gemini CLI's trust in the project (Codex's is in its config.toml)
    trusted = fake.home / ".gemini" / "trustedFolders.json"
    assert written == {*fake.files.values(), trusted}
    one = ConfigStore(fake.single_file(tmp_path / "one" / "mcp.json")).load()
    assert [s.name for s in one.servers] == list(fake.winners())


def test_the_single_file_holds_the_winners(fake: FakeHome, tmp_path: Path) -> None:
    one = ConfigStore(fake.single_file(tmp_path / "one.json")).load()
    assert [s.name for s in one.servers] == [n for n in fake.winners() if n != VAULT]
    layered, muted = one.server(LAYERED), one.server(MUTED)
    assert layered is not None and _matches(layered, fake.entry("claude-local", LAYERED))
    assert muted is not None and muted.disabled
    assert sum(s.disabled for s in one.servers) == 1


def test_the_command_is_injectable_and_each_entry_is_its_own_connection(tmp_path: Path) -> None:
    labels: list[str] = []

    def command(label: str) -> list[str]:
        labels.append(label)
        return ["/opt/bin/server", label]

    fake = build_fake_home(tmp_path, server_command=command, servers_per_source=2)
    stdio = [e for e in fake.entries if e.argv is not None]
    assert all(e.argv is not None and e.argv[0] == "/opt/bin/server" for e in stdio)
    distinct = {e.connection for e in stdio if e.name != TWIN}
    assert len(distinct) == len([e for e in stdio if e.name != TWIN])
    assert {"layered@user", "layered@project", "layered@local", TWIN} <= set(labels)
    listed = build_fake_home(tmp_path / "listed", server_command=["srv", "-v"])
    assert listed.entry("cursor-user", "cursor-user-1").argv == (
        "srv",
        "-v",
        "--name",
        "cursor-user-1",
    )


def test_unknown_sources_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown sources"):
        build_fake_home(tmp_path, twins=("claude-user", "zed-user"))


def test_the_process_env_leaves_out_the_callers_codex_home_and_xdg_folders(
    fake: FakeHome,
) -> None:
    base = {"PATH": "/bin", "CODEX_HOME": "/real/codex", "XDG_DATA_HOME": "/x", "HOME": "/h"}
    assert fake.process_env(base) == {"PATH": "/bin", **fake.env}


@pytest.mark.anyio
async def test_the_default_servers_run(tmp_path: Path) -> None:
    fake = build_fake_home(tmp_path, servers_per_source=2, sources=["agentty-user"])
    async with Bridge(ConfigStore(fake.files["agentty-user"]), log_dir=tmp_path / "logs") as bridge:
        with anyio.fail_after(30):
            model = await bridge.settled()
    states = {s.name: s for s in model.servers}
    assert list(states) == list(fake.servers["agentty-user"])
    for state in states.values():
        assert state.status == "connected", state.error
        assert tuple(t.bare for t in state.tools) == PLAIN_TOOLS
    assert [t.bare for t in states["agentty-user-1"].tools if not t.enabled] == ["sleep"]
