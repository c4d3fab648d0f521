"""Parsing and validation of ``mcpServers`` JSON into ``PluginConfig``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentty_tui.config import ConfigStore, McpJsonDialect, validate_document, validate_server
from agentty_tui.errors import ConfigError
from agentty_tui.model import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_TOOL_BUDGET,
    HttpSpec,
    StdioSpec,
    ToolFilter,
)
from tests.conftest import WriteConfig

EXAMPLE: dict[str, Any] = {
    "toolBudget": 100,
    "nativeTools": [
        {
            "name": "read_file",
            "description": "Read a file",
            "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}},
        }
    ],
    "mcpServers": {
        "time": {
            "command": "mcp-server-time",
            "args": ["--local-timezone", "UTC"],
            "env": {"TZ": "UTC"},
            "cwd": "/tmp",
            "tools": {"exclude": ["convert_time"]},
            "connectTimeout": 30,
            "requestTimeout": 60,
        },
        "remote": {
            "url": "http://127.0.0.1:8000/mcp",
            "headers": {"Authorization": "Bearer x"},
            "type": "http",
        },
        "legacy": {"url": "http://127.0.0.1:8001/sse", "type": "sse"},
        "parked": {"command": "some-server", "disabled": True},
        "picky": {"command": "p", "type": "stdio", "tools": {"include": ["a", "b"]}},
    },
}


def _error(document: object) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        validate_document(document, path="/cfg/mcp.json")
    return caught.value


def _server_error(entry: object) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        validate_server("time", entry, path="/cfg/mcp.json")
    return caught.value


def test_an_invalid_entry_does_not_stop_the_others_loading() -> None:
    config = validate_document(
        {"mcpServers": {"good": {"command": "x"}, "bad": {"command": "x", "args": "-v"}}},
        path="/cfg/mcp.json",
    )
    good, bad = config.servers
    assert good.problem is None and good.spec is not None
    assert bad.spec is None
    assert bad.problem is not None
    assert bad.problem.startswith("/cfg/mcp.json: server 'bad', field 'args': ")


def test_example_parses_into_the_model(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(EXAMPLE, indent=2))
    config = ConfigStore(path).load()

    assert [s.name for s in config.servers] == ["time", "remote", "legacy", "parked", "picky"]
    assert config.tool_budget == 100
    assert config.native_tools is not None
    (native,) = config.native_tools
    assert native.name == "read_file"
    assert native.input_schema["properties"]["path"]["type"] == "string"

    time = config.servers[0]
    assert time.spec == StdioSpec(
        command="mcp-server-time", args=("--local-timezone", "UTC"), env={"TZ": "UTC"}, cwd="/tmp"
    )
    assert time.tools == ToolFilter(exclude=("convert_time",))
    assert (time.connect_timeout, time.request_timeout) == (30.0, 60.0)
    assert not time.disabled

    remote = config.servers[1]
    assert remote.spec == HttpSpec(
        url="http://127.0.0.1:8000/mcp", headers={"Authorization": "Bearer x"}
    )
    assert remote.spec.transport == "streamable-http"
    legacy = config.servers[2].spec
    assert isinstance(legacy, HttpSpec)
    assert legacy.transport == "sse"
    assert config.servers[3].disabled
    assert config.servers[4].tools == ToolFilter(include=("a", "b"))
    assert not config.servers[4].tools.allows("c")


def test_defaults_and_inferred_transports() -> None:
    config = validate_document(
        {"mcpServers": {"a": {"command": "x"}, "b": {"url": "http://h", "type": "streamable-http"}}}
    )
    assert config.tool_budget == DEFAULT_TOOL_BUDGET
    assert config.native_tools is None
    assert config.servers[0].connect_timeout == DEFAULT_CONNECT_TIMEOUT
    assert isinstance(config.servers[0].spec, StdioSpec)
    assert isinstance(config.servers[1].spec, HttpSpec)


def test_unknown_keys_are_ignored_by_the_model() -> None:
    config = validate_document(
        {
            "theme": "dark",
            "mcpServers": {"a": {"command": "x", "alwaysAllow": ["t"], "tools": {"note": 1}}},
        }
    )
    assert config.servers[0].spec == StdioSpec(command="x")


@pytest.mark.parametrize("text", ["", "  \n\t\n"])
def test_blank_and_missing_files_are_empty_configs(tmp_path: Path, text: str) -> None:
    assert ConfigStore(tmp_path / "absent" / "mcp.json").load().servers == ()
    path = tmp_path / "mcp.json"
    path.write_text(text)
    assert ConfigStore(path).load().servers == ()


def test_syntax_error_names_file_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{\n  "mcpServers": {\n    "a": {"command": "x",}\n  }\n}\n')
    with pytest.raises(ConfigError) as caught:
        ConfigStore(path).load()
    error = caught.value
    assert (error.line, error.column) == (3, 26)
    assert str(error).startswith(f"{path}:3:26: invalid JSON:")


def test_syntax_error_line_is_right_in_a_crlf_file_with_bom(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_bytes(b'\xef\xbb\xbf{\r\n  "a": 1,\r\n  oops\r\n}\r\n')
    with pytest.raises(ConfigError) as caught:
        ConfigStore(path).load()
    assert (caught.value.line, caught.value.column) == (3, 3)


def test_both_command_and_url_is_named() -> None:
    error = _server_error({"command": "x", "url": "http://h"})
    assert error.server == "time"
    assert "both 'command' and 'url'" in str(error)
    assert "server 'time'" in str(error)
    assert str(error).startswith("/cfg/mcp.json: ")


def test_neither_command_nor_url_is_named() -> None:
    error = _server_error({"args": ["x"]})
    assert error.server == "time"
    assert "neither 'command' nor 'url'" in str(error)


@pytest.mark.parametrize(
    ("entry", "field", "fragment"),
    [
        ({"command": "x", "args": "--flag"}, "args", "valid list"),
        ({"command": "x", "args": ["ok", 3]}, "args", "args[1]"),
        ({"command": "x", "env": {"TZ": 1}}, "env", "env.TZ"),
        ({"command": "x", "env": ["TZ=UTC"]}, "env", "valid dictionary"),
        ({"command": ""}, "command", "at least 1"),
        ({"command": "x", "disabled": "true"}, "disabled", "boolean"),
        ({"command": "x", "connectTimeout": 0}, "connectTimeout", "greater than 0"),
        ({"command": "x", "tools": {"exclude": "t"}}, "tools", "tools.exclude"),
        ({"url": "http://h", "type": "websocket"}, "type", "'stdio'"),
        ({"url": "http://h", "type": "stdio"}, "type", "needs a 'command'"),
        ({"command": "x", "type": "sse"}, "type", "needs a 'url'"),
        ({"url": "http://h", "args": ["x"]}, "args", "command server"),
        ({"command": "x", "headers": {"a": "b"}}, "headers", "url server"),
        # urlsplit's own ValueError would end the whole load: the entry is named instead.
        ({"url": "https://[host/mcp"}, "url", "is not a URL (Invalid IPv6 URL)"),
    ],
)
def test_schema_errors_name_server_and_field(entry: object, field: str, fragment: str) -> None:
    error = _server_error(entry)
    assert (error.server, error.field) == ("time", field)
    assert f"server 'time', field '{field}': " in str(error)
    assert fragment in str(error)


def test_server_entry_must_be_an_object() -> None:
    error = _server_error(["command"])
    assert error.server == "time"
    assert "must be an object, not an array" in str(error)


@pytest.mark.parametrize("servers", [[], "x", None])
def test_mcp_servers_must_be_an_object(servers: object) -> None:
    assert _error({"mcpServers": servers}).field == "mcpServers"


@pytest.mark.parametrize("budget", [-1, 1.5, "128", True, None])
def test_tool_budget_must_be_a_non_negative_int(budget: object) -> None:
    error = _error({"toolBudget": budget})
    assert error.field == "toolBudget"
    assert "non-negative integer" in str(error)


@pytest.mark.parametrize("budget", [-1, 1.5, "40000", True])
def test_tool_token_budget_must_be_a_non_negative_int(budget: object) -> None:
    """``toolTokenBudget`` is checked like ``toolBudget``, the error naming the key."""
    error = _error({"toolTokenBudget": budget})
    assert error.field == "toolTokenBudget"
    assert "non-negative integer" in str(error)


def test_tool_token_budget_is_read_and_absent_means_none() -> None:
    """The key's value reaches the config; without it there is no token budget."""
    assert validate_document({"mcpServers": {}, "toolTokenBudget": 0}).tool_token_budget == 0
    assert validate_document({"mcpServers": {}, "toolTokenBudget": 9000}).tool_token_budget == 9000
    assert validate_document({"mcpServers": {}}).tool_token_budget is None


