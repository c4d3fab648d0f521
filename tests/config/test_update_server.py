"""``UpdateServer``: a server's connection replaced in every dialect, the rest of its entry kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentty_tui.config import ConfigStore, UpdateServer, apply_edit
from agentty_tui.errors import ConfigError
from agentty_tui.model import HttpSpec, StdioSpec

NEW_STDIO = StdioSpec(command="uvx", args=("srv", "--tz", "UTC"), env={"TZ": "UTC"}, cwd="/srv")
NEW_HTTP = HttpSpec(url="https://example.test/mcp", headers={"X-Team": "blue"})

MCP_JSON = """{
  "mcpServers": {
    "s": {
      "command": "old",
      "args": ["a"],
      "tools": {"exclude": ["t"]},
      "disabled": true,
      "custom": {"keep": [1, 2]}
    },
    "other": {"command": "x"}
  }
}
"""

VSCODE = """// my servers
{
  "servers": {
    // the one we edit
    "s": {
      "type": "stdio",
      "command": "old", // old command
      "args": ["a"],
      "envFile": "${workspaceFolder}/.env",
      "tools": {"exclude": ["t"]},
      "custom": 1,
    },
  },
  "inputs": [],
}
"""

GEMINI = """{
  // settings
  "theme": "dark",
  "mcp": {"excluded": ["s"]},
  "mcpServers": {
    "s": {
      "command": "old",
      "env": {"TOKEN": "$TOKEN"},
      "excludeTools": ["t"],
      "trust": true // keep me
    }
  }
}
"""

CODEX = """# top comment
[mcp_servers.s]
command = "old"
args = ["a"]
env_vars = ["TOKEN"]
enabled = false
disabled_tools = ["t"] # off
custom = "keep"

