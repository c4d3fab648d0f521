"""Import from each dialect into mcp.json and into config.toml: plan, then additions only."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agentty_tui.config import ConfigStore, apply_import, plan_import
from agentty_tui.model import (
    DEFAULT_CONNECT_TIMEOUT,
    HttpSpec,
    PluginConfig,
    ServerConfig,
    StdioSpec,
    ToolFilter,
)

GOLDEN = Path(__file__).parent / "golden"
SOURCES = [
    ("claude", "claude_desktop_config.json", "json"),
    ("gemini", "settings.json", "json"),
    ("vscode", ".vscode/mcp.json", "json"),
    ("codex", "config.toml", "toml"),
]
TARGET_MCP_JSON = """{
  "mcpServers": {
    "time": {"command": "uvx", "args": ["mcp-server-time", "--local-timezone", "Europe/Paris"]},
    "mine": {"command": "mine"}
  }
}
"""
TARGET_TOML = """# my Codex config
model = "gpt-5-codex"

[mcp_servers.time]
command = "uvx"
args = ["mcp-server-time", "--local-timezone", "Europe/Paris"]

[mcp_servers.mine]
command = "mine"
"""


def _source(tmp_path: Path, dialect: str, name: str, ext: str) -> PluginConfig:
    path = tmp_path / "source" / name
    path.parent.mkdir(parents=True)
    shutil.copyfile(GOLDEN / dialect / f"input.{ext}", path)
    return ConfigStore(path).load()


@pytest.mark.parametrize(
    ("target_name", "target_text"),
    [
        ("mcp.json", TARGET_MCP_JSON),
        ("config.toml", TARGET_TOML),
    ],
)
@pytest.mark.parametrize(("dialect", "name", "ext"), SOURCES)
def test_import_adds_only_what_is_missing(
    tmp_path: Path, dialect: str, name: str, ext: str, target_name: str, target_text: str
) -> None:
    source = _source(tmp_path, dialect, name, ext)
    target_path = tmp_path / target_name
    target_path.write_text(target_text)
    store = ConfigStore(target_path)
    plan = plan_import(source, store.load())

    assert [d.name for d in plan.different] == ["time"]
    assert any("args" in line for line in plan.different[0].diff)
    unusable = [server.name for server in plan.unusable]
    assert unusable == (["search"] if dialect == "vscode" else [])
    assert [server.name for server in plan.add] == ["old"] + ([] if unusable else ["search"])
    assert "~ time" in plan.describe() and "+ old" in plan.describe()

    result = apply_import(plan, store)
    assert result.added == tuple(server.name for server in plan.add)
    assert result.failed == ()
    after = store.load()
    assert [server.name for server in after.servers] == ["time", "mine", *result.added]
    # What was there is untouched: TOML byte for byte; in mcp.json each existing entry keeps
    # its own line (the last one gains the comma before the additions).
    before = ConfigStore(tmp_path / "before" / target_name)
    before.path.parent.mkdir()
    before.path.write_text(target_text)
    assert after.servers[:2] == before.load().servers
    if target_name.endswith(".toml"):
        assert target_path.read_text().startswith(target_text)
    else:
        lines = target_path.read_text().splitlines()
        assert target_text.splitlines()[2] in lines
        assert target_text.splitlines()[3] + "," in lines
    # Everything added reads back as the source had it: importing again adds nothing.
    again = plan_import(source, after)
    assert again.add == ()
    assert sorted(again.identical) == sorted(result.added)
    for added in result.added:
        server, original = after.server(added), source.server(added)
        assert server is not None and original is not None
        assert (server.spec, server.tools, server.disabled) == (
            original.spec,
            original.tools,
            original.disabled,
        )


def test_a_server_the_target_cannot_express_is_reported_and_not_written(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(TARGET_TOML)
    source = PluginConfig(
        servers=(
            ServerConfig(name="legacy", spec=HttpSpec(url="http://h/sse", transport="sse")),
            ServerConfig(
                name="filtered",
                spec=StdioSpec(command="f"),
                tools=ToolFilter(include=("a", "b"), exclude=("b",)),
                disabled=True,
                connect_timeout=5,
            ),
        )
    )
    store = ConfigStore(path)
    plan = plan_import(source, store.load(), carried=store.dialect.timeout_fields)
    assert [server.name for server in plan.add] == ["legacy", "filtered"]
    assert plan.notes == ()
    result = apply_import(plan, store)
    assert result.added == ("filtered",)
    assert [name for name, _ in result.failed] == ["legacy"]
    assert "legacy SSE" in result.failed[0][1]
    assert path.read_text() == TARGET_TOML + (
        '\n[mcp_servers.filtered]\ncommand = "f"\nstartup_timeout_sec = 5\n'
        'enabled_tools = ["a", "b"]\n'
        'disabled_tools = ["b"]\nenabled = false\n'
    )


@pytest.mark.parametrize(
    ("name", "text", "written", "notes"),
    [
        ("mcp.json", "{}", ['"connectTimeout": 5', '"requestTimeout": 2.5'], 0),
        (".vscode/mcp.json", "{}", ['"connectTimeout": 5', '"requestTimeout": 2.5'], 0),
        ("config.toml", "", ["startup_timeout_sec = 5", "tool_timeout_sec = 2.5"], 0),
        ("settings.json", '{"mcpServers": {}}', ['"timeout": 2500'], 1),
    ],
)
def test_timeouts_are_carried_over_where_the_target_format_holds_them(
    tmp_path: Path, name: str, text: str, written: list[str], notes: int
) -> None:
    """Each format's own spelling; what it cannot hold (Gemini: a connect timeout) is a note."""
    path = tmp_path / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    source = PluginConfig(
        servers=(
            ServerConfig(
                name="slow", spec=StdioSpec(command="s"), connect_timeout=5, request_timeout=2.5
            ),
        )
    )
    store = ConfigStore(path)
    plan = plan_import(source, store.load(), carried=store.dialect.timeout_fields)
    assert len(plan.notes) == notes
    assert all("connect timeout of 5 s is not carried over" in note for note in plan.notes)
    assert apply_import(plan, store).added == ("slow",)
    compact = path.read_text().replace(" ", "")
    for line in written:
        assert line.replace(" ", "") in compact
    imported = store.load().server("slow")
    assert imported is not None
    assert imported.request_timeout == 2.5
    assert imported.connect_timeout == (5 if not notes else DEFAULT_CONNECT_TIMEOUT)


