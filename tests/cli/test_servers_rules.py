"""One rule book for a new entry: the CLI's ``add``, the picker's form and the bridge agree."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

import pytest

from agentty_tui.bridge import Bridge
from agentty_tui.cli.servers import _spec_from
from agentty_tui.config import ConfigStore, operations
from agentty_tui.config.entry_rules import EntryError
from agentty_tui.errors import OperationError, UsageError
from agentty_tui.model import HttpSpec, PluginConfig, ServerSpec, StdioSpec
from agentty_tui.ui.server_form import Field, FormError, connection_spec, validate_add
from tests.cli.test_commands import run
from tests.conftest import WriteConfig

NAME_RULE = "Use up to 64 letters, digits, '.', '_' or '-' in the name."


@pytest.fixture
def config(write_config: WriteConfig) -> Path:
    return write_config({"kept": {"command": "x"}})


@pytest.mark.parametrize(
    ("args", "stderr"),
    [
        (
            ["my server", "--", sys.executable],
            f"agentty-tui: cannot add 'my server': {NAME_RULE}\n",
        ),
        (["x" * 65, "--", sys.executable], f"agentty-tui: cannot add '{'x' * 65}': {NAME_RULE}\n"),
        (
            ["web", "--url", "notaurl"],
            "agentty-tui: cannot add 'web': "
            "The URL must start with http:// or https:// and name a host.\n",
        ),
        (
            ["clock", "--", "TZ=UTC", "mcp-server-time"],
            "agentty-tui: cannot add 'clock': 'TZ=UTC' sets an environment variable, it is not "
            "a command: put TZ=UTC under env and start the command with 'mcp-server-time'.\n",
        ),
        (
            ["kept", "--", sys.executable],
            "agentty-tui: cannot add 'kept': A server named 'kept' already exists.\n",
        ),
    ],
    ids=["space", "too long", "not a URL", "env prefix", "taken"],
)
def test_add_refuses_what_the_rules_refuse_and_writes_nothing(
    config: Path, args: list[str], stderr: str
) -> None:
    before = config.read_bytes()
    result = run("add", "--config", str(config), *args)
    assert (result.returncode, result.stdout, result.stderr) == (2, "", stderr)
    assert config.read_bytes() == before


def test_add_of_an_sse_url_writes_sse_as_the_loader_reads_it(config: Path) -> None:
    result = run("add", "legacy", "--url", "http://127.0.0.1:9/sse", "--config", str(config))
    assert (result.returncode, result.stderr) == (0, "")
    entry = json.loads(config.read_text())["mcpServers"]["legacy"]
    assert entry == {"url": "http://127.0.0.1:9/sse", "type": "sse"}
    loaded = ConfigStore(config).load().server("legacy")
    assert loaded is not None and loaded.spec == HttpSpec(
        url="http://127.0.0.1:9/sse", transport="sse"
    )


def _cli(name: str, command: list[str], url: str) -> tuple[str, ServerSpec] | str:
    """What ``agentty-tui add`` decides, without a process: the spec, or the message."""
    args = argparse.Namespace(url=url or None, argv=command, env=[], cwd=None, header=[], sse=False)
    try:
        spec = _spec_from(args)
        operations.add_server(PluginConfig(), name, spec)
    except EntryError as exc:
        return exc.message
    except UsageError as exc:
        return str(exc)
    return name, spec


def _form(name: str, command: list[str], url: str) -> tuple[str, ServerSpec] | str:
    try:
        return validate_add(name, " ".join(command), url, ())
    except FormError as exc:
        return exc.message


@pytest.mark.parametrize(
    ("name", "command", "url"),
    [
        ("ok", [sys.executable, "-V"], ""),
        ("a.b_c-1", [sys.executable], ""),
        ("my server", [sys.executable], ""),
        ("", [sys.executable], ""),
        ("x" * 64, [sys.executable], ""),
        ("x" * 65, [sys.executable], ""),
        ("ünï", [sys.executable], ""),
        ("web", [], "http://127.0.0.1:9/mcp"),
        ("legacy", [], "http://127.0.0.1:9/sse/"),
        ("web", [], "notaurl"),
        ("web", [], "ftp://h/mcp"),
        ("clock", ["TZ=UTC", sys.executable], ""),
    ],
)
def test_the_form_and_the_command_line_decide_alike(
    name: str, command: list[str], url: str
) -> None:
    assert _form(name, command, url) == _cli(name, command, url)


def test_the_rules_transport_matches_the_loaders(write_config: WriteConfig) -> None:
    url = "http://127.0.0.1:9/sse/"
    path = write_config({"legacy": {"url": url}})
    loaded = ConfigStore(path).load().server("legacy")
    assert loaded is not None
    assert validate_add("legacy", "", url, ()) == ("legacy", loaded.spec)


@pytest.mark.anyio
async def test_the_bridge_refuses_a_name_the_form_refuses(
    write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config({})
    before = path.read_bytes()
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        with pytest.raises(OperationError, match=r"^Use up to 64 letters"):
            await bridge.plugin_add("my server", StdioSpec(command=sys.executable))
    assert path.read_bytes() == before


def _cli_pairs(env: dict[str, str], headers: dict[str, str]) -> str | None:
    """The rule's words when ``add`` refuses these env or headers (``None``: accepted)."""
    url = "http://127.0.0.1:9/mcp" if headers else None
    args = argparse.Namespace(
        url=url,
        argv=[] if url else [sys.executable],
        env=[f"{key}={value}" for key, value in env.items()],
        cwd=None,
        header=[f"{key}: {value}" for key, value in headers.items()],
        sse=False,
    )
    try:
        _spec_from(args)
    except EntryError as exc:
        return exc.message
    return None


def _form_pairs(env: dict[str, str], headers: dict[str, str]) -> str | None:
    """The form's message when it refuses the same env or headers, typed into its fields."""
    values: dict[Field, str] = {
        "command": "" if headers else shlex.quote(sys.executable),
        "url": "http://127.0.0.1:9/mcp" if headers else "",
        "env": " ".join(shlex.quote(f"{key}={value}") for key, value in env.items()),
        "headers": " ".join(shlex.quote(f"{key}: {value}") for key, value in headers.items()),
    }
    try:
        connection_spec("srv", values, ())
    except FormError as exc:
        return exc.message
    return None


@pytest.mark.parametrize(
    ("env", "headers", "refused"),
    [
        ({}, {"X Team": "a"}, True),
        ({}, {"X-Key": "a\x01b"}, True),
        ({"A\x00B": "1"}, {}, True),
        ({"TZ": "UTC"}, {}, False),
        ({}, {"X-Team": "a"}, False),
    ],
    ids=[
        "header name with a space",
        "control char in a header",
        "NUL in an env name",
        "ok env",
        "ok header",
    ],
)
def test_the_form_and_add_refuse_the_same_env_and_headers_in_the_same_words(
    env: dict[str, str], headers: dict[str, str], refused: bool
) -> None:
    cli, form = _cli_pairs(env, headers), _form_pairs(env, headers)
    assert (cli is not None, form is not None) == (refused, refused)
    if cli is None or form is None:
        return
    # The form names the header as the command line names the flag; the rule's words are one.
    key = next(iter(headers or env))
    assert form == (f"Header {key!r}: {cli}." if headers else cli)
    assert "a\x01b" not in form + cli
