"""Detection of a file's dialect, and what each dialect reads that plain mcp.json does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentty_tui.config import (
    DIALECT_NAMES,
    AddServer,
    CodexDialect,
    ConfigStore,
    GeminiDialect,
    McpJsonDialect,
    SetServerDisabled,
    SetToolEnabled,
    VsCodeDialect,
    detect_dialect,
    dialect_by_name,
    dialect_name,
)
from agentty_tui.config.hosts.vscode import read_env_file
from agentty_tui.errors import ConfigError
from agentty_tui.model import HttpSpec, StdioSpec
from tests.helpers import each_dialect_file, write_file


@pytest.mark.parametrize(
    ("path", "text", "expected"),
    [
        ("/h/.codex/config.toml", None, "codex"),
        ("/h/any.toml", "[mcp_servers.a]\ncommand = 'x'\n", "codex"),
        ("/p/.vscode/mcp.json", None, "vscode"),
        ("/p/.vscode/mcp.json", "", "vscode"),
        ("/p/anything.json", '// c\n{"servers": {}, "inputs": []}', "vscode"),
        ("/h/.gemini/settings.json", None, "gemini"),
        ("/h/.gemini/settings.json", '{"mcpServers": {"a": {"command": "x"}}}', "gemini"),
        ("/h/x.json", '{"mcpServers": {"a": {"httpUrl": "http://h/mcp"}}}', "gemini"),
        ("/h/x.json", '{"mcp": {"excluded": []}, "mcpServers": {}}', "gemini"),
        ("/h/.mcp.json", '{"mcpServers": {"a": {"command": "x"}}}', "claude"),
        ("/h/.cursor/mcp.json", None, "claude"),
        ("/h/claude_desktop_config.json", "{not json", "claude"),
    ],
)
def test_detect_dialect(path: str, text: str | None, expected: str) -> None:
    assert dialect_name(detect_dialect(path, text)) == expected


def test_dialect_by_name_and_aliases() -> None:
    assert [dialect_name(dialect_by_name(name)) for name in DIALECT_NAMES] == list(DIALECT_NAMES)
    assert isinstance(dialect_by_name("Cursor"), McpJsonDialect)
    with pytest.raises(ConfigError, match="unknown config format 'yaml'"):
        dialect_by_name("yaml")


def test_store_detects_the_dialect_and_an_explicit_one_wins(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    assert isinstance(ConfigStore(path).dialect, CodexDialect)
    settings = tmp_path / "settings.json"
    settings.write_bytes(b"\xff not utf-8")
    assert isinstance(ConfigStore(settings).dialect, GeminiDialect)
    with pytest.raises(ConfigError, match="not UTF-8"):
        ConfigStore(settings).load()
    assert isinstance(ConfigStore(path, dialect=McpJsonDialect()).dialect, McpJsonDialect)
    assert isinstance(ConfigStore(tmp_path / ".vscode" / "mcp.json").dialect, VsCodeDialect)


# --- VS Code ----------------------------------------------------------------------------

VSCODE = """{
  "inputs": [{"type": "promptString", "id": "key", "description": "The API key"}],
  "servers": {
    "prompted": {"type": "stdio", "command": "x", "env": {"KEY": "${input:key}"}},
    "env": {"type": "stdio", "command": "${userHome}/bin/y", "args": ["${env:HOME}"],
            "cwd": "${workspaceFolder}/srv", "env": {"A": "${A:-a}"}},
    "sse": {"type": "sse", "url": "http://127.0.0.1:1/sse", "headers": {"H": "${env:H}"}},
    "cmd": {"type": "stdio", "command": "z", "args": ["${command:pick}"]},
    "envfile": {"type": "stdio", "command": "z", "envFile": "${workspaceFolder}/.env"},
  },
}
"""


def test_vscode_inputs_and_variables(tmp_path: Path) -> None:
    path = tmp_path / "proj" / ".vscode" / "mcp.json"
    path.parent.mkdir(parents=True)
    path.write_text(VSCODE)
    config = ConfigStore(path).load()
    prompted = config.server("prompted")
    assert prompted is not None and prompted.spec is None
    assert prompted.problem is not None
    assert "${input:key}" in prompted.problem and "The API key" in prompted.problem
    env = config.server("env")
    assert env is not None and env.problem is None
    assert env.spec == StdioSpec(
        command="${HOME}/bin/y",
        args=("${HOME}",),
        cwd=f"{tmp_path / 'proj'}/srv",
        env={"A": "${A:-a}"},
    )
    sse = config.server("sse")
    assert sse is not None
    assert sse.spec == HttpSpec(
        url="http://127.0.0.1:1/sse", headers={"H": "${H}"}, transport="sse"
    )
    cmd = config.server("cmd")
    assert cmd is not None and cmd.problem is not None and "${command:pick}" in cmd.problem
    envfile = config.server("envfile")
    assert envfile is not None and envfile.problem is not None
    assert "envFile" in envfile.problem and "no such file" in envfile.problem
    assert str(tmp_path / "proj" / ".env") in envfile.problem
    # The file keeps VS Code's spelling: nothing was resolved in it.
    assert path.read_text() == VSCODE


def test_vscode_env_file_is_read_under_the_entry_env(tmp_path: Path) -> None:
    """``envFile`` variables reach the spec; the entry's ``env`` wins; the file stays as it is."""
    project = tmp_path / "proj"
    (project / ".vscode").mkdir(parents=True)
    (project / ".env").write_text(
        "# secrets\nexport TOKEN='s3cret'\nMODE=fast # the default\nBOTH=file\n"
        'QUOTED="a \\"b\\"\\nc"\n\nEMPTY=\n'
    )
    text = (
        '{"servers": {"a": {"type": "stdio", "command": "a", "envFile": ".env",'
        ' "env": {"BOTH": "entry"}}, "b": {"type": "stdio", "command": "b",'
        ' "envFile": "${workspaceFolder}/missing.env"}}}'
    )
    path = project / ".vscode" / "mcp.json"
    path.write_text(text)
    store = ConfigStore(path)
    config = store.load()
    a = config.server("a")
    assert a is not None and a.problem is None and isinstance(a.spec, StdioSpec)
    assert dict(a.spec.env) == {
        "TOKEN": "s3cret",
        "MODE": "fast",
        "BOTH": "entry",
        "QUOTED": 'a "b"\nc',
        "EMPTY": "",
    }
    assert a.env_file == str(project / ".env")
    b = config.server("b")
    assert b is not None and b.problem is not None and "missing.env: no such file" in b.problem
    store.apply(SetToolEnabled(server="a", tool="t", enabled=False))
    assert '"envFile": ".env"' in path.read_text() and "s3cret" not in path.read_text()