# the other server
[mcp_servers.other]
command = "x"
"""


EVERY_DIALECT = pytest.mark.parametrize(
    ("name", "text"),
    [
        ("mcp.json", MCP_JSON),
        (".vscode/mcp.json", VSCODE),
        (".gemini/settings.json", GEMINI),
        ("config.toml", CODEX),
    ],
)


def _store(tmp_path: Path, name: str, text: str) -> ConfigStore:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return ConfigStore(path)


def test_mcp_json_update_keeps_every_other_key(tmp_path: Path) -> None:
    store = _store(tmp_path, "mcp.json", MCP_JSON)
    config = store.apply(UpdateServer("s", NEW_STDIO, request_timeout=30))
    server = config.server("s")
    assert server is not None
    assert server.spec == NEW_STDIO
    assert server.disabled
    assert server.tools.exclude == ("t",)
    assert server.request_timeout == 30
    text = store.path.read_text()
    assert '"custom": {"keep": [1, 2]}' in text
    assert '"tools": {"exclude": ["t"]}' in text
    # Changed keys keep their place; new ones follow.
    assert text.index('"command": "uvx"') < text.index('"args"') < text.index('"tools"')
    assert '"requestTimeout": 30' in text
    assert '"other": {"command": "x"}' in text


def test_mcp_json_switch_transport_drops_the_other_transports_keys() -> None:
    document = {
        "mcpServers": {
            "s": {"url": "http://h/sse", "headers": {"A": "b"}, "oauth": {"scopes": ["x"]}, "u": 1}
        }
    }
    result = apply_edit(document, UpdateServer("s", StdioSpec(command="run")))
    assert result["mcpServers"]["s"] == {"command": "run", "u": 1}
    back = apply_edit(result, UpdateServer("s", HttpSpec(url="http://h/sse", transport="sse")))
    assert back["mcpServers"]["s"] == {"u": 1, "url": "http://h/sse", "type": "sse"}


def test_mcp_json_url_change_keeps_oauth_and_headers_as_written() -> None:
    entry = {"url": "http://h/mcp", "headers": {"A": "b"}, "oauth": {"clientId": "c"}}
    result = apply_edit(
        {"mcpServers": {"s": entry}},
        UpdateServer("s", HttpSpec(url="http://h2/mcp", headers={"A": "b"})),
    )
    assert result["mcpServers"]["s"] == {**entry, "url": "http://h2/mcp"}
    assert entry["url"] == "http://h/mcp"  # the input document is not changed


def test_vscode_update_keeps_comments_env_file_and_commas(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("FROM_FILE=1\n")
    store = _store(tmp_path, ".vscode/mcp.json", VSCODE)
    loaded = store.load().server("s")
    assert loaded is not None and isinstance(loaded.spec, StdioSpec)
    # The form hands back the env it was shown (the file's values included) plus one more.
    spec = StdioSpec(command="new", args=("a",), env={**loaded.spec.env, "TZ": "UTC"})
    server = store.apply(UpdateServer("s", spec)).server("s")
    assert server is not None and server.spec == spec
    text = store.path.read_text()
    assert text.startswith("// my servers\n")
    assert "// the one we edit" in text
    assert '"command": "new", // old command' in text
    assert '"envFile": "${workspaceFolder}/.env",' in text
    assert '"custom": 1,' in text
    # The env file's values stay in the env file.
    assert "FROM_FILE" not in text
    assert '"TZ": "UTC"' in text


def test_vscode_update_to_url_writes_its_type(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("FROM_FILE=1\n")
    store = _store(tmp_path, ".vscode/mcp.json", VSCODE)
    server = store.apply(UpdateServer("s", NEW_HTTP)).server("s")
    assert server is not None and server.spec == NEW_HTTP
    text = store.path.read_text()
    assert '"type": "http"' in text
    assert '"command"' not in text and '"args"' not in text
    assert '"envFile"' not in text  # a command server's: the entry would not load with it
    assert '"tools": {"exclude": ["t"]}' in text


def test_gemini_update_keeps_its_spelling_where_unchanged(tmp_path: Path) -> None:
    store = _store(tmp_path, ".gemini/settings.json", GEMINI)
    loaded = store.load().server("s")
    assert loaded is not None and isinstance(loaded.spec, StdioSpec)
    spec = loaded.spec.model_copy(update={"command": "new", "args": ("x",)})
    server = store.apply(UpdateServer("s", spec, request_timeout=2.5)).server("s")
    assert server is not None and server.spec == spec
    assert server.disabled and server.tools.exclude == ("t",)
    text = store.path.read_text()
    assert '"env": {"TOKEN": "$TOKEN"}' in text  # not rewritten as ${TOKEN}
    assert '"trust": true, // keep me' in text
    assert '"timeout": 2500' in text
    assert '"mcp": {"excluded": ["s"]}' in text and "// settings" in text


def test_gemini_update_spells_the_transport_its_way(tmp_path: Path) -> None:
    store = _store(tmp_path, ".gemini/settings.json", GEMINI)
    store.apply(UpdateServer("s", NEW_HTTP))
    text = store.path.read_text()
    # As ``gemini mcp add --transport http`` writes a URL: ``url`` with its ``type``.
    assert '"url": "https://example.test/mcp"' in text and '"type": "http"' in text
    assert '"command"' not in text and '"env"' not in text
    sse = HttpSpec(url="https://example.test/events", transport="sse")
    server = store.apply(UpdateServer("s", sse)).server("s")
    assert server is not None and server.spec == sse
    assert '"url": "https://example.test/events"' in store.path.read_text()
    assert '"type": "sse"' in store.path.read_text()
    assert '"httpUrl"' not in store.path.read_text()
    with pytest.raises(ConfigError, match="no connect timeout"):
        store.apply(UpdateServer("s", sse, connect_timeout=5))


def test_codex_update_keeps_comments_and_other_keys(tmp_path: Path) -> None:
    store = _store(tmp_path, "config.toml", CODEX)
    spec = StdioSpec(command="new", args=("a",), env={"TOKEN": "${TOKEN}"})
    server = store.apply(UpdateServer("s", spec, connect_timeout=20)).server("s")
    assert server is not None and server.spec == spec
    assert server.disabled and server.tools.exclude == ("t",)
    assert server.connect_timeout == 20
    text = store.path.read_text()
    assert text == CODEX.replace('command = "old"', 'command = "new"').replace(
        'custom = "keep"\n', 'custom = "keep"\nstartup_timeout_sec = 20\n'
    )


def test_codex_update_to_url_maps_headers_back(tmp_path: Path) -> None:
    store = _store(tmp_path, "config.toml", CODEX)
    spec = HttpSpec(url="https://h/mcp", headers={"Authorization": "Bearer ${T}", "X": "y"})
    server = store.apply(UpdateServer("s", spec)).server("s")
    assert server is not None and server.spec == spec
    text = store.path.read_text()
    assert 'bearer_token_env_var = "T"' in text
    assert "command" not in text.split("[mcp_servers.other]")[0]
    assert "env_vars" not in text
    assert "# the other server\n[mcp_servers.other]" in text
    assert 'disabled_tools = ["t"] # off' in text
    with pytest.raises(ConfigError, match="SSE"):
        store.apply(UpdateServer("s", HttpSpec(url="https://h/x", transport="sse")))


@EVERY_DIALECT
def test_update_of_a_missing_server_names_the_file_and_server(
    tmp_path: Path, name: str, text: str
) -> None:
    store = _store(tmp_path, name, text)
    with pytest.raises(ConfigError) as caught:
        store.apply(UpdateServer("nope", NEW_STDIO))
    assert str(store.path) in str(caught.value)
    assert "'nope'" in str(caught.value)
    assert store.path.read_text() == text


@EVERY_DIALECT
def test_update_with_the_same_spec_changes_no_byte(tmp_path: Path, name: str, text: str) -> None:
    (tmp_path / ".env").write_text("FROM_FILE=1\n")
    store = _store(tmp_path, name, text)
    loaded = store.load().server("s")
    assert loaded is not None and loaded.spec is not None
    store.apply(UpdateServer("s", loaded.spec))
    assert store.path.read_text() == text
