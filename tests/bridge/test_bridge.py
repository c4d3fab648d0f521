"""The bridge against real subprocess servers: the four operations, reloads, shutdown."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import anyio.lowlevel
import pytest

from agentty_tui.bridge import Bridge, ReloadReport
from agentty_tui.bridge.logs import ServerLog
from agentty_tui.catalog import project_catalog
from agentty_tui.config import ConfigStore
from agentty_tui.errors import OperationError, UnknownServerError, UnknownToolError
from agentty_tui.model import StdioSpec
from tests.conftest import WriteConfig
from tests.helpers import process_alive, stdio_entry, time_server_command, wait_until_gone
from tests.servers import PLAIN_TOOLS, light_argv, paged_argv, plain_argv, scalable_argv

pytestmark = pytest.mark.anyio

SETTLE = 20.0


def _file(path: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads(path.read_text())
    return data


async def test_connects_all_servers_and_lists_their_tools(
    write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config(
        {
            "alpha": stdio_entry(plain_argv("--name", "alpha")),
            "paged": stdio_entry(paged_argv()),
        }
    )
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        first = bridge.snapshot
        assert [s.status for s in first.servers] == ["connecting", "connecting"]
        model = await bridge.settled(SETTLE)
    alpha, paged = model.servers
    assert alpha.status == "connected"
    assert [t.bare for t in alpha.tools] == list(PLAIN_TOOLS)
    assert all(t.enabled for t in alpha.tools)
    assert alpha.info is not None and alpha.info.name == "alpha"
    # every page of a paginated tools/list, in advertised order
    assert [t.bare for t in paged.tools] == [f"paged_{i:02d}" for i in range(25)]


async def test_third_party_server_from_pypi(write_config: WriteConfig, log_dir: Path) -> None:
    command = time_server_command()
    assert command is not None, "mcp-server-time is a dev dependency"
    path = write_config(
        {
            "time": {
                "command": command,
                "args": ["--local-timezone", "UTC"],
                "tools": {"exclude": ["convert_time"]},
            }
        }
    )
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        model = await bridge.settled(SETTLE)
        time = model.servers[0]
        assert time.status == "connected", time.error
        assert {t.bare: t.enabled for t in time.tools} == {
            "get_current_time": True,
            "convert_time": False,
        }
        result = await bridge.call_tool("time", "get_current_time", {"timezone": "UTC"})
        assert not result.is_error
        assert "UTC" in json.dumps(result.model_dump(mode="json"))


async def test_toggle_writes_config_and_never_respawns(
    write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config({"alpha": stdio_entry(plain_argv())})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        await bridge.settled(SETTLE)
        pid = bridge.server_pid("alpha")
        assert pid is not None
        model = await bridge.tool_set_enabled("alpha", "echo", False)
        alpha = model.server("alpha")
        assert alpha is not None and alpha.tool("echo") is not None
        assert alpha.tool("echo").enabled is False  # type: ignore[union-attr]
        assert _file(path)["mcpServers"] == {
            "alpha": {**stdio_entry(plain_argv()), "tools": {"exclude": ["echo"]}}
        }
        assert "mcp__alpha__echo" not in {t.name for t in project_catalog(model).tools}
        assert bridge.server_pid("alpha") == pid
        assert alpha.status == "connected"

        model = await bridge.tool_set_enabled("alpha", "echo", True)
        assert model.server("alpha").tool("echo").enabled  # type: ignore[union-attr]
        assert "tools" not in _file(path)["mcpServers"]["alpha"]  # type: ignore[index]
        assert bridge.server_pid("alpha") == pid
        assert "mcp__alpha__echo" in {t.name for t in project_catalog(model).tools}


async def test_toggle_of_unknown_names_is_refused(write_config: WriteConfig, log_dir: Path) -> None:
    path = write_config({"alpha": stdio_entry(plain_argv())})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        await bridge.settled(SETTLE)
        before = path.read_bytes()
        with pytest.raises(UnknownServerError):
            await bridge.tool_set_enabled("nope", "echo", False)
        with pytest.raises(UnknownToolError):
            await bridge.tool_set_enabled("alpha", "nope", False)
        assert path.read_bytes() == before


async def test_add_starts_only_the_new_server(write_config: WriteConfig, log_dir: Path) -> None:
    path = write_config({"alpha": stdio_entry(plain_argv())})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        await bridge.settled(SETTLE)
        pid = bridge.server_pid("alpha")
        argv = plain_argv("--name", "beta")
        await bridge.plugin_add("beta", StdioSpec(command=argv[0], args=tuple(argv[1:])))
        assert list(_file(path)["mcpServers"]) == ["alpha", "beta"]  # type: ignore[call-overload]
        model = await bridge.settled(SETTLE)
        assert [s.name for s in model.servers] == ["alpha", "beta"]
        assert model.require_server("beta").status == "connected"
        assert bridge.server_pid("alpha") == pid
        with pytest.raises(OperationError):
            await bridge.plugin_add("beta", StdioSpec(command="x"))


async def test_remove_stops_the_server_process(write_config: WriteConfig, log_dir: Path) -> None:
    path = write_config({"alpha": stdio_entry(plain_argv()), "beta": stdio_entry(plain_argv())})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        await bridge.settled(SETTLE)
        beta_pid = bridge.server_pid("beta")
        alpha_pid = bridge.server_pid("alpha")
        assert beta_pid is not None
        model = await bridge.plugin_remove("beta")
        assert [s.name for s in model.servers] == ["alpha"]
        assert list(_file(path)["mcpServers"]) == ["alpha"]  # type: ignore[call-overload]
        await wait_until_gone(beta_pid)
        assert bridge.server_pid("alpha") == alpha_pid
        with pytest.raises(UnknownServerError):
            await bridge.plugin_remove("beta")


async def test_reload_respawns_only_changed_servers(
    write_config: WriteConfig, log_dir: Path
) -> None:
    servers = {
        "keep": stdio_entry(plain_argv("--name", "keep")),
        "change": stdio_entry(plain_argv("--name", "v1")),
        "drop": stdio_entry(plain_argv()),
    }
    path = write_config(servers)
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        await bridge.settled(SETTLE)
        pids = {name: bridge.server_pid(name) for name in servers}
        write_config(
            {
                "keep": servers["keep"],
                "change": stdio_entry(plain_argv("--name", "v2")),
                "new": stdio_entry(plain_argv("--name", "new")),
            }
        )
        report = await bridge.reload()
        model = report.snapshot
        assert (report.added, report.restarted, report.removed) == (
            ("new",),
            ("change",),
            ("drop",),
        )
        assert report.summary == "Config reloaded: 1 added, 1 removed, 1 restarted."
        assert [s.name for s in model.servers] == ["keep", "change", "new"]
        assert all(s.status == "connected" for s in model.servers)
        assert bridge.server_pid("keep") == pids["keep"]
        assert bridge.server_pid("change") not in (None, pids["change"])
        assert model.require_server("change").info.name == "v2"  # type: ignore[union-attr]
        for pid in (pids["drop"], pids["change"]):
            assert pid is not None
            await wait_until_gone(pid)


async def test_reload_requests_during_a_reload_coalesce(
    write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config({"alpha": stdio_entry(plain_argv())})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        await bridge.settled(SETTLE)
        # a changed server makes the reload take a real spawn's time
        write_config({"alpha": stdio_entry(plain_argv("--name", "v2"))})
        results: list[ReloadReport] = []

        async def request() -> None:
            results.append(await bridge.reload())

        async with anyio.create_task_group() as group:
            group.start_soon(request)
            await anyio.lowlevel.checkpoint()  # let the first reload begin
            for _ in range(100):
                group.start_soon(request)
        assert len(results) == 101
        assert bridge.reload_runs <= 2
        assert results[-1].snapshot.require_server("alpha").info.name == "v2"  # type: ignore[union-attr]


async def test_reload_retries_a_failed_server_and_reports_config_errors(
    write_config: WriteConfig, log_dir: Path, tmp_path: Path
) -> None:
    flag = tmp_path / "ready"
    # fails until the flag file exists, then serves
    code = (
        "import os, sys, runpy; "
        f"sys.exit(3) if not os.path.exists({str(flag)!r}) else None; "
        f"sys.argv = [{plain_argv()[1]!r}]; runpy.run_path(sys.argv[0], run_name='__main__')"
    )
    path = write_config({"flaky": {"command": plain_argv()[0], "args": ["-c", code]}})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        model = await bridge.settled(SETTLE)
        assert model.servers[0].status == "failed"
        assert "exited with status 3" in (model.servers[0].error or "")
        flag.touch()
        report = await bridge.reload()
        model = report.snapshot
        assert model.servers[0].status == "connected"
        assert report.summary == "Config reloaded: 1 retried."

        path.write_text('{"mcpServers": {')
        report = await bridge.reload()
        model = report.snapshot
        assert model.config_error is not None and "mcp.json:1" in model.config_error
        assert not report.reloaded and report.summary.startswith("Config not reloaded: ")
        assert "mcp.json:1" in report.summary
        assert model.servers[0].status == "connected"  # the running servers are kept


async def test_a_failed_server_is_retried_by_a_reload_at_most_once_a_minute(
    write_config: WriteConfig, log_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every outside edit is a reload (Claude Code rewrites its file after every prompt): a
    # server that fails as it is must not be started again by each of them, nor called
    # "restarted", which says its entry changed.
    spawns = tmp_path / "spawns"
    code = f"open({str(spawns)!r}, 'a').write('x'); raise SystemExit(3)"
    entry = {"command": plain_argv()[0], "args": ["-c", code]}
    path = write_config({"broken": entry, "fine": stdio_entry(plain_argv())})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        await bridge.settled(SETTLE)
        assert bridge.snapshot.require_server("broken").status == "failed"
        assert spawns.read_text() == "x"
        first = await bridge.reload()
        assert (first.retried, first.restarted) == (("broken",), ())
        assert first.summary == "Config reloaded: 1 retried."
        assert spawns.read_text() == "xx"
        second = await bridge.reload()  # within the minute: left as it is
        assert second.summary == "Config reloaded: nothing changed."
        assert not second.changed and spawns.read_text() == "xx"
        with monkeypatch.context() as patch:
            patch.setattr("agentty_tui.bridge.pool.RETRY_INTERVAL", 0.0)  # a minute on
            later = await bridge.reload()
        assert later.retried == ("broken",) and spawns.read_text() == "xxx"
        # A changed entry is a restart, however recent the last retry.
        write_config({"broken": {**entry, "env": {"V": "2"}}, "fine": stdio_entry(plain_argv())})
        changed = await bridge.reload()
        assert (changed.restarted, changed.retried) == (("broken",), ())
        assert changed.summary == "Config reloaded: 1 restarted."
        assert spawns.read_text() == "xxxx"


async def test_shutdown_leaves_no_process(write_config: WriteConfig, log_dir: Path) -> None:
    stubborn = (
        "import signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
        "sys.stdin.close(); time.sleep(600)"
    )
    path = write_config(
        {
            "alpha": stdio_entry(plain_argv()),
            "stubborn": {
                "command": plain_argv()[0],
                "args": ["-c", stubborn],
                "connectTimeout": 60,
            },
        }
    )
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        await bridge.wait_for(lambda m: m.require_server("alpha").status == "connected", SETTLE)
        pids = bridge.live_pids
        assert len(pids) == 2
    for pid in pids:
        assert not process_alive(pid)


@pytest.mark.parametrize(
    ("way_out", "within"),
    [
        # Each takes 0.5 s to exit once its input ends: one after another, 3 s.
        (("--exit-delay", "0.5"), 2.0),
        # Each ignores its input's end: 2 s of grace, then SIGTERM; one after another, 12 s.
        (("--linger",), 4.5),
    ],
    ids=["slow-to-exit", "ignores-eof"],
)
async def test_shutdown_stops_every_server_at_once(
    way_out: tuple[str, ...], within: float, write_config: WriteConfig, log_dir: Path
) -> None:
    """Six servers are closed in parallel: the whole shutdown takes about as long as one."""
    servers = {f"s{i}": stdio_entry([*light_argv(2, name=f"s{i}"), *way_out]) for i in range(6)}
    path = write_config(servers)
    # The scope holds the bridge's whole life (its task group must be left in the scope it
    # was entered in); its deadline is set once every server is connected.
    with anyio.fail_after(SETTLE + within) as scope:
        async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
            await bridge.wait_for(
                lambda m: len(m.servers) == 6 and all(s.status == "connected" for s in m.servers),
                SETTLE,
            )
            pids = bridge.live_pids
            assert len(pids) == 6
            scope.deadline = anyio.current_time() + within
        # The close is shielded: a deadline passed during it is seen at the next checkpoint.
        await anyio.lowlevel.checkpoint()
    assert [pid for pid in pids if process_alive(pid)] == []


async def test_shutdown_spares_a_server_still_starting_the_stdin_grace(
    write_config: WriteConfig, log_dir: Path
) -> None:
    """A connected server exits by itself on end of input (exit status 0); one that has not
    said a word yet is not waited for: it gets SIGTERM after a short grace (status -15)."""
    path = write_config(
        {
            "alpha": stdio_entry(plain_argv()),
            "starting": stdio_entry(scalable_argv(3, delay=30), connectTimeout=60),
        }
    )
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        await bridge.wait_for(lambda m: m.require_server("alpha").status == "connected", SETTLE)
        assert bridge.snapshot.require_server("starting").status == "connecting"
    assert "(exit status 0)" in ServerLog(log_dir, "alpha", path).path.read_text()
    starting = ServerLog(log_dir, "starting", path).path.read_text()
    assert "still running 0.2 s after its input was closed: SIGTERM" in starting
    assert "(exit status -15)" in starting


async def test_server_killed_from_outside_is_noticed_at_once(
    write_config: WriteConfig, log_dir: Path
) -> None:
    import os
    import signal

    path = write_config({"alpha": stdio_entry(plain_argv()), "beta": stdio_entry(plain_argv())})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        await bridge.settled(SETTLE)
        pid = bridge.server_pid("alpha")
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        model = await bridge.wait_for(lambda m: m.require_server("alpha").status == "failed", 5)
        assert "killed by signal 9" in (model.require_server("alpha").error or "")
        result = await bridge.call_tool("beta", "echo", {"text": "still here"})
        assert result.content[0].text == "still here"  # type: ignore[union-attr]


async def test_failure_text_names_the_cause(write_config: WriteConfig, log_dir: Path) -> None:
    crash = "import sys; print('config key FOO is missing', file=sys.stderr); sys.exit(4)"
    hang = "import time; time.sleep(600)"
    path = write_config(
        {
            "missing": {"command": "agentty-no-such-command"},
            "crash": {"command": plain_argv()[0], "args": ["-c", crash]},
            "hang": {"command": plain_argv()[0], "args": ["-c", hang], "connectTimeout": 1},
            "nocwd": {**stdio_entry(plain_argv()), "cwd": "/nonexistent/dir"},
        }
    )
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        model = await bridge.settled(SETTLE)
    errors = {s.name: s.error or "" for s in model.servers}
    assert all(s.status == "failed" for s in model.servers)
    assert "command not found: 'agentty-no-such-command'" in errors["missing"]
    assert "exited with status 4" in errors["crash"]
    assert "config key FOO is missing" in errors["crash"]
    assert "timed out after 1 s while connecting" in errors["hang"]
    assert "/nonexistent/dir" in errors["nocwd"]


async def test_disabled_server_is_not_started(write_config: WriteConfig, log_dir: Path) -> None:
    path = write_config({"parked": {**stdio_entry(plain_argv()), "disabled": True}})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        model = bridge.snapshot
        assert model.servers[0].status == "disabled"
        assert bridge.live_pids == ()
        model = await bridge.server_set_disabled("parked", False)
        model = await bridge.settled(SETTLE)
        assert model.servers[0].status == "connected"
        assert "disabled" not in _file(path)["mcpServers"]["parked"]  # type: ignore[index]


async def test_an_invalid_entry_is_a_failed_row_and_the_rest_run(
    write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config(
        {
            "broken": {"command": "x", "url": "http://h/mcp"},
            "wrong": {"command": "x", "args": "--not-a-list"},
            "alpha": stdio_entry(plain_argv()),
        }
    )
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        model = await bridge.settled(SETTLE)
        broken, wrong, alpha = model.servers
        assert alpha.status == "connected"
        assert broken.status == "failed"
        assert broken.spec is None
        assert "server 'broken'" in (broken.error or "")
        assert "both 'command' and 'url'" in (broken.error or "")
        assert "server 'wrong', field 'args'" in (wrong.error or "")
        assert len(bridge.live_pids) == 1
        await bridge.plugin_remove("broken")  # the way out: remove (or fix) the entry
        assert [s.name for s in bridge.snapshot.servers] == ["wrong", "alpha"]


async def test_all_tools_of_a_server_off_and_on_in_one_write(
    write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config({"alpha": stdio_entry(plain_argv())})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        await bridge.settled(SETTLE)
        pid = bridge.server_pid("alpha")
        model = await bridge.tools_set_enabled("alpha", False)
        assert model.require_server("alpha").enabled_count == 0
        assert _file(path)["mcpServers"]["alpha"]["tools"] == {"exclude": list(PLAIN_TOOLS)}  # type: ignore[index]
        model = await bridge.tools_set_enabled("alpha", True)
        assert model.require_server("alpha").enabled_count == len(PLAIN_TOOLS)
        assert "tools" not in _file(path)["mcpServers"]["alpha"]  # type: ignore[index]
        assert bridge.server_pid("alpha") == pid