def test_zero_budget_is_allowed() -> None:
    assert validate_document({"toolBudget": 0}).tool_budget == 0


def test_top_level_must_be_an_object() -> None:
    assert "top level must be an object" in str(_error([1]))


def test_native_tool_errors_name_the_entry() -> None:
    error = _error({"nativeTools": [{"name": "ok"}, {"description": "no name"}]})
    assert error.field == "nativeTools"
    assert "nativeTools[1].name" in str(error)


def test_dialect_parse_of_whitespace_is_empty() -> None:
    document, config = McpJsonDialect().parse(" \n", "p")
    assert document == {}
    assert config.servers == ()


@pytest.mark.parametrize(
    ("entry", "transport"),
    [
        ({"url": "http://h:1/sse"}, "sse"),
        ({"url": "http://h:1/sse/"}, "sse"),
        ({"url": "http://h:1/mcp"}, "streamable-http"),
        ({"url": "http://h:1/sse", "type": "http"}, "streamable-http"),  # an explicit type wins
        ({"url": "http://h:1/events", "type": "sse"}, "sse"),
    ],
)
def test_a_url_ending_in_sse_is_the_legacy_transport(entry: object, transport: str) -> None:
    spec = validate_server("web", entry).spec
    assert isinstance(spec, HttpSpec)
    assert spec.transport == transport


