"""Misbehaving servers: each row says what happened, and the other servers keep working."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import anyio
import pytest

from agentty_tui.bridge import Bridge
from agentty_tui.bridge.logs import ServerLog
from agentty_tui.catalog import project_catalog
from agentty_tui.config import ConfigStore
from agentty_tui.errors import OperationError
from agentty_tui.model import PluginModel, ServerState
from tests.conftest import WriteConfig
from tests.helpers import process_alive, stdio_entry, wait_until_gone
from tests.servers import plain_argv, python_server_argv, scalable_argv

pytestmark = pytest.mark.anyio

SETTLE = 20.0


def faulty(fault: str, *extra: str) -> list[str]:
    return python_server_argv("faulty_server.py", "--fault", fault, *extra)


def _server(model: PluginModel, name: str) -> ServerState:
    state = model.server(name)
    assert state is not None
    return state


async def _wait_for_log(path: Path, text: str) -> None:
    """Wait until a server has written ``text`` to its log (its stderr)."""
    log = anyio.Path(path)
    with anyio.fail_after(10):
        # A log file gives no event to wait on; reading it until the line shows is the way.
        while not (await log.exists() and text in await log.read_text(errors="replace")):  # noqa: ASYNC110
            await anyio.sleep(0.02)


async def _healthy(bridge: Bridge, name: str = "healthy") -> None:
    """The bystander still answers calls and takes toggles without a re-spawn."""
    pid = bridge.server_pid(name)
    result = await bridge.call_tool(name, "echo", {"text": "fine"})
    assert result.content[0].text == "fine"  # type: ignore[union-attr]
    await bridge.tool_set_enabled(name, "echo", False)
    await bridge.tool_set_enabled(name, "echo", True)
    assert bridge.server_pid(name) == pid


async def test_garbage_on_stdout_is_skipped(write_config: WriteConfig, log_dir: Path) -> None:
    path = write_config({"noisy": stdio_entry(faulty("garbage"))})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        model = await bridge.settled(SETTLE)
        assert _server(model, "noisy").status == "connected", _server(model, "noisy").error
        result = await bridge.call_tool("noisy", "noise")
        assert result.content[0].text == "noisy"  # type: ignore[union-attr]
        result = await bridge.call_tool("noisy", "ok")
        assert result.content[0].text == "ok"  # type: ignore[union-attr]
    log = ServerLog(log_dir, "noisy", path).path.read_text()
    # Each garbage line really came over the protocol pipe, before and between valid messages,
    # and was skipped (not merely written to stderr).
    for line in (
        "starting up... (not JSON-RPC)",
        "this line is not JSON-RPC",
        '{"jsonrpc": broken',
    ):
        assert f"ignored a stdout line that is not JSON-RPC: {line.encode()!r}" in log, line


async def test_invalid_tools_are_dropped_with_reasons(
    write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config({"bad": stdio_entry(faulty("bad-tools"))})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        model = await bridge.settled(SETTLE)
    bad = _server(model, "bad")
    assert bad.status == "connected"
    assert [t.bare for t in bad.tools] == ["ok", "pid", "dup", "fine.dotted-name_2"]
    assert bad.tool("dup").description == "first"  # type: ignore[union-attr]
    reasons = {d.name: d.reason for d in bad.dropped_tools}
    assert "characters MCP does not allow" in reasons["bad name!"]
    assert "200 characters long" in reasons["x" * 200]
    assert "more than once" in reasons["dup"]


async def test_grandchild_is_gone_after_remove_and_quit(
    write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config(
        {"forker": stdio_entry(faulty("grandchild")), "forker2": stdio_entry(faulty("grandchild"))}
    )
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        await bridge.settled(SETTLE)
        first = int((await bridge.call_tool("forker", "grandchild_pid")).content[0].text)  # type: ignore[union-attr]
        second = int((await bridge.call_tool("forker2", "grandchild_pid")).content[0].text)  # type: ignore[union-attr]
        assert process_alive(first) and process_alive(second)
        await bridge.plugin_remove("forker")
        await wait_until_gone(first)
        assert process_alive(second)
    await wait_until_gone(second)


async def test_call_killed_midway_fails_the_call_and_the_row(
    write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config(
        {"hang": stdio_entry(faulty("hang-call")), "healthy": stdio_entry(plain_argv())}
    )
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        await bridge.settled(SETTLE)
        pid = bridge.server_pid("hang")
        assert pid is not None
        failure: list[BaseException] = []

        async def call() -> None:
            try:
                await bridge.call_tool("hang", "hang")
            except OperationError as exc:
                failure.append(exc)

        with anyio.fail_after(10):
            async with anyio.create_task_group() as group:
                group.start_soon(call)
                await _wait_for_log(ServerLog(log_dir, "hang", path).path, "hang: call received")
                os.kill(pid, signal.SIGKILL)
        assert failure, "the call must fail, not hang"
        model = await bridge.wait_for(lambda m: _server(m, "hang").status == "failed", 5)
        assert "killed by signal 9" in (_server(model, "hang").error or "")
        await _healthy(bridge)


async def test_hung_call_times_out(write_config: WriteConfig, log_dir: Path) -> None:
    path = write_config({"hang": stdio_entry(faulty("hang-call"), requestTimeout=1)})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        await bridge.settled(SETTLE)
        with anyio.fail_after(10), pytest.raises(OperationError, match="within 1 s"):
            await bridge.call_tool("hang", "hang")


async def test_slow_tools_list_times_out_and_can_be_retried(
    write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config(
        {
            "slow": stdio_entry(faulty("slow-list", "--delay", "20"), connectTimeout=2),
            "healthy": stdio_entry(plain_argv()),
        }
    )
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        model = await bridge.settled(SETTLE)
        slow = _server(model, "slow")
        assert slow.status == "failed"
        assert "timed out after 2 s while connecting" in (slow.error or "")
        await _healthy(bridge)
        # a retry (restart) spawns it again and it fails the same way, without hurting others
        await bridge.restart("slow")
        model = await bridge.settled(SETTLE)
        assert _server(model, "slow").status == "failed"


async def test_restart_says_why_an_entry_cannot_start(
    write_config: WriteConfig, log_dir: Path
) -> None:
    """An invalid entry or a disabled one is refused with the reason; nothing is spawned."""
    path = write_config(
        {
            "invalid": {"args": ["no command"]},
            "parked": {**stdio_entry(plain_argv()), "disabled": True},
        }
    )
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        await bridge.settled(SETTLE)
        with pytest.raises(OperationError, match=r"'invalid' cannot start: .*command"):
            await bridge.restart("invalid")
        with pytest.raises(OperationError, match="'parked' is disabled in the config"):
            await bridge.restart("parked")
        assert bridge.live_pids == ()
        assert [s.status for s in bridge.snapshot.servers] == ["failed", "disabled"]


async def test_arguments_reach_the_server_verbatim(
    write_config: WriteConfig, log_dir: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "pwned"
    tricky = f"a; touch {marker} $(touch {marker}) `touch {marker}` | cat"
    path = write_config({"plain": stdio_entry(plain_argv("--name", tricky))})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        model = await bridge.settled(SETTLE)
    info = _server(model, "plain").info
    assert info is not None and info.name == tricky
    assert not marker.exists()


async def test_not_executable_and_silent_exit(
    write_config: WriteConfig, log_dir: Path, tmp_path: Path
) -> None:
    script = tmp_path / "server.sh"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o644)
    path = write_config(
        {
            "noexec": {"command": str(script)},
            "silent": {"command": plain_argv()[0], "args": ["-c", "import sys; sys.exit(7)"]},
            "healthy": stdio_entry(plain_argv()),
        }
    )
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        model = await bridge.settled(SETTLE)
        assert f"command is not executable: {str(script)!r}" in (
            _server(model, "noexec").error or ""
        )
        assert _server(model, "silent").error == "the server exited with status 7"
        await _healthy(bridge)


@pytest.mark.slow
async def test_ten_thousand_tools(write_config: WriteConfig, log_dir: Path) -> None:
    path = write_config(
        {"huge": stdio_entry(scalable_argv(10_000)), "healthy": stdio_entry(plain_argv())}
    )
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        model = await bridge.settled(60)
        huge = _server(model, "huge")
        assert huge.status == "connected"
        assert len(huge.tools) == 10_000
        model = await bridge.tool_set_enabled("huge", huge.tools[-1].bare, False)
        assert _server(model, "huge").enabled_count == 9_999
        catalog = project_catalog(model)
        assert len(catalog.tools) == 128
        assert catalog.over_by == 6 + 9_999 + 4 - 128
        await _healthy(bridge)


async def test_malformed_tools_cost_only_themselves(
    write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config({"raw": stdio_entry(python_server_argv("raw_server.py"))})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        model = await bridge.settled(SETTLE)
        raw = _server(model, "raw")
        assert raw.status == "connected", raw.error
        assert [t.bare for t in raw.tools] == ["ok", "also_ok"]
        reasons = {d.name: d.reason for d in raw.dropped_tools}
        assert set(reasons) == {"string_schema", "no_schema"}
        assert "root is not an object" in reasons["string_schema"]
        assert "inputSchema" in reasons["no_schema"]
        result = await bridge.call_tool("raw", "also_ok")
        assert result.content[0].text == "called also_ok"  # type: ignore[union-attr]


async def test_grandchild_is_gone_after_a_reload_replaced_its_server(
    write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config({"forker": stdio_entry(faulty("grandchild"))})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        await bridge.settled(SETTLE)
        result = await bridge.call_tool("forker", "grandchild_pid")
        grandchild = int(result.content[0].text)  # type: ignore[union-attr]
        write_config({"forker": stdio_entry(faulty("grandchild", "--delay", "1"))})
        await bridge.reload()
        await wait_until_gone(grandchild)


async def test_tools_listed_after_20_s_still_connect_within_the_default_timeout(
    write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config({"slow": stdio_entry(faulty("slow-list", "--delay", "20"))})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        assert bridge.snapshot.servers[0].status == "connecting"
        model = await bridge.settled(45)
    slow = _server(model, "slow")
    assert slow.status == "connected", slow.error
    assert [t.bare for t in slow.tools] == ["ok", "pid"]


async def test_an_entry_no_process_can_be_given_fails_alone_with_its_field_named(
    write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config(
        {
            "nul": stdio_entry([*plain_argv(), "a\x00b"]),
            "named": {**stdio_entry(plain_argv()), "env": {"A=B": "1"}},
            "surrogate": {**stdio_entry(plain_argv()), "env": {"K": "\ud800"}},
            "alpha": stdio_entry(plain_argv()),
        }
    )
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        model = await bridge.settled(SETTLE)
        nul, named, surrogate, alpha = model.servers
        assert alpha.status == "connected", alpha.error
        args = len(plain_argv())  # the NUL is in the argument after the plain server's own
        # Each message says the line of its field in the file.
        lines = path.read_text().splitlines()

        def line_of(name: str, key: str) -> int:
            entry = lines.index(f'    "{name}": {{')
            return next(i for i in range(entry, len(lines)) if f'"{key}":' in lines[i]) + 1

        assert nul.error == (
            f"{path}:{line_of('nul', 'args')}: server 'nul', field 'args[{args - 1}]': "
            "it holds a NUL character (\\u0000), which no process can be given"
        )
        assert named.error == (
            f"{path}:{line_of('named', 'env')}: server 'named', field 'env': 'A=B' cannot be an "
            "environment variable "
            "(no '=', NUL or lone surrogate; not empty)."
        )
        assert "server 'surrogate', field 'env.K': it holds a lone surrogate" in (
            surrogate.error or ""
        )
        assert [s.status for s in (nul, named, surrogate)] == ["failed"] * 3
        assert len(bridge.live_pids) == 1  # none of them was spawned
