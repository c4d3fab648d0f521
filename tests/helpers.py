"""Small helpers the tests share (fixtures live in conftest.py)."""

from __future__ import annotations

import io
import json
import logging
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from agentty_tui.bridge import Bridge
from agentty_tui.catalog import project_catalog
from agentty_tui.model import PluginModel
from tests.servers import plain_argv


def tool_flags(model: PluginModel, server: str) -> dict[str, bool]:
    """Bare name -> enabled, for the advertised tools of ``server`` (which must be there)."""
    state = model.server(server)
    assert state is not None
    return {tool.bare: tool.enabled for tool in state.tools}


async def reveal_and_withdraw_scene(bridge: Bridge, server: str, base: Sequence[str]) -> None:
    """Have a gated server reveal its ``scene`` toolset, then withdraw it, checking each step.

    The new tools must arrive on (an exclude-only config), reach the wire catalog, and go
    again: the tool list is replaced, not merged.
    """
    await bridge.call_tool(server, "enable_toolset", {"name": "scene"})
    model = await bridge.wait_for(lambda m: "scene_open" in tool_flags(m, server), 5)
    assert list(tool_flags(model, server)) == [*base, "scene_open", "scene_save"]
    assert tool_flags(model, server)["scene_open"] is True
    wire = f"mcp__{server}__scene_open"
    assert wire in {t.name for t in project_catalog(model).tools}
    await bridge.call_tool(server, "disable_toolset", {"name": "scene"})
    model = await bridge.wait_for(lambda m: "scene_open" not in tool_flags(m, server), 5)
    assert list(tool_flags(model, server)) == list(base)
    assert wire not in {t.name for t in project_catalog(model).tools}


def stdio_entry(argv: Sequence[str], **extra: Any) -> dict[str, Any]:
    """A ``mcpServers`` entry that starts ``argv``."""
    return {"command": argv[0], "args": list(argv[1:]), **extra}


def process_alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie waiting to be reaped counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def python_argv(code: str) -> list[str]:
    """argv that runs a few lines of Python: for servers that only misbehave."""
    return [sys.executable, "-c", code]


def time_server_command() -> str | None:
    """The third-party ``mcp-server-time`` installed next to this interpreter, if any."""
    beside = Path(sys.executable).parent / "mcp-server-time"
    if beside.exists():
        return str(beside)
    return shutil.which("mcp-server-time")


async def wait_until_gone(pid: int, timeout: float = 10.0) -> None:
    """Wait until process ``pid`` has ended; fail the test after ``timeout`` seconds."""
    import anyio

    with anyio.fail_after(timeout):
        # No event fires when a foreign process ends: polling is the only way to see it.
        while process_alive(pid):  # noqa: ASYNC110
            await anyio.sleep(0.05)


def write_file(path: Path, text: str) -> Path:
    """Write ``text`` to ``path``, making its folder (``.vscode``, ``.codex``) first."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def dialect_files() -> list[tuple[str, str, str, str]]:
    """One config file per host dialect, each holding ``light_plain_server.py`` as ``plain``.

    ``(dialect, file name, text, what the file says once echo is off)``; the texts carry
    comments and keys of their own that every write must keep.
    """
    argv = plain_argv()
    command, args = json.dumps(argv[0]), json.dumps(argv[1:])
    toml_args = "[" + ", ".join(json.dumps(arg) for arg in argv[1:]) + "]"
    return [
        (
            "claude",
            ".mcp.json",
            f'{{"mcpServers": {{"plain": {{"command": {command}, "args": {args}}}}}}}',
            '"exclude": ["echo"]',
        ),
        (
            "gemini",
            ".gemini/settings.json",
            f'{{\n  // theme kept\n  "theme": "dark",\n  "mcpServers": {{"plain": '
            f'{{"command": {command}, "args": {args}, "trust": true}}}}\n}}\n',
            '"excludeTools": ["echo"]',
        ),
        (
            "vscode",
            ".vscode/mcp.json",
            f'{{\n  "inputs": [],\n  "servers": {{\n    // the test server\n    "plain": '
            f'{{"type": "stdio", "command": {command}, "args": {args}}},\n  }},\n}}\n',
            '"exclude": ["echo"]',
        ),
        (
            "codex",
            ".codex/config.toml",
            f'# my Codex config\nmodel = "gpt-5-codex"\n\n[mcp_servers.plain]\n'
            f"command = {command}\nargs = {toml_args}\nstartup_timeout_sec = 20\n",
            'disabled_tools = ["echo"]',
        ),
    ]


def free_port() -> int:
    """A loopback TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def serving(port: int) -> bool:
    """Whether something accepts connections on this loopback port."""
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