def test_oauth_settings_of_a_url_server() -> None:
    entry = {
        "url": "https://h/mcp",
        "oauth": {
            "clientId": "cli-1",
            "clientSecret": "${SECRET}",
            "scopes": ["read", "write"],
            "callbackPort": 33418,
            "clientMetadataUrl": "https://example.com/client.json",
        },
    }
    spec = validate_server("web", entry).spec
    assert isinstance(spec, HttpSpec) and spec.oauth is not None
    assert spec.oauth.client_id == "cli-1"
    assert spec.oauth.client_secret == "${SECRET}"  # expanded at connect time, never stored
    assert spec.oauth.scopes == ("read", "write")
    assert spec.oauth.callback_port == 33418
    assert spec.oauth.client_metadata_url == "https://example.com/client.json"
    assert validate_server("plain", {"url": "https://h/mcp"}).spec.oauth is None  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("entry", "fragment"),
    [
        ({"command": "x", "oauth": {}}, "'oauth' belongs to a url server"),
        ({"url": "https://h/mcp", "oauth": {"callbackPort": 0}}, "callbackPort"),
        ({"url": "https://h/mcp", "oauth": {"scopes": 3}}, "scopes"),
        ({"url": "https://h/mcp", "oauth": {"clientMetadataUrl": "http://h/c.json"}}, "https://"),
        ({"url": "https://h/mcp", "oauth": {"clientMetadataUrl": "https://h/"}}, "with a path"),
    ],
)
def test_bad_oauth_settings_are_named(entry: object, fragment: str) -> None:
    with pytest.raises(ConfigError, match="oauth") as caught:
        validate_server("web", entry)
    assert fragment in str(caught.value)


