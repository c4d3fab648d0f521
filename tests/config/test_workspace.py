"""The workspace over a fake home: every host's files layered, each edit in its own file.

The fake home (``tests/fake_home.py``) holds realistic files of every host at user, local and
project level, with planned cases: ``LAYERED`` in three scopes with three connections, ``TWIN``
with one connection in two hosts' files, ``REPO_TOOL`` and ``REMOTE_DOCS`` in project files.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentty_tui.config.documents import formats
from agentty_tui.config.documents.formats import JsonFormat, Loaded
from agentty_tui.config.engine import AddServer, RemoveServer, SetServerDisabled, SetToolEnabled
from agentty_tui.config.files import MAX_CLAUDE_STATE_BYTES
from agentty_tui.config.trust import default_trust_file
from agentty_tui.config.workspace import Workspace, open_workspace
from agentty_tui.errors import ConfigError, UnknownServerError
from agentty_tui.model import PluginConfig, SourceRef, StdioSpec
from tests.fake_home import (
    LAYERED,
    MUTED,
    REMOTE_DOCS,
    REPO_TOOL,
    SOURCES,
    TWIN,
    FakeHome,
    build_fake_home,
    small_fake_home,
)


@pytest.fixture
def fake(tmp_path: Path) -> FakeHome:
    return build_fake_home(tmp_path)


def opened(fake: FakeHome, hosts: list[str] | None = None) -> Workspace:
    return open_workspace(fake.cwd, home=fake.home, env=fake.env, hosts=hosts)


def key_of(fake: FakeHome, ref: SourceRef | None) -> str:
    """The fake home's source key of ``ref``."""
    assert ref is not None
    for key, source in SOURCES.items():
        if (
            str(fake.files.get(key)) == ref.path
            and source.scope == ref.scope
            and source.host == ref.host
        ):
            return key
    raise AssertionError(f"no source key for {ref}")


def changed(before: dict[str, bytes], after: dict[str, bytes]) -> set[str]:
    # ``claude-user`` and ``claude-local`` are one file: an edit of either shows in both.
    return {key for key in before if before[key] != after[key]}


def test_every_server_of_every_file_is_shown_once_from_where_it_came(fake: FakeHome) -> None:
    config = opened(fake).load()
    winners = fake.winners()
    assert {server.name for server in config.servers} == set(winners)
    for server in config.servers:
        assert key_of(fake, server.source) == winners[server.name].source, server.name


def test_each_host_hides_only_its_own_entries_and_runs_its_own_server_of_a_shared_name(
    fake: FakeHome,
) -> None:
    """Claude Code's local entry wins over its ``.mcp.json`` one; our own file's entry of the
    name is another host's server, which that host runs: ``layered@agentty``, edited as
    ``layered`` in its file."""
    config = opened(fake).load()
    layered = config.server(LAYERED)
    assert layered is not None and key_of(fake, layered.source) == "claude-local"
    assert layered.entry is None
    hidden = {(key_of(fake, s.source), s.entry_name) for s in config.shadowed}
    assert hidden == {(e.source, e.name) for e in fake.shadowed()} == {("project-mcp", LAYERED)}
    assert all(s.shadowed_by == layered.source for s in config.shadowed if s.name == LAYERED)
    ours = config.server(f"{LAYERED}@agentty")
    assert ours is not None and key_of(fake, ours.source) == "agentty-user"
    assert ours.entry == LAYERED and ours.spec != layered.spec
    assert [view.source.host for view in ours.hosts] == ["agentty"]


def test_an_edit_of_a_server_keyed_by_its_host_goes_to_its_entry_under_the_files_name(
    fake: FakeHome,
) -> None:
    workspace = opened(fake)
    workspace.load()
    before = fake.snapshot()
    key = f"{LAYERED}@agentty"
    config = workspace.apply(SetToolEnabled(server=key, tool="echo", enabled=False))
    assert changed(before, fake.snapshot()) == {"agentty-user"}
    ours = json.loads(fake.files["agentty-user"].read_text())["mcpServers"]
    assert ours[LAYERED]["tools"] == {"exclude": ["echo"]} and key not in ours
    server = config.server(key)
    assert server is not None and not server.tools.allows("echo")
    claude = config.server(LAYERED)
    assert claude is not None and claude.tools.allows("echo")
    config = workspace.apply(RemoveServer(name=key))
    assert config.server(key) is None and config.server(LAYERED) is not None
    assert LAYERED not in json.loads(fake.files["agentty-user"].read_text())["mcpServers"]