@contextmanager
def serve_over_http(argv: list[str], transport: str) -> Iterator[str]:
    """Run a test server's ``argv`` on a free loopback port over ``transport``; yields its URL.

    A port found free can be taken by another test worker before the server binds it: a server
    that exits before it listens is started again on another port (three tries)."""
    for _attempt in range(3):
        port = free_port()
        process = subprocess.Popen(
            [*argv, "--transport", transport, "--port", str(port)], stderr=subprocess.DEVNULL
        )
        # No event says "listening" from another process: polling the port is the only way.
        # Up to 60 s: on a loaded 2-core machine with four test workers, importing the SDK
        # and its web server alone can take tens of seconds.
        deadline = time.monotonic() + 60
        while not serving(port) and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        if serving(port) and process.poll() is None:
            break
        process.terminate()
        process.wait(timeout=10)
    else:
        raise AssertionError(f"the HTTP test server did not start: {argv}")
    try:
        path = "/mcp" if transport == "streamable-http" else "/sse"
        yield f"http://127.0.0.1:{port}{path}"
    finally:
        process.terminate()
        process.wait(timeout=10)


def url_entry(transport: str, url: str, **extra: object) -> dict[str, object]:
    """A ``mcpServers`` entry for a server at ``url``; SSE has to be named, HTTP is implied."""
    entry: dict[str, object] = {"url": url, **extra}
    if transport == "sse":
        entry["type"] = "sse"
    return entry


each_dialect_file = pytest.mark.parametrize(
    ("dialect", "name", "text", "toggled"),
    dialect_files(),
    ids=["claude", "gemini", "vscode", "codex"],
)
"""Run a test once per host dialect with ``dialect_files()``'s four values."""


def _pipe() -> io.TextIOWrapper:
    """A text stream over bytes, encoding as a child's stdout into a pipe does (UTF-8, strict):
    what a real process could not print fails here too."""
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", write_through=True)


def _written(stream: io.TextIOWrapper) -> str:
    """What was printed to ``stream``, decoded as the subprocess tests decode a child's output."""
    stream.flush()
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue().decode("utf-8", errors="surrogateescape")


def run_cli(
    *args: str,
    env: Mapping[str, str] | None = None,
    whole_env: bool = False,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """``agentty-tui ARGS`` run in this process (``cli.main``), seen as a child's would be: its
    exit status, stdout and stderr, with no terminal on standard input.

    A child process pays an interpreter and the imports (about a second of CPU) per command;
    this pays neither. ``env`` is added to the environment (``whole_env``: replaces it), ``cwd``
    is the folder it runs in; both, and the logging that ``main`` sets up, are put back after.
    The few tests that need a real process (signals, exit statuses, resource limits, import
    checks) run ``python -m agentty_tui`` themselves.
    """
    from agentty_tui import cli

    out, err = _pipe(), _pipe()
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    root = logging.getLogger()
    saved_handlers, saved_level = list(root.handlers), root.level
    saved_stdin = sys.stdin
    try:
        if env is not None:
            if whole_env:
                os.environ.clear()
            os.environ.update(env)
        if cwd is not None:
            os.chdir(cwd)
        sys.stdin = io.StringIO("")  # not a terminal: a command that would ask refuses
        with redirect_stdout(out), redirect_stderr(err):
            try:
                status = cli.main(list(args))
            except SystemExit as ended:  # argparse's usage errors and --help
                code = ended.code
                status = code if isinstance(code, int) else (0 if code is None else 1)
    finally:
        sys.stdin = saved_stdin
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        # main sends every record to its own log file: give the root logger back to pytest.
        for handler in list(root.handlers):
            if handler not in saved_handlers:
                root.removeHandler(handler)
                handler.close()
        for handler in saved_handlers:
            if handler not in root.handlers:
                root.addHandler(handler)
        root.setLevel(saved_level)
        logging.captureWarnings(False)
    argv = [sys.executable, "-m", "agentty_tui", *args]
    return subprocess.CompletedProcess(argv, status, _written(out), _written(err))