def test_env_file_values_are_imported_as_references_never_as_values(tmp_path: Path) -> None:
    """A VS Code server's envFile secrets do not land in the target; the plan says so."""
    project = tmp_path / "proj"
    (project / ".vscode").mkdir(parents=True)
    (project / ".env").write_text("TOKEN=s3cret\nMODE=fast\n")
    source_path = project / ".vscode" / "mcp.json"
    source_path.write_text(
        '{"servers": {"a": {"type": "stdio", "command": "a", "envFile": ".env",'
        ' "env": {"MODE": "slow"}}}}'
    )
    target = tmp_path / "mcp.json"
    target.write_text("{}")
    store = ConfigStore(target)
    plan = plan_import(ConfigStore(source_path).load(), store.load())
    assert plan.notes == (
        f"a: TOKEN from its envFile {project / '.env'} are written as ${{VAR}} references, "
        "not values: set them in the environment",
    )
    apply_import(plan, store)
    assert "s3cret" not in target.read_text()
    imported = store.load().server("a")
    assert imported is not None and isinstance(imported.spec, StdioSpec)
    assert dict(imported.spec.env) == {"TOKEN": "${TOKEN}", "MODE": "slow"}


def test_the_diff_names_secret_keys_but_never_their_values() -> None:
    target = PluginConfig(
        servers=(ServerConfig(name="s", spec=StdioSpec(command="s", env={"TOKEN": "old-secret"})),)
    )
    source = PluginConfig(
        servers=(ServerConfig(name="s", spec=StdioSpec(command="s", env={"TOKEN": "new-secret"})),)
    )
    plan = plan_import(source, target)
    assert plan.different[0].diff == ("env: TOKEN differ",)
    assert "secret" not in plan.describe()


