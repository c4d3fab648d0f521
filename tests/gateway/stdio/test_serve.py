"""``agentty-tui serve`` as a host runs it: a real process on stdio, real servers under it.

The host is the mcp SDK's client (both protocol eras); the config is a temporary file of
light test servers, one slow to start and one that cannot start; toggles come from
``agentty-tui disable`` / ``enable`` run as processes of their own on the same file.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from anyio.streams.buffered import BufferedByteReceiveStream
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.conftest import WriteConfig
from tests.fake_home import small_fake_home
from tests.gateway.hosts import MODES, Notices, listening
from tests.helpers import process_alive, stdio_entry
from tests.processes import faulty
from tests.servers import gated_argv, plain_argv

pytestmark = pytest.mark.anyio

SLOW_START = 1.5
"""Seconds the slow server sleeps before it starts."""


def environment() -> dict[str, str]:
    """What a host gives the gateway here: a plain environment with the test's own folders."""
    # PYTHONPATH: a worktree under test runs its own code in the processes it starts.
    keep = ("HOME", "PATH", "PYTHONPATH", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR")
    return {name: os.environ[name] for name in keep if name in os.environ}


def serve_argv(config: Path, *extra: str, shared: bool = False) -> list[str]:
    """``serve`` on ``config`` with a bridge of its own (``shared``: through the daemon)."""
    how = "--shared" if shared else "--no-daemon"
    return [sys.executable, "-m", "agentty_tui", "serve", how, "--config", str(config), *extra]


@pytest.fixture
def config(write_config: WriteConfig) -> Path:
    slow = " ".join(plain_argv("--name", "slow"))
    return write_config(
        {
            "alpha": stdio_entry(plain_argv("--name", "alpha")),
            "slow": {"command": "/bin/sh", "args": ["-c", f"sleep {SLOW_START}; exec {slow}"]},
            "broken": {"command": "/nonexistent/agentty-test-server"},
        }
    )


@asynccontextmanager
async def host(config: Path, tmp_path: Path, mode: str, notices: Notices) -> AsyncIterator[Client]:
    """The gateway started as a host starts it; its stderr must stay empty."""
    errors = tmp_path / "serve-stderr.txt"
    params = StdioServerParameters(
        command=sys.executable, args=serve_argv(config)[1:], env=environment(), cwd=tmp_path
    )
    with errors.open("w") as errlog:
        transport = stdio_client(params, errlog=errlog)
        client = Client(transport, mode=mode, message_handler=notices.handler, cache=None)
        async with client, listening(client, notices):
            yield client
    assert errors.read_text() == ""


def text_of(result: types.CallToolResult) -> str:
    first = result.content[0]
    assert isinstance(first, types.TextContent)
    return first.text


async def toggle(verb: str, config: Path, *words: str) -> None:
    """``agentty-tui VERB --config CONFIG WORDS`` as a process of its own."""
    done = await anyio.run_process(
        [sys.executable, "-m", "agentty_tui", verb, "--config", str(config), *words],
        env={**os.environ},
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()


async def test_lists_once_the_slow_server_is_up_calls_and_names_the_failed_one(
    config: Path, tmp_path: Path
) -> None:
    notices = Notices()
    async with host(config, tmp_path, "legacy", notices) as client:
        instructions = client.instructions or ""
        assert "broken is down" in instructions and "command not found" in instructions
        assert "slow" not in instructions  # it was waited for
        listed = await client.list_tools()
        names = [tool.name for tool in listed.tools]
        assert names == [
            f"{server}__{tool}"
            for server in ("alpha", "slow")
            for tool in ("echo", "add", "pid", "sleep")
        ]
        echo = next(tool for tool in listed.tools if tool.name == "alpha__echo")
        assert echo.description == "Return the given text unchanged."
        assert echo.input_schema["required"] == ["text"]
        result = await client.call_tool("alpha__echo", {"text": "hi"})
        assert not result.is_error and text_of(result) == "hi"
        added = await client.call_tool("slow__add", {"a": 2, "b": 3})
        assert added.structured_content == {"result": 5}
        unknown = await client.call_tool("broken__anything", {})
        assert unknown.is_error and "no tool named broken__anything" in text_of(unknown)


@pytest.mark.parametrize("mode", MODES)
async def test_a_toggle_from_another_process_reaches_the_host_once_each_way(
    mode: str, config: Path, tmp_path: Path
) -> None:
    notices = Notices()
    async with host(config, tmp_path, mode, notices) as client:
        assert "alpha__add" in {tool.name for tool in (await client.list_tools()).tools}
        await toggle("disable", config, "alpha", "add")
        await notices.until(1)
        assert "alpha__add" not in {tool.name for tool in (await client.list_tools()).tools}
        refused = await client.call_tool("alpha__add", {"a": 1, "b": 1})
        assert refused.is_error
        assert "switched off" in text_of(refused)
        assert "agentty-tui enable alpha add" in text_of(refused)
        await toggle("enable", config, "alpha", "add")
        await notices.until(2)
        listed = await client.list_tools()
        assert "alpha__add" in {tool.name for tool in listed.tools}
        added = await client.call_tool("alpha__add", {"a": 1, "b": 1})
        assert added.structured_content == {"result": 2}
        assert notices.count == 2


async def test_stdin_closed_ends_serve_and_every_server_it_started(
    write_config: WriteConfig, tmp_path: Path
) -> None:
    # One server that ignores its stdin's end and SIGTERM (so the parent-death signal alone
    # would not end it): only the bridge's orderly stop, which ends in SIGKILL, does.
    config = write_config(
        {
            "alpha": stdio_entry(plain_argv("--name", "alpha")),
            "stubborn": stdio_entry(faulty("hang-call", "--stubborn")),
        }
    )
    requests: list[dict[str, Any]] = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test-host", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        *(
            {"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": {"name": name}}
            for number, name in ((2, "alpha__pid"), (3, "stubborn__pid"))
        ),
    ]
    async with await anyio.open_process(
        serve_argv(config, "--wait", "20"), env=environment(), cwd=tmp_path
    ) as process:
        assert process.stdin is not None and process.stdout is not None
        await process.stdin.send(b"".join(json.dumps(r).encode() + b"\n" for r in requests))
        reader = BufferedByteReceiveStream(process.stdout)
        answers: dict[int, types.CallToolResult] = {}
        with anyio.fail_after(30):
            while len(answers) < 3:
                line = json.loads(await reader.receive_until(b"\n", 1 << 20))
                assert line["jsonrpc"] == "2.0"  # nothing but the protocol on stdout
                if line["id"] != 1:
                    answers[line["id"]] = types.CallToolResult.model_validate(line["result"])
                else:
                    answers[1] = types.CallToolResult(content=[])
        pids = [int(text_of(answers[i])) for i in (2, 3)]
        assert all(process_alive(pid) for pid in pids)
        await process.stdin.aclose()
        with anyio.fail_after(20):
            status = await process.wait()
        assert status == 0
        assert process.stderr is not None
        with anyio.fail_after(5):
            assert b"".join([chunk async for chunk in process.stderr]) == b""
    assert not any(process_alive(pid) for pid in pids)