def test_one_connection_in_several_hosts_files_is_one_server_with_every_source(
    fake: FakeHome,
) -> None:
    config = opened(fake).load()
    twins = [server for server in config.servers if server.name == TWIN]
    assert len(twins) == 1
    keys = (key_of(fake, twins[0].source), *(key_of(fake, r) for r in twins[0].also_in))
    assert keys == fake.sources_of(TWIN)
    assert not [s for s in config.shadowed if s.name == TWIN]


def test_the_other_projects_of_claude_json_stay_out(fake: FakeHome) -> None:
    config = opened(fake).load()
    for server in (*config.servers, *config.shadowed):
        if key_of(fake, server.source) == "claude-local":
            assert server.name in fake.servers["claude-local"]


def test_project_servers_wait_for_trust_and_user_and_local_ones_do_not(fake: FakeHome) -> None:
    config = opened(fake).load()
    for server in config.servers:
        assert server.source is not None
        # An invalid entry (VAULT needs a VS Code prompt) runs nothing, so it waits for nothing.
        waits = server.source.scope == "project" and server.problem is None
        assert (server.untrusted is not None) == waits, server.name
    repo = config.server(REPO_TOOL)
    assert repo is not None and isinstance(repo.spec, StdioSpec)
    # The row shows exactly what trusting it runs (``trust_facts``), and how to trust it.
    assert repo.untrusted is not None and f"agentty-tui trust {REPO_TOOL}" in repo.untrusted
    runs = [fact.value for fact in repo.trust_facts if fact.label == "runs"]
    assert len(runs) == 1 and runs[0].startswith(repo.spec.command)
    remote = config.server(REMOTE_DOCS)
    assert remote is not None and remote.untrusted is not None
    assert remote.trust_facts and remote.trust_facts[0].label == "url"
    # The others wait for nothing: nothing to show.
    assert all(not s.trust_facts for s in config.servers if s.untrusted is None)


def test_trust_is_remembered_and_asked_again_when_the_entry_changes(fake: FakeHome) -> None:
    workspace = opened(fake)
    assert workspace.trust(workspace.load(), [REPO_TOOL]) == 1
    again = opened(fake).load()  # another run
    repo = again.server(REPO_TOOL)
    assert repo is not None and repo.untrusted is None
    other = again.server(REMOTE_DOCS)
    assert other is not None and other.untrusted is not None
    path = fake.files["project-mcp"]
    document = json.loads(path.read_text())
    document["mcpServers"][REPO_TOOL]["args"].append("--changed")
    path.write_text(json.dumps(document, indent=2))
    changed_entry = opened(fake).load().server(REPO_TOOL)
    assert changed_entry is not None and changed_entry.untrusted is not None


@pytest.mark.parametrize(
    "name", [LAYERED, TWIN, REPO_TOOL, MUTED], ids=["local", "twin", "project", "gemini"]
)
def test_a_tool_toggle_lands_where_each_host_holding_the_server_reads_it_and_nowhere_else(
    fake: FakeHome, name: str
) -> None:
    # The twin is one server in Claude Code's and Codex's user files: each host is switched,
    # Codex in its entry, Claude Code by a deny rule in the settings of the entry's scope.
    workspace = opened(fake)
    server = workspace.load().server(name)
    assert server is not None
    holders = [view.source for view in server.hosts]
    before = fake.snapshot()
    after_config = workspace.apply(SetToolEnabled(server=name, tool="echo", enabled=False))
    entry_files = {fake.files[key_of(fake, ref)] for ref in holders if ref.host != "claude"}
    assert changed(before, fake.snapshot()) == {
        key for key, path in fake.files.items() if path in entry_files
    }
    for ref in holders:
        if ref.host == "claude":
            folder = fake.home / ".claude" if ref.scope == "user" else fake.project / ".claude"
            settings = folder / ("settings.json" if ref.scope == "user" else "settings.local.json")
            deny = json.loads(settings.read_text())["permissions"]["deny"]
            assert deny == [f"mcp__{name}__echo"]
    server = after_config.server(name)
    assert server is not None and not server.tools.allows("echo")


def test_a_server_switch_of_a_local_entry_is_claude_codes_own_for_the_project(
    fake: FakeHome,
) -> None:
    # What Claude Code's /mcp writes: the project's disabledMcpServers; the entry stays as it is.
    workspace = opened(fake)
    path = fake.files["claude-local"]
    before = json.loads(path.read_text())
    workspace.apply(SetServerDisabled(server=LAYERED, disabled=True))
    after = json.loads(path.read_text())
    project = after["projects"][str(fake.project)]
    assert project.pop("disabledMcpServers") == [LAYERED]
    assert after == before
    server = workspace.load().server(LAYERED)
    assert server is not None and server.disabled
    assert server.hosts[0].off_by == "disabledMcpServers in ~/.claude.json"