def test_the_plan_masks_url_credentials() -> None:
    def web(name: str, url: str) -> ServerConfig:
        return ServerConfig(name=name, spec=HttpSpec(url=url))

    def remote(name: str, url: str) -> ServerConfig:
        return ServerConfig(name=name, spec=StdioSpec(command="mcp-remote", args=(url,)))

    target = PluginConfig(
        servers=(
            web("s", "http://h/mcp?token=old-secret"),
            web("t", "http://h/mcp"),
            remote("r", "https://h/?sig=old-secret"),
        )
    )
    source = PluginConfig(
        servers=(
            web("s", "http://h/mcp?token=new-secret"),  # differs in its token alone
            web("t", "https://h/mcp?api_key=key-secret"),
            web("u", "http://user:pw-secret@h/mcp"),  # new
            remote("r", "https://h/?sig=new-secret"),
            remote("v", "https://h/?sig=v-secret"),  # new
        )
    )
    plan = plan_import(source, target)
    diffs = {difference.name: difference.diff for difference in plan.different}
    assert diffs["s"] == (
        "url: 'http://h/mcp?token=••••••••' → 'http://h/mcp?token=••••••••' "
        "(their credentials differ)",
    )
    assert diffs["t"] == ("url: 'http://h/mcp' → 'https://h/mcp?api_key=••••••••'",)
    assert diffs["r"] == (
        "args: ['https://h/?sig=••••••••'] → ['https://h/?sig=••••••••'] "
        "(their credentials differ)",
    )
    assert "+ u  http://••••:••••••••@h/mcp (streamable-http)" in plan.describe()
    assert "+ v  mcp-remote https://h/?sig=••••••••" in plan.describe()
    assert "secret" not in plan.describe()


def test_a_name_or_command_with_a_line_break_cannot_forge_a_line_of_the_plan() -> None:
    """Another host's file is untrusted: each server stays on its own line of the plan."""
    forged = "x\n+ evil  rm -rf ~"
    source = PluginConfig(
        servers=(
            ServerConfig(name="ok", spec=StdioSpec(command="run\r\n+ fake", args=("a",))),
            ServerConfig(name=forged, spec=StdioSpec(command="b")),
        )
    )
    lines = plan_import(source, PluginConfig()).describe().splitlines()
    # The forged name is refused by the name rule, and its refusal stays on one line too.
    assert lines == [
        "+ ok  run⏎+ fake a",
        "    resolves  nothing executable on its PATH",
        "! x⏎+ evil  rm -rf ~  (not imported: its name is refused: Use up to 64 letters, "
        "digits, '.', '_' or '-' in the name.)",
    ]


def test_a_name_the_entry_rules_refuse_is_skipped_with_the_reason() -> None:
    source = PluginConfig(
        servers=(
            ServerConfig(name="my server", spec=StdioSpec(command="a")),
            ServerConfig(name="x" * 65, spec=StdioSpec(command="b")),
            ServerConfig(name="fine", spec=StdioSpec(command="c")),
        )
    )
    plan = plan_import(source, PluginConfig())
    assert [server.name for server in plan.add] == ["fine"]
    rule = "Use up to 64 letters, digits, '.', '_' or '-' in the name."
    assert plan.refused_names == (("my server", rule), ("x" * 65, rule))
    assert f"! my server  (not imported: its name is refused: {rule})" in plan.describe()


def test_the_plan_shows_what_each_addition_runs_and_sends(tmp_path: Path) -> None:
    """Under each addition: the executable its own PATH resolves to (flagged inside the
    project), its env (PATH whole, a secret masked), cwd, envFile; a URL server's headers by
    their references. The text the picker's ``i`` shows too."""
    own = tmp_path / "bin" / "npx"
    own.parent.mkdir()
    own.write_text("#!/bin/sh\n")
    own.chmod(0o755)
    source = PluginConfig(
        servers=(
            ServerConfig(
                name="shim",
                spec=StdioSpec(
                    command="npx",
                    args=("-y", "pkg"),
                    env={"PATH": f"{tmp_path}/bin", "API_KEY": "s3cret-value"},
                    cwd=str(tmp_path),
                ),
                env_file=str(tmp_path / ".env"),
                env_file_keys=("API_KEY",),
            ),
            ServerConfig(
                name="remote",
                spec=HttpSpec(
                    url="https://h/mcp", headers={"Authorization": "Bearer ${GITHUB_TOKEN}"}
                ),
            ),
        )
    )
    text = plan_import(source, PluginConfig()).describe(project=tmp_path)
    assert text.splitlines()[:7] == [
        "+ shim  npx -y pkg",
        f"    resolves  {own}  ⚠ inside the project folder",
        f"    cwd       {tmp_path}",
        f"    env       PATH={tmp_path}/bin  ⚠ decides what runs",
        "    env       API_KEY=••••••••",
        f"    envFile   {tmp_path / '.env'}",
        "+ remote  https://h/mcp (streamable-http)",
    ]
    assert "    header  Authorization: Bearer ${GITHUB_TOKEN}" in text
    assert "s3cret-value" not in text
    # Without a project, the same path is shown, not flagged.
    assert f"    resolves  {own}\n" in plan_import(source, PluginConfig()).describe()