def test_env_file_syntax_errors_name_the_line(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text("GOOD=1\nthis is not a variable\n")
    with pytest.raises(ConfigError, match=r"\.env:2: expected KEY=VALUE"):
        read_env_file(env)
    env.write_text("OPEN='never closed\n")
    with pytest.raises(ConfigError, match=r"\.env:1:"):
        read_env_file(env)


def test_vscode_writes_type_and_keeps_trailing_commas(tmp_path: Path) -> None:
    path = tmp_path / ".vscode" / "mcp.json"
    path.parent.mkdir()
    path.write_text('{\n  "servers": {\n    "a": {"type": "stdio", "command": "a"},\n  },\n}\n')
    store = ConfigStore(path)
    store.apply(AddServer(name="b", spec=HttpSpec(url="http://h/sse", transport="sse")))
    assert path.read_text() == (
        '{\n  "servers": {\n    "a": {"type": "stdio", "command": "a"},\n'
        '    "b": {\n      "type": "sse",\n      "url": "http://h/sse"\n    },\n  },\n}\n'
    )


def test_jsonc_dialect_refuses_to_edit_duplicate_keys(tmp_path: Path) -> None:
    path = tmp_path / ".vscode" / "mcp.json"
    path.parent.mkdir()
    text = '{"servers": {"a": {"command": "a"}, "a": {"command": "b"}}}'
    path.write_text(text)
    with pytest.raises(ConfigError, match="repeats the key"):
        ConfigStore(path).apply(SetToolEnabled(server="a", tool="t", enabled=False))
    assert path.read_text() == text


# --- Gemini ---------------------------------------------------------------------------


def test_gemini_spelling(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(
        """{
  // comment
  "mcpServers": {
    "s": {"url": "http://h/sse", "timeout": 2500, "headers": {"A": "$TOKEN"}},
    "h": {"url": "http://h/mcp", "type": "http", "includeTools": ["a"]},
    "bad": {"command": "x", "excludeTools": "a"},
    "off": {"command": "x"}
  },
  "mcp": {"excluded": ["off"]}
}"""
    )
    config = ConfigStore(path).load()
    s, h, bad, off = (config.server(name) for name in ("s", "h", "bad", "off"))
    assert s is not None and h is not None and bad is not None and off is not None
    assert s.spec == HttpSpec(url="http://h/sse", headers={"A": "${TOKEN}"}, transport="sse")
    assert s.request_timeout == 2.5
    assert h.spec == HttpSpec(url="http://h/mcp") and h.tools.include == ("a",)
    assert bad.problem is not None and "excludeTools" in bad.problem
    assert off.disabled and not s.disabled


# --- Codex ----------------------------------------------------------------------------


def test_codex_keys_map_onto_the_model(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        """[mcp_servers.a]
command = "a"
env = { K = "v" }
env_vars = ["HOME_DIR"]
startup_timeout_ms = 1500
tool_timeout_sec = 7.5
enabled_tools = ["x", "y"]
disabled_tools = ["y"]

[mcp_servers.b]
url = "http://h/mcp"
http_headers = { "X-A" = "1" }
env_http_headers = { "X-B" = "B_VAR" }
bearer_token_env_var = "TOKEN"
enabled = false

[mcp_servers.c]
command = "c"
enabled = "no"
"""
    )
    config = ConfigStore(path).load()
    a, b, c = (config.server(name) for name in "abc")
    assert a is not None and b is not None and c is not None
    assert a.spec == StdioSpec(command="a", env={"K": "v", "HOME_DIR": "${HOME_DIR}"})
    assert (a.connect_timeout, a.request_timeout) == (1.5, 7.5)
    assert a.tools.include == ("x", "y") and a.tools.exclude == ("y",)
    assert not a.tools.allows("y") and a.tools.allows("x") and not a.tools.allows("z")
    assert b.spec == HttpSpec(
        url="http://h/mcp",
        headers={"X-A": "1", "X-B": "${B_VAR}", "Authorization": "Bearer ${TOKEN}"},
    )
    assert b.disabled
    assert c.problem is not None and "'enabled'" in c.problem


def test_codex_refuses_sse_and_reports_toml_errors(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("# nothing yet\n")
    store = ConfigStore(path)
    with pytest.raises(ConfigError, match="legacy SSE"):
        store.apply(AddServer(name="s", spec=HttpSpec(url="http://h/sse", transport="sse")))
    assert path.read_text() == "# nothing yet\n"
    store.apply(AddServer(name="a.b", spec=StdioSpec(command="x")))
    assert path.read_text() == '# nothing yet\n\n[mcp_servers."a.b"]\ncommand = "x"\n'
    path.write_text("[mcp_servers.a]\ncommand = \n")
    with pytest.raises(ConfigError) as caught:
        store.load()
    assert caught.value.line == 2 and "invalid TOML" in str(caught.value)


def test_new_files_in_each_dialect_load_back(tmp_path: Path) -> None:
    spec = StdioSpec(command="x", args=("1",))
    for name in ("mcp.json", "settings.json", ".vscode/mcp.json", "config.toml"):
        path = tmp_path / name
        store = ConfigStore(path)
        store.apply(AddServer(name="x", spec=spec))
        server = ConfigStore(path).load().server("x")
        assert server is not None and server.spec == spec, name


@each_dialect_file
def test_an_edit_made_meanwhile_survives_in_every_dialect(
    tmp_path: Path, dialect: str, name: str, text: str, toggled: str
) -> None:
    """Someone appends to the file between our read and our rename: both edits land."""
    path = write_file(tmp_path / name, text)
    store = ConfigStore(path)
    comment = "# theirs\n" if dialect == "codex" else "// theirs\n"
    calls: list[int] = []

    def meddle(target: Path) -> None:
        calls.append(1)
        if len(calls) == 1 and dialect != "claude":
            target.write_text(comment + target.read_text())
        elif len(calls) == 1:  # plain JSON has no comments: change a value instead
            target.write_text(target.read_text().replace('"mcpServers"', '"zz": 1, "mcpServers"'))

    store._before_replace = meddle
    store.apply(SetToolEnabled(server="plain", tool="echo", enabled=False))
    after = path.read_text()
    assert len(calls) == 2
    assert toggled in after
    assert after.startswith(comment) if dialect != "claude" else '"zz": 1' in after


def test_a_key_added_to_a_codex_table_stays_above_the_next_tables_comment(
    tmp_path: Path,
) -> None:
    """A new ``disabled_tools`` or ``enabled = false`` goes right after the table's last key,
    not under the blank line and comment that introduce the next table."""
    path = tmp_path / "config.toml"
    nxt = '\n# the git server, for the repository\n[mcp_servers.git]\ncommand = "git-mcp"\n'
    path.write_text('[mcp_servers.time]\ncommand = "mcp-server-time"\n' + nxt)
    store = ConfigStore(path)
    store.apply(SetToolEnabled(server="time", tool="convert_time", enabled=False))
    with_tools = '[mcp_servers.time]\ncommand = "mcp-server-time"\n'
    with_tools += 'disabled_tools = ["convert_time"]\n'
    assert path.read_text() == with_tools + nxt
    store.apply(SetServerDisabled(server="time", disabled=True))
    assert path.read_text() == with_tools + "enabled = false\n" + nxt