def test_a_new_server_goes_to_our_user_file_or_to_the_file_asked_for(fake: FakeHome) -> None:
    workspace = opened(fake)
    spec = StdioSpec(command="true")
    before = fake.snapshot()
    config = workspace.apply(AddServer(name="fresh", spec=spec))
    assert changed(before, fake.snapshot()) == {"agentty-user"}
    assert key_of(fake, config.server("fresh").source) == "agentty-user"  # type: ignore[union-attr]
    local = next(s.ref for s in workspace.sources if s.dialect == "claude-local")
    config = workspace.apply(AddServer(name="fresh-local", spec=spec), source=local)
    assert key_of(fake, config.server("fresh-local").source) == "claude-local"  # type: ignore[union-attr]


def test_removing_the_winner_lets_the_next_entry_of_the_name_run(fake: FakeHome) -> None:
    workspace = opened(fake)
    config = workspace.apply(RemoveServer(name=LAYERED))
    layered = config.server(LAYERED)
    assert layered is not None and key_of(fake, layered.source) == "project-mcp"
    assert not [s for s in config.shadowed if s.entry_name == LAYERED]
    ours = config.server(f"{LAYERED}@agentty")
    assert ours is not None and key_of(fake, ours.source) == "agentty-user"


def test_a_file_that_stops_parsing_keeps_its_servers_with_a_warning(fake: FakeHome) -> None:
    workspace = opened(fake)
    first = workspace.load()
    path = fake.files["cursor-user"]
    path.write_text(path.read_text()[:-5])
    config = workspace.load()
    names = {server.name for server in first.servers}
    assert {server.name for server in config.servers} == names
    assert any(str(path) in warning and "as last read" in warning for warning in config.warnings)
    with pytest.raises(ConfigError):
        workspace.store(next(s.ref for s in workspace.sources if s.path == path)).load()


