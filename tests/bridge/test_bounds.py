"""Hostile servers that attack the app's resources: every one of them is bounded.

Each test runs a real subprocess server (``tests/servers/flood_server.py``) and checks what
the user sees and that the bound holds; a healthy bystander keeps answering meanwhile.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import anyio
import pytest

from agentty_tui.bridge import Bridge, listing, logs, stdio
from agentty_tui.bridge.logs import ServerLog
from agentty_tui.bridge.notice_rate import NOISY_SECONDS
from agentty_tui.catalog import project_catalog
from agentty_tui.cli.report import model_json, model_text
from agentty_tui.config import ConfigStore
from agentty_tui.errors import OperationError
from agentty_tui.model import PluginModel, ServerState
from agentty_tui.ui.rows import build_rows
from tests.conftest import WriteConfig
from tests.helpers import python_argv, serve_over_http, stdio_entry
from tests.servers import endless_http_argv, flood_argv, plain_argv

pytestmark = pytest.mark.anyio

SETTLE = 20.0

MARK_WAIT = 3.0 * NOISY_SECONDS
"""Seconds the noisy mark may take: the notices of NOISY_SECONDS, thrice (a loaded machine)."""


def _server(model: PluginModel, name: str) -> ServerState:
    state = model.server(name)
    assert state is not None
    return state


async def _healthy(bridge: Bridge, name: str = "healthy") -> None:
    result = await bridge.call_tool(name, "echo", {"text": "fine"})
    assert result.content[0].text == "fine"  # type: ignore[union-attr]


def _row_text(model: PluginModel, name: str) -> str:
    rows = build_rows(model, project_catalog(model), frozenset(), "")
    return next(row.text for row in rows if row.kind == "server" and row.server == name)


async def test_a_stderr_flood_is_capped_and_rotated_once(
    write_config: WriteConfig, log_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cap = 1024 * 1024
    monkeypatch.setattr(logs, "LOG_MAX_BYTES", cap)
    flood = 12 * cap
    path = write_config(
        {
            "flood": stdio_entry(flood_argv("--stderr", str(flood))),
            "healthy": stdio_entry(plain_argv()),
        }
    )
    log = ServerLog(log_dir, "flood", path)
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        model = await bridge.settled(SETTLE)
        assert _server(model, "flood").status == "connected", _server(model, "flood").error
        result = await bridge.call_tool("flood", "echo", {"text": "still here"})
        assert result.content[0].text == "still here"  # type: ignore[union-attr]
        await _healthy(bridge)
    # One chunk of the pipe (64 KiB) and a header line may go over the cap before it rotates.
    slack = 64 * 1024 + 200
    assert log.path.stat().st_size <= cap + slack
    assert log.rotated_path.stat().st_size <= cap + slack
    assert not log.path.with_name(log.path.name + ".2").exists()
    text = log.path.read_text()
    assert "stderr flood done" in text  # the newest stderr is kept, the oldest went
    assert "continued (the log reached 1 MiB" in text


async def test_notes_about_stdout_garbage_are_rate_limited(
    write_config: WriteConfig, log_dir: Path
) -> None:
    lines = 50_000
    path = write_config({"noisy": stdio_entry(flood_argv("--garbage", str(lines)))})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        model = await bridge.settled(SETTLE)
        assert _server(model, "noisy").status == "connected", _server(model, "noisy").error
        result = await bridge.call_tool("noisy", "echo", {"text": "through"})
        assert result.content[0].text == "through"  # type: ignore[union-attr]
    text = ServerLog(log_dir, "noisy", path).path.read_text()
    noted = text.count("ignored a stdout line that is not JSON-RPC")
    skipped = [
        int(n)
        for n in re.findall(r"… (\d+) more stdout lines that are not JSON-RPC not logged", text)
    ]
    assert noted <= 100, noted  # a few a second, not one a line
    assert noted + sum(skipped) == lines  # every skipped line is accounted for


async def test_an_unwritable_log_folder_costs_the_log_not_the_server(
    write_config: WriteConfig, tmp_path: Path
) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the log folder should be\n")
    fails = python_argv("import sys; print('boom from stderr', file=sys.stderr); sys.exit(3)")
    path = write_config({"healthy": stdio_entry(plain_argv()), "fails": stdio_entry(fails)})
    async with Bridge(ConfigStore(path), log_dir=blocked) as bridge:
        model = await bridge.settled(SETTLE)
        healthy = _server(model, "healthy")
        assert healthy.status == "connected", healthy.error
        await _healthy(bridge)
        fails_state = _server(model, "fails")
    assert len(healthy.warnings) == 1
    assert "could not be written" in healthy.warnings[0]
    assert "the server runs without its log" in healthy.warnings[0]
    # The error text still carries the server's last stderr lines (kept in memory).
    assert fails_state.status == "failed"
    assert fails_state.error == "the server exited with status 3\nboom from stderr"
    assert "could not be written" in _row_text(model, "healthy")
    listed = model_json(model, project_catalog(model))
    by_name = {server["name"]: server for server in listed["servers"]}
    assert by_name["healthy"]["warnings"] == list(healthy.warnings)
    assert "could not be written" in model_text(model, project_catalog(model))


async def test_a_line_over_the_limit_says_so(
    write_config: WriteConfig, log_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stdio, "MAX_LINE", 1024 * 1024)  # the server is a subprocess anyway
    path = write_config(
        {
            "long": stdio_entry(flood_argv("--long-line", str(3 * 1024 * 1024))),
            "healthy": stdio_entry(plain_argv()),
        }
    )
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        model = await bridge.settled(SETTLE)
        assert _server(model, "long").status == "connected", _server(model, "long").error
        with pytest.raises(OperationError):
            await bridge.call_tool("long", "long_line")
        model = await bridge.wait_for(lambda m: _server(m, "long").status == "failed", 10)
        message = "the server sent a line of more than 1 MiB; the connection was closed"
        assert _server(model, "long").error == message
        await _healthy(bridge)


async def test_a_line_just_under_the_limit_is_read_in_linear_time(
    write_config: WriteConfig, log_dir: Path
) -> None:
    size = 48 * 1024 * 1024  # under the 64 MiB limit: a valid, if huge, answer
    path = write_config({"long": stdio_entry(flood_argv("--long-line", str(size)))})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        await bridge.settled(SETTLE)
        # This process's CPU time, not the clock's: beside other test workers on a small
        # machine the clock may run 20 s for a second of this process's work.
        start = time.process_time()
        result = await bridge.call_tool("long", "long_line")
        took = time.process_time() - start
    assert len(result.content[0].text) == size  # type: ignore[union-attr]
    # Linear reading takes well under a second of CPU here; re-joining and re-scanning the line
    # per 64 KiB chunk (quadratic) copies about 36 GB and takes tens of seconds.
    assert took < 8.0, took


async def test_a_schema_too_deep_to_parse_costs_only_its_tool(
    write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config(
        {"deep": stdio_entry(flood_argv("--deep-schema", "10000"), connectTimeout=10)}
    )
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        model = await bridge.settled(SETTLE)
        deep = _server(model, "deep")
        assert deep.status == "connected", deep.error
        assert [tool.bare for tool in deep.tools] == ["ok", "echo"]
        assert [(d.name, d.reason) for d in deep.dropped_tools] == [
            ("deep", "the input schema is nested too deep to read")
        ]
        result = await bridge.call_tool("deep", "echo", {"text": "fine"})
        assert result.content[0].text == "fine"  # type: ignore[union-attr]


async def test_an_output_schema_too_deep_to_parse_costs_only_its_tool(
    write_config: WriteConfig, log_dir: Path
) -> None:
    # The output schema goes on to the gateway's hosts as the server gave it: never with a cut.
    argv = flood_argv("--deep-output-schema", "10000")
    path = write_config({"deep": stdio_entry(argv, connectTimeout=10)})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        deep = _server(await bridge.settled(SETTLE), "deep")
        assert deep.status == "connected", deep.error
        assert [tool.bare for tool in deep.tools] == ["ok", "echo"]
        assert [(d.name, d.reason) for d in deep.dropped_tools] == [
            ("deep_output", "the output schema is nested too deep to read")
        ]


@pytest.mark.parametrize(
    "answers", [pytest.param((), id="json"), pytest.param(("--event-answers",), id="events")]
)
async def test_a_schema_too_deep_to_parse_costs_only_its_tool_over_http(
    answers: tuple[str, ...], write_config: WriteConfig, log_dir: Path
) -> None:
    argv = flood_argv("--deep-schema", "10000", *answers)
    with serve_over_http(argv, "streamable-http") as url:
        path = write_config({"deep": {"url": url, "connectTimeout": 10}})
        async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
            model = await bridge.settled(SETTLE)
            deep = _server(model, "deep")
            assert deep.status == "connected", deep.error
            assert [tool.bare for tool in deep.tools] == ["ok", "echo"]
            assert [(d.name, d.reason) for d in deep.dropped_tools] == [
                ("deep", "the input schema is nested too deep to read")
            ]
            result = await bridge.call_tool("deep", "echo", {"text": "fine"})
            assert result.content[0].text == "fine"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "pace",
    [
        pytest.param((), id="identical-notices-without-pause"),
        pytest.param(("--notify-every", "0.02"), id="distinct-notices-every-20-ms"),
    ],
)
async def test_a_list_changed_loop_is_slowed_and_marked_noisy(
    pace: tuple[str, ...], write_config: WriteConfig, log_dir: Path
) -> None:
    path = write_config(
        {
            "loop": stdio_entry(flood_argv("--notify-loop", *pace)),
            "healthy": stdio_entry(plain_argv()),
        }
    )
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        await bridge.settled(SETTLE)
        # Marked by the notices' rate: after NOISY_SECONDS of them, however slowly the server
        # answers its re-lists (by re-list streaks it took 15 s idle, over 30 s under load).
        model = await bridge.wait_for(lambda m: bool(_server(m, "loop").warnings), MARK_WAIT)
        before, start = bridge.session_relists("loop"), anyio.current_time()
        await anyio.sleep(3)  # a rate is measured over a fixed time: nothing to wait on
        relists = bridge.session_relists("loop") - before
        elapsed = anyio.current_time() - start
        for _ in range(5):
            with anyio.fail_after(5):  # generous: the machine may be loaded
                await _healthy(bridge)
    assert _server(model, "loop").warnings[0].startswith("noisy: ")
    assert "noisy" in _row_text(model, "loop")
    # Once noisy, at most one re-list a second.
    assert relists <= elapsed / listing.MAX_RELIST_INTERVAL + 1, (relists, elapsed)


async def test_endless_pagination_is_cut_with_a_warning(
    write_config: WriteConfig, log_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(listing, "MAX_TOOL_PAGES", 20)
    path = write_config({"pages": stdio_entry(flood_argv("--endless-pages"))})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        model = await bridge.settled(SETTLE)
    pages = _server(model, "pages")
    assert pages.status == "connected", pages.error
    assert len(pages.tools) == 20
    assert pages.warnings == (
        "its tool list did not end after 20 pages; only those pages are shown",
    )
    assert "did not end after 20 pages" in _row_text(model, "pages")
    assert "did not end after 20 pages" in model_text(model, project_catalog(model))


async def test_log_names_are_unique_per_server_and_config(tmp_path: Path, log_dir: Path) -> None:
    names = ["a/b", "a_b", "n" * 10_000]

    def marker_server(mark: str) -> dict[str, object]:
        code = f"import sys; print({mark!r}, file=sys.stderr); sys.exit(3)"
        return stdio_entry([sys.executable, "-c", code])

    configs = []
    for folder in ("one", "two"):
        config = tmp_path / folder / "mcp.json"
        config.parent.mkdir()
        servers = {name: marker_server(f"mark {folder} {i}") for i, name in enumerate(names)}
        config.write_text(__import__("json").dumps({"mcpServers": servers}))
        configs.append(config)
    for config in configs:
        async with Bridge(ConfigStore(config), log_dir=log_dir) as bridge:
            model = await bridge.settled(SETTLE)
        for state in model.servers:
            assert state.warnings == (), state.warnings
    paths = set()
    for folder, config in zip(("one", "two"), configs, strict=True):
        for i, name in enumerate(names):
            log = ServerLog(log_dir, name, config).path
            assert len(log.name) < 60
            text = log.read_text()
            marks = set(re.findall(r"mark \w+ \d", text))
            assert marks == {f"mark {folder} {i}"}, (name[:10], marks)
            paths.add(log)
    assert len(paths) == 6


async def _beside_a_healthy_server(
    mode: str, write_config: WriteConfig, log_dir: Path
) -> tuple[ServerState, str]:
    """The state of the endless HTTP server in ``mode`` (limit 1,000,000 bytes) once settled,
    and its URL; a stdio server beside it must keep answering meanwhile."""
    with serve_over_http(endless_http_argv("--mode", mode), "streamable-http") as url:
        path = write_config(
            {
                "endless": {"url": url, "maxResponseBytes": 1_000_000, "connectTimeout": 5},
                "healthy": stdio_entry(plain_argv()),
            }
        )
        async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
            with anyio.fail_after(20):
                model = await bridge.settled(SETTLE)
            await _healthy(bridge)
    return _server(model, "endless"), url


@pytest.mark.parametrize("mode", ["json", "sse"])
async def test_an_endless_http_response_fails_at_the_limit(
    mode: str, write_config: WriteConfig, log_dir: Path
) -> None:
    endless, url = await _beside_a_healthy_server(mode, write_config, log_dir)
    assert endless.status == "failed"
    assert endless.error == (
        f"{url} sent a response of more than 1,000,000 bytes (maxResponseBytes); the request failed"
    )


async def test_a_compressed_response_is_refused_before_it_unpacks(
    write_config: WriteConfig, log_dir: Path
) -> None:
    """A 50 KB gzip body unpacks to 50 MB, out of reach of a limit that counts what arrives:
    the client asks for no compression, and a server that compresses anyway is refused."""
    bomb, url = await _beside_a_healthy_server("gzip", write_config, log_dir)
    assert bomb.status == "failed"
    assert bomb.error == (
        f"{url} sent a response compressed with 'gzip', which was not asked for; it was refused "
        "(maxResponseBytes counts what arrives)"
    )
