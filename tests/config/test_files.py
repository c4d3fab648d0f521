"""Reading config files that are not what they claim: FIFOs, devices, huge or deep files.

Every file a config involves (the config, an ``envFile``, the source of an import, the file
the dialect is detected from) is read by ``config.files.read_file``: a regular file of at most
16 MiB (Claude Code's ``~/.claude.json``: 256 MiB), opened without blocking.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentty_tui.config import ConfigStore, VsCodeDialect
from agentty_tui.config.documents.jsonc import (
    MAX_DEPTH,
    _surely_shallow,
    check_nesting,
    parse_jsonc,
)
from agentty_tui.config.files import (
    MAX_CLAUDE_STATE_BYTES,
    MAX_CONFIG_BYTES,
    read_file,
    size_limit,
)
from agentty_tui.errors import ConfigError


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    """A named pipe no one writes to, named like a config file."""
    path = tmp_path / "mcp.json"
    os.mkfifo(path)
    return path


def _within(seconds: float, fifo: Path, work: Callable[[], object]) -> object:
    """Run ``work`` in a thread; if it is still blocked after ``seconds``, unblock it (by
    opening the FIFO's other end) and fail: a reader must never wait on a pipe."""
    outcome: list[object] = []

    def target() -> None:
        try:
            outcome.append(work())
        except BaseException as error:  # handed to the test thread
            outcome.append(error)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        thread.join(5)
        pytest.fail(f"reading {fifo} blocked for over {seconds} s")
    return outcome[0]


def test_a_fifo_config_is_refused_at_once(fifo: Path) -> None:
    result = _within(5, fifo, lambda: ConfigStore(fifo).load())
    assert isinstance(result, ConfigError)
    assert str(result) == f"{fifo}: not a regular file (a FIFO)"


def test_detecting_the_dialect_of_a_fifo_does_not_block(fifo: Path) -> None:
    # The store's constructor reads the file to detect its dialect: that read must not block
    # either (the name decides; load then names the problem).
    result = _within(5, fifo, lambda: ConfigStore(fifo))
    assert isinstance(result, ConfigStore)


def test_a_device_is_refused_without_reading_it() -> None:
    with pytest.raises(ConfigError) as caught:
        ConfigStore("/dev/zero").load()
    assert str(caught.value) == "/dev/zero: not a regular file (a character device)"


def test_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        ConfigStore(tmp_path).load()
    assert str(caught.value) == f"{tmp_path}: not a regular file (a directory)"


def test_a_huge_file_is_refused_by_its_size(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    with path.open("wb") as file:
        file.truncate(10**9)  # sparse: costs no disk
    tracemalloc.start()
    try:
        with pytest.raises(ConfigError) as caught:
            ConfigStore(path).load()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(caught.value) == f"{path}: 1.0 GB is over the 16 MiB limit of a config file"
    assert peak < 1 << 20  # nothing of it was read


def test_a_file_at_the_limit_loads_and_one_byte_more_does_not(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    body = b'{"mcpServers": {"a": {"command": "x"}}}'
    path.write_bytes(body + b" " * (MAX_CONFIG_BYTES - len(body)))
    assert [server.name for server in ConfigStore(path).load().servers] == ["a"]
    with path.open("ab") as file:
        file.write(b" ")
    with pytest.raises(ConfigError, match=r"16\.8 MB is over the 16 MiB limit"):
        ConfigStore(path).load()


@pytest.mark.parametrize("linked", [False, True])
def test_claude_codes_state_file_may_be_larger_than_a_config_file(
    tmp_path: Path, linked: bool
) -> None:
    # A heavy user's ~/.claude.json holds much history: 16 MiB is not its limit.
    body = b'{"mcpServers": {"a": {"command": "x"}}, "projects": {}}'
    over = MAX_CONFIG_BYTES + 1024
    real = tmp_path / ("dotfiles/claude-state.json" if linked else ".claude.json")
    real.parent.mkdir(exist_ok=True)
    real.write_bytes(body + b" " * (over - len(body)))
    path = tmp_path / ".claude.json"
    if linked:  # kept in a dotfiles folder under another name: the name it is read by counts
        path.symlink_to(real)
    assert size_limit(path) == MAX_CLAUDE_STATE_BYTES == 256 * 1024 * 1024
    assert [server.name for server in ConfigStore(path).load().servers] == ["a"]
    ordinary = tmp_path / "mcp.json"
    ordinary.write_bytes(real.read_bytes())
    with pytest.raises(ConfigError, match=r"16\.8 MB is over the 16 MiB limit of a config file"):
        ConfigStore(ordinary).load()
    with path.open("ab") as file:
        file.truncate(MAX_CLAUDE_STATE_BYTES + 1)  # sparse: costs no disk
    with pytest.raises(ConfigError) as caught:
        ConfigStore(path).load()
    assert str(caught.value) == (
        f"{path}: 268.4 MB is over the 256 MiB limit of Claude Code's state file"
    )


def test_a_file_growing_past_the_limit_while_read_is_cut(tmp_path: Path) -> None:
    path = tmp_path / "big"
    path.write_bytes(b"x" * 100)
    # The size seen by fstat is 100; a limit below it stands for a file that grew meanwhile.
    with pytest.raises(ConfigError, match="100 B is over the 10-byte limit of a config file"):
        read_file(path, limit=10)


def test_a_missing_file_is_none_and_a_symlink_is_followed(tmp_path: Path) -> None:
    assert read_file(tmp_path / "none") is None
    target = tmp_path / "real.json"
    target.write_text("{}")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    read = read_file(link)
    assert read is not None and read.data == b"{}"


def test_an_env_file_that_is_a_fifo_fails_only_its_server(tmp_path: Path) -> None:
    folder = tmp_path / ".vscode"
    folder.mkdir()
    os.mkfifo(tmp_path / "pipe.env")
    config = folder / "mcp.json"
    config.write_text(
        json.dumps(
            {
                "servers": {
                    "piped": {"command": "x", "envFile": "${workspaceFolder}/pipe.env"},
                    "fine": {"command": "y"},
                }
            }
        )
    )
    loaded = _within(5, tmp_path / "pipe.env", lambda: ConfigStore(config).load())
    assert not isinstance(loaded, BaseException), loaded
    piped = loaded.server("piped")  # type: ignore[attr-defined]
    assert piped is not None and piped.problem is not None
    assert "pipe.env: not a regular file (a FIFO)" in piped.problem
    assert loaded.server("fine").problem is None  # type: ignore[attr-defined]


def test_the_cli_refuses_a_fifo_and_exits_at_once(fifo: Path) -> None:
    try:
        result = subprocess.run(
            [sys.executable, "-m", "agentty_tui", "list", "--config", str(fifo)],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("agentty-tui list blocked on a FIFO config")
    assert result.returncode == 2
    assert result.stderr == f"agentty-tui: {fifo}: not a regular file (a FIFO)\n"


def test_an_import_source_that_is_a_fifo_is_refused(fifo: Path, tmp_path: Path) -> None:
    target = tmp_path / "target.json"
    target.write_text('{"mcpServers": {}}\n')
    try:
        result = subprocess.run(
            [sys.executable, "-m", "agentty_tui", "import", str(fifo), "--config", str(target)],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("agentty-tui import blocked on a FIFO source")
    assert result.returncode == 2
    assert result.stderr == f"agentty-tui: {fifo}: not a regular file (a FIFO)\n"


# --- nesting and memory ------------------------------------------------------------------


def _nested(depth: int) -> str:
    return '{"mcpServers": {}, "deep": ' + "[" * depth + "]" * depth + "}"


@pytest.mark.parametrize("name", ["mcp.json", ".vscode/mcp.json"])
def test_deep_nesting_is_a_clear_error(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.parent.mkdir(exist_ok=True)
    text = _nested(200_000)
    if name.startswith(".vscode"):
        text = text.replace("mcpServers", "servers")
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        ConfigStore(path).load()
    # The document is the first level: the 100th bracket opens the 101st.
    column = len('{"mcpServers": {}, "deep": ') + MAX_DEPTH
    if name.startswith(".vscode"):
        column -= len("mcp")
    assert str(caught.value) == (
        f"{path}:1:{column}: invalid JSON: nested deeper than {MAX_DEPTH} levels"
    )


_STRINGS = st.text(alphabet='[]{}"\\ax\n—', max_size=8)


@st.composite
def _documents(draw: st.DrawFn) -> Any:
    """JSON values nested up to a little past ``MAX_DEPTH``, with brackets, quotes and
    backslashes in their strings."""
    depth = draw(st.integers(min_value=1, max_value=MAX_DEPTH + 3))
    value: Any = draw(_STRINGS)
    for _ in range(depth):
        if draw(st.booleans()):
            value = [draw(_STRINGS), value, {}]
        else:
            value = {draw(_STRINGS): value, "[": draw(_STRINGS)}
    return value


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


@given(_documents(), st.booleans())
@settings(max_examples=300, deadline=None)
def test_the_quick_nesting_answer_agrees_with_the_exact_one(value: Any, ascii_only: bool) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only, indent=1 if ascii_only else None)
    assert _surely_shallow(text) == (_depth(value) <= MAX_DEPTH)
    if _depth(value) > MAX_DEPTH:
        with pytest.raises(ConfigError, match=f"nested deeper than {MAX_DEPTH} levels"):
            check_nesting(text)
    else:
        check_nesting(text)


def test_nesting_up_to_the_limit_loads(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    # The document itself is one level; brackets inside strings do not count.
    path.write_text(_nested(MAX_DEPTH - 1).replace('"deep"', '"[[[[{{{{"'))
    assert ConfigStore(path).load().servers == ()
    vscode = VsCodeDialect()
    text = _nested(MAX_DEPTH - 1).replace("mcpServers", "servers")
    assert vscode.parse(text, None)[1].servers == ()


def _jsonc_peak(entries: int) -> int:
    text = (
        "{\n  // servers\n  "
        + ",\n  ".join(
            f'"s{i}": {{"command": "c", "args": ["{"a" * 40}"], /* n */ "env": {{"K": "v"}}}}'
            for i in range(entries)
        )
        + "\n}\n"
    )
    tracemalloc.start()
    try:
        parse_jsonc(text)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.slow
def test_jsonc_memory_grows_linearly_with_the_input() -> None:
    small, large = _jsonc_peak(2_000), _jsonc_peak(8_000)
    assert large < 4 * small * 1.3, (small, large)
