"""``${VAR}`` expansion in server specs, at connect time only."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import anyio
import pytest

from agentty_tui.bridge import Bridge
from agentty_tui.bridge.expand import ExpansionError, expand_spec, redactor_for
from agentty_tui.config import ConfigStore
from agentty_tui.model import HttpSpec, StdioSpec
from tests.conftest import WriteConfig
from tests.helpers import stdio_entry
from tests.servers import plain_argv


def test_expands_every_field_of_a_stdio_spec() -> None:
    spec = StdioSpec(
        command="${BIN}/server",
        args=("--token", "${TOKEN}", "${MISSING:-fallback}", "$NOT_A_REFERENCE"),
        env={"KEY": "${TOKEN}", "EMPTY": "${EMPTY:-dflt}"},
        cwd="/tmp",
    )
    out = expand_spec(spec, {"BIN": "/opt", "TOKEN": "s3", "EMPTY": ""})
    assert out == StdioSpec(
        command="/opt/server",
        args=("--token", "s3", "fallback", "$NOT_A_REFERENCE"),
        env={"KEY": "s3", "EMPTY": "dflt"},
        cwd="/tmp",
    )
    assert spec.args[1] == "${TOKEN}"  # the original is untouched


def test_expands_url_and_headers() -> None:
    spec = HttpSpec(url="http://${HOST:-localhost}/mcp", headers={"Authorization": "Bearer ${T}"})
    out = expand_spec(spec, {"T": "abc"})
    assert out == HttpSpec(url="http://localhost/mcp", headers={"Authorization": "Bearer abc"})


def test_unset_variable_names_itself_and_where() -> None:
    with pytest.raises(ExpansionError, match=r"'TOKEN' is not set \(it is used in env 'KEY'\)"):
        expand_spec(StdioSpec(command="x", env={"KEY": "${TOKEN}"}), {})


@pytest.mark.anyio
async def test_bridge_expands_at_connect_and_never_writes_back(
    write_config: WriteConfig, log_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTTY_TEST_NAME", "from-env")
    path = write_config(
        {
            "plain": stdio_entry(plain_argv("--name", "${AGENTTY_TEST_NAME}")),
            "unset": stdio_entry(plain_argv("--name", "${AGENTTY_TEST_UNSET}")),
        }
    )
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        model = await bridge.settled(20)
        plain, unset = model.servers
        assert plain.info is not None and plain.info.name == "from-env"
        assert unset.status == "failed"
        assert "'AGENTTY_TEST_UNSET' is not set" in (unset.error or "")
        await bridge.tool_set_enabled("plain", "echo", False)
    written = json.loads(path.read_text())["mcpServers"]["plain"]["args"]
    assert written[-1] == "${AGENTTY_TEST_NAME}"


def test_an_expanded_header_is_checked_and_named_without_its_value() -> None:
    spec = HttpSpec(url="http://h/mcp", headers={"X-Key": "${A}-${B}"})
    with pytest.raises(ExpansionError) as caught:
        expand_spec(spec, {"A": "planted", "B": "SECRET\n"})
    assert str(caught.value).startswith(
        "header 'X-Key' after expanding ${A}, ${B}: its value ends with a line break"
    )
    assert "SECRET" not in str(caught.value)


def test_the_redactor_turns_expansions_back_into_references() -> None:
    template = HttpSpec(url="http://u:${PW}@h:${PORT}/mcp?token=lit-token-1&x=${X}")
    environ = {"PW": "pw-secret-2", "PORT": "port-secret-3", "X": "x-value-4"}
    expanded = expand_spec(template, environ)
    assert isinstance(expanded, HttpSpec)
    redactor = redactor_for(template, expanded, environ)
    assert redactor.scrub(f"for url {expanded.url!r}") == (
        "for url 'http://•:${PW}@h:${PORT}/mcp?token=••••••••&x=${X}'"
    )
    assert redactor.scrub("Invalid port: 'port-secret-3'") == "Invalid port: '${PORT}'"
    assert redactor.scrub("a pw-secret-2 and a lit-token-1") == "a •••••••• and a ••••••••"


@pytest.mark.anyio
async def test_expanded_values_never_reach_the_spawn_line_or_an_error(
    tmp_path: Path, write_config: WriteConfig, log_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A folder whose name is the secret holds the command, so the spawn line has to show it.
    secret_dir = tmp_path / "dir-planted-SECRET-6161"
    secret_dir.mkdir()
    wrapper = secret_dir / "server"
    wrapper.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("AGENTTY_SECRET_DIR", str(secret_dir))
    monkeypatch.setenv("AGENTTY_SECRET_ARG", "arg-planted-SECRET-7272")
    monkeypatch.setenv("AGENTTY_SECRET_PORT", "port-planted-SECRET-8383")
    monkeypatch.setenv("AGENTTY_SECRET_HEADER", "Bearer hdr-planted-SECRET-9494\n")
    script = plain_argv()[1]
    path = write_config(
        {
            "named": {
                "command": "${AGENTTY_SECRET_DIR}/server",
                "args": [script, "--name", "${AGENTTY_SECRET_ARG}"],
            },
            # argparse refuses the value and quotes it on stderr, which the error's tail shows.
            "arg": stdio_entry([sys.executable, script, "--port", "${AGENTTY_SECRET_ARG}"]),
            "port": {"url": "http://127.0.0.1:${AGENTTY_SECRET_PORT}/mcp"},
            "header": {
                "url": "http://127.0.0.1:9/mcp",
                "headers": {"Authorization": "${AGENTTY_SECRET_HEADER}"},
            },
        }
    )
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        model = await bridge.settled(20)
    named, arg, port, header = model.servers
    assert named.status == "connected", named.error
    assert named.info is not None and named.info.name == "arg-planted-SECRET-7272"  # it did run
    assert arg.status == port.status == header.status == "failed"
    assert "argument --port: invalid int value: '${AGENTTY_SECRET_ARG}'" in (arg.error or "")
    assert port.error == "InvalidURL: Invalid port: '${AGENTTY_SECRET_PORT}'"
    assert (header.error or "").startswith(
        "header 'Authorization' after expanding ${AGENTTY_SECRET_HEADER}: "
        "its value ends with a line break"
    )
    for server in model.servers:
        assert "planted-SECRET" not in (server.error or ""), server.name
    # Our own lines of the logs (spawn lines and notes); the rest is what a server wrote itself.
    texts = [await log.read_text() async for log in anyio.Path(log_dir).rglob("*.log")]
    ours = [
        line
        for text in texts
        for line in text.splitlines()
        if line.startswith(("---", "[agentty]"))
    ]
    assert any(line.endswith(" spawn ${AGENTTY_SECRET_DIR}/server (3 args)") for line in ours)
    assert [line for line in ours if "planted-SECRET" in line] == []


@pytest.mark.anyio
async def test_a_server_echoing_its_expanded_env_and_args_leaves_no_secret_in_its_log(
    write_config: WriteConfig, log_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTTY_SECRET_ENV", "env-planted-SECRET-1212")
    monkeypatch.setenv("AGENTTY_SECRET_NAME", "name-planted-SECRET-3434")
    argv = plain_argv("--echo-env", "TOKEN", "--name", "${AGENTTY_SECRET_NAME}")
    entry = stdio_entry(argv) | {"env": {"TOKEN": "${AGENTTY_SECRET_ENV}"}}
    path = write_config({"echo": entry})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        model = await bridge.settled(20)
        assert model.servers[0].status == "connected", model.servers[0].error
    (log,) = [await log.read_text() async for log in anyio.Path(log_dir).rglob("*.log")]
    assert "TOKEN=${AGENTTY_SECRET_ENV} name=${AGENTTY_SECRET_NAME}\n" in log, log
    assert "planted-SECRET" not in log