def test_oauth_client_secret_is_expanded_from_the_environment() -> None:
    from agentty_tui.bridge.expand import ExpansionError, expand_spec

    spec = validate_server(
        "web", {"url": "https://h/mcp", "oauth": {"clientId": "c", "clientSecret": "${S}"}}
    ).spec
    assert spec is not None
    expanded = expand_spec(spec, {"S": "hush"})
    assert isinstance(expanded, HttpSpec) and expanded.oauth is not None
    assert expanded.oauth.client_secret == "hush"
    with pytest.raises(ExpansionError, match=r"oauth\.clientSecret"):
        expand_spec(spec, {})


def test_roots_are_file_uris_with_relative_paths_against_the_files_folder(tmp_path: Path) -> None:
    path = tmp_path / "conf" / "mcp.json"
    entry = {"command": "x", "roots": ["src", "../data", "file:///srv/shared", "/abs/a b", "src"]}
    server = validate_server("s", entry, path=str(path))
    assert server.roots == (
        (tmp_path / "conf" / "src").as_uri(),
        (tmp_path / "data").as_uri(),
        "file:///srv/shared",
        "file:///abs/a%20b",
    )
    assert validate_server("s", {"command": "x"}).roots is None
    # Only the roots changed: the same connection (a reload keeps the process).
    assert server.connection_key() == validate_server("s", {"command": "x"}).connection_key()


@pytest.mark.parametrize(
    ("roots", "field", "fragment"),
    [
        (["ok", "https://example.com/x"], "roots[1]", "not https:// URLs"),
        (["file://host/share"], "roots[0]", "not an absolute file:// URI"),
        ([""], "roots[0]", "must not be empty"),
        (["a\x1b[31mb"], "roots[0]", "control character"),
        ("src", "roots", "valid list"),
        ([1], "roots", "valid string"),
        (["r"] * 65, "roots", "at most 64"),
    ],
)
def test_bad_roots_name_file_server_and_field(roots: object, field: str, fragment: str) -> None:
    with pytest.raises(ConfigError) as caught:
        validate_server("s", {"command": "x", "roots": roots}, path="/p/mcp.json")
    error = caught.value
    assert (error.path, error.server, error.field) == ("/p/mcp.json", "s", field)
    assert fragment in str(error)
    assert str(error).startswith("/p/mcp.json: server 's', field ")


def test_a_roots_problem_in_a_file_names_its_line(write_config: WriteConfig) -> None:
    path = write_config(
        {"good": {"command": "x", "roots": ["."]}, "bad": {"command": "x", "roots": ["ftp://h/"]}}
    )
    good, bad = ConfigStore(path).load().servers
    assert good.problem is None and good.roots == (path.parent.as_uri(),)
    line = path.read_text().splitlines().index('    "bad": {') + 3  # command, then roots
    assert bad.problem == (
        f"{path}:{line}: server 'bad', field 'roots[0]': "
        "'ftp://h/': roots are folders or file:// URIs, not ftp:// URLs"
    )


@pytest.mark.parametrize(
    ("entry", "key", "fragment"),
    [
        ({"url": "https://[h"}, "url", "field 'url'"),
        ({"command": "x", "url": "https://h/"}, None, "has both 'command' and 'url'"),
        ({"command": "x", "env": {"A": 1}}, "env", "field 'env'"),
        ({"url": "https://h/", "headers": {"A\nB": "v"}}, "headers", "field 'headers.A"),
        ({"nothing": "here"}, None, "server 'bad'"),
    ],
)
def test_any_entry_problem_in_a_file_names_its_line(
    write_config: WriteConfig, entry: dict[str, object], key: str | None, fragment: str
) -> None:
    """Every entry's problem says the line of the field it names, else of the entry."""
    path = write_config({"good": {"command": "x"}, "bad": entry})
    good, bad = ConfigStore(path).load().servers
    assert good.problem is None
    lines = path.read_text().splitlines()
    start = lines.index('    "bad": {')
    line = (
        start + 1
        if key is None
        else start
        + 1
        + next(i for i, text in enumerate(lines[start:]) if text.strip().startswith(f'"{key}"'))
    )
    assert bad.problem is not None and bad.problem.startswith(f"{path}:{line}: "), bad.problem
    assert fragment in bad.problem