async def test_a_servers_own_change_and_its_death_reach_the_host(
    write_config: WriteConfig, tmp_path: Path
) -> None:
    config = write_config(
        {
            "godot": stdio_entry(gated_argv("--name", "godot")),
            "alpha": stdio_entry(plain_argv("--name", "alpha")),
        }
    )
    notices = Notices()
    async with host(config, tmp_path, "legacy", notices) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert "godot__enable_toolset" in names and "godot__scene_open" not in names
        # The server's own tools/list_changed, after a call through the gateway.
        await client.call_tool("godot__enable_toolset", {"name": "scene"})
        await notices.until(1)
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert {"godot__scene_open", "godot__scene_save"} <= names
        # A server that dies: its tools go, and a call of one says why.
        pid = int(text_of(await client.call_tool("alpha__pid", {})))
        os.kill(pid, signal.SIGKILL)
        await notices.until(2)
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert not any(name.startswith("alpha__") for name in names)
        refused = await client.call_tool("alpha__echo", {"text": "x"})
        assert refused.is_error and "server alpha is down" in text_of(refused)
        assert notices.count == 2


async def test_a_host_gets_what_it_reaches_through_agentty_and_never_what_it_runs_itself(
    tmp_path: Path,
) -> None:
    """Before ``connect claude``, Claude Code starts its own server itself: serving it too
    would give its model those tools twice, so only agentty's own are served. After, its
    server is behind the gateway and served."""
    fake = small_fake_home(tmp_path, sources=("agentty-user", "claude-user", "gemini-user"))
    env = fake.process_env(environment())

    async def served(*extra: str) -> set[str]:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "agentty_tui", "serve", "--no-daemon", *extra],
            env=env,
            cwd=fake.cwd,
        )
        async with Client(params, mode="legacy", cache=None) as client:
            return {tool.name.split("__")[0] for tool in (await client.list_tools()).tools}

    assert await served("--host", "claude") == {"agentty-user-1"}
    assert await served() == {"agentty-user-1", "claude-user-1", "gemini-user-1"}
    connected = await anyio.to_thread.run_sync(
        lambda: subprocess.run(
            [sys.executable, "-m", "agentty_tui", "connect", "claude", "--yes"],
            env=env,
            cwd=fake.cwd,
            capture_output=True,
            text=True,
            timeout=60,
        )
    )
    assert connected.returncode == 0, connected.stderr
    assert await served("--host", "claude") == {"agentty-user-1", "claude-user-1"}
    assert await served("--host", "gemini") == {"agentty-user-1"}