def test_claude_json_is_parsed_once_a_load_and_a_problem_of_it_is_said_once(
    fake: FakeHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    claude_json = fake.files["claude-local"]
    parsed: list[str | None] = []
    parse = JsonFormat._parse

    def counted(self: JsonFormat, text: str, path: str | None) -> Loaded:
        parsed.append(path)
        return parse(self, text, path)

    in_parts: list[str | None] = []
    read_in_parts = formats._read_in_parts

    def counted_parts(text: str, path: str | None) -> Loaded | None:
        in_parts.append(path)
        return read_in_parts(text, path)

    monkeypatch.setattr(JsonFormat, "_parse", counted)
    monkeypatch.setattr(formats, "_read_in_parts", counted_parts)
    workspace = opened(fake)
    config = workspace.load()
    # Its user and its local scope read it; a heavy user's is hundreds of MiB: read once, in
    # parts (never parsed whole by a load).
    assert in_parts == [str(claude_json)]
    assert str(claude_json) not in parsed
    assert len(parsed) == len(set(parsed))
    scopes = {
        s.source.scope for s in config.servers if s.source and s.source.path == str(claude_json)
    }
    assert scopes == {"user", "local"}
    # Grown past even its large limit (sparse: costs no disk): refused by both scopes, said once.
    with claude_json.open("ab") as file:
        file.truncate(MAX_CLAUDE_STATE_BYTES + 1)
    warnings = [w for w in workspace.load().warnings if w.startswith(str(claude_json))]
    assert warnings == [
        f"{claude_json}: 268.4 MB is over the 256 MiB limit of Claude Code's state file "
        "(its servers are kept as last read)"
    ]


def test_the_hosts_setting_and_hosts_flag_limit_the_files_read(fake: FakeHome) -> None:
    only_codex = opened(fake, hosts=["codex"])
    assert {s.ref.host for s in only_codex.sources} == {"agentty", "codex"}
    ours = fake.files["agentty-user"]
    document = json.loads(ours.read_text())
    document["hosts"] = ["cursor"]
    ours.write_text(json.dumps(document))
    assert {s.ref.host for s in opened(fake).sources} == {"agentty", "cursor"}
    document["hosts"] = ["cursr"]
    ours.write_text(json.dumps(document))
    with pytest.raises(ConfigError, match="unknown host 'cursr'"):
        opened(fake)


def test_an_unknown_server_names_the_closest_one(fake: FakeHome) -> None:
    with pytest.raises(UnknownServerError, match=LAYERED):
        opened(fake).apply(RemoveServer(name=LAYERED + "x"))


def test_the_catalog_settings_come_from_our_user_file(fake: FakeHome) -> None:
    ours = fake.files["agentty-user"]
    document = json.loads(ours.read_text())
    document["toolBudget"] = 7
    ours.write_text(json.dumps(document))
    assert opened(fake).load().tool_budget == 7
    assert PluginConfig().tool_budget != 7


def test_one_file_is_a_workspace_of_one_source_read_as_it_says(tmp_path: Path) -> None:
    # ``--config``: the same shape as a project's workspace, read as the one file says.
    path = tmp_path / "one.json"
    assert not Workspace.of_file(path).exists()
    path.write_text(json.dumps({"mcpServers": {"a": {"command": "a-server"}}}))
    path.chmod(0o600)
    one = Workspace.of_file(path)
    config = one.load()
    assert one.single and one.exists() and one.path == path
    assert [(s.name, s.source, s.untrusted) for s in config.servers] == [("a", None, None)]
    assert one.watched_paths() == (path,)  # no trust book: one file is trusted as a whole
    assert one.holders(config, "a") == (one.add_to,) and one.owner(config, "a") == one.add_to
    one.apply(SetToolEnabled(server="a", tool="t", enabled=False))
    assert json.loads(path.read_text())["mcpServers"]["a"]["tools"] == {"exclude": ["t"]}
    path.write_text("{ not json")
    with pytest.raises(ConfigError, match=r"one\.json"):
        one.load()  # not kept as last read: there is nothing else to show


def docs_in_two_hosts(tmp_path: Path, *sources: str) -> FakeHome:
    """A small fake home whose ``sources`` each hold a ``docs`` of its own (the command's
    argument names the host)."""
    fake = small_fake_home(tmp_path, sources=("agentty-user", *sources))
    for key in sources:
        path = fake.files[key]
        document = json.loads(path.read_text())
        entry = {"command": "docs-server", "args": [SOURCES[key].host]}
        document["mcpServers"]["docs"] = entry
        path.write_text(json.dumps(document, indent=2))
    return fake


def test_two_hosts_project_entries_of_one_name_are_trusted_each_on_its_own(
    tmp_path: Path,
) -> None:
    """``.mcp.json`` and ``.cursor/mcp.json`` both hold ``docs``, each another command: Claude
    Code runs one and Cursor the other, so trusting one must not trust (or untrust) the
    other."""
    fake = docs_in_two_hosts(tmp_path, "project-mcp", "cursor-project")
    workspace = opened(fake)
    config = workspace.load()
    claude, cursor = config.server("docs"), config.server("docs@cursor")
    assert claude is not None and cursor is not None and cursor.entry == "docs"
    assert claude.untrusted is not None and cursor.untrusted is not None
    assert workspace.trust(config, ["docs@cursor"]) == 1
    config = opened(fake).load()
    assert config.server("docs@cursor").untrusted is None  # type: ignore[union-attr]
    assert config.server("docs").untrusted is not None  # type: ignore[union-attr]
    assert workspace.trust(config, ["docs"]) == 1
    config = opened(fake).load()
    assert all(config.server(key).untrusted is None for key in ("docs", "docs@cursor"))  # type: ignore[union-attr]
    book = json.loads(default_trust_file(fake.home, fake.env).read_text())
    assert set(book["projects"][str(fake.project)]) >= {"docs", "docs@cursor"}


def test_claude_codes_switch_of_a_server_keyed_by_its_host_names_its_entry(
    tmp_path: Path,
) -> None:
    """Cursor's project ``docs`` comes first, so Claude Code's user ``docs`` is ``docs@claude``
    here; its deny rule is written as Claude Code names the tool: ``mcp__docs__echo``."""
    fake = docs_in_two_hosts(tmp_path, "claude-user", "cursor-project")
    workspace = opened(fake)
    config = workspace.load()
    assert [v.source.host for v in config.server("docs").hosts] == ["cursor"]  # type: ignore[union-attr]
    config = workspace.apply(SetToolEnabled(server="docs@claude", tool="echo", enabled=False))
    settings = json.loads((fake.home / ".claude" / "settings.json").read_text())
    assert settings["permissions"]["deny"] == ["mcp__docs__echo"]
    claude = config.server("docs@claude")
    assert claude is not None and not claude.tools.allows("echo")
    assert config.server("docs").tools.allows("echo")  # type: ignore[union-attr]
