"""The headless commands against a hostile server, end to end: a real ``agentty-tui`` process.

Nothing a server sends reaches the terminal as a control (its text is shown with visible
escapes, ``--json`` keeps it exactly, escaped by the encoder), and every failure of a command
is one ``agentty-tui: …`` line on stderr with the documented exit status, never a traceback.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from agentty_tui.bridge.logs import log_file_name
from tests.conftest import WriteConfig
from tests.helpers import run_cli, stdio_entry
from tests.hostile_text import unsafe_chars
from tests.servers import hostile_argv
from tests.servers.hostile_server import CLIP_TITLE, FORGE_TEXT, SERVER_NAME

EVIL_NAME = "evil\x1b]0;owned\x07\u202e"
"""A server name from the config file that would set the window title and flip the text."""


def run(*args: str, file_size_limit: int | None = None) -> subprocess.CompletedProcess[str]:
    """``agentty-tui ARGS`` in this process (``run_cli``), or in a child process with a cap on
    the size of files (a limit that must not fall on the test process itself)."""
    if file_size_limit is None:
        return run_cli(*args)

    def limit() -> None:
        if file_size_limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size_limit, file_size_limit))

    return subprocess.run(
        [sys.executable, "-m", "agentty_tui", *args],
        capture_output=True,
        text=True,
        errors="surrogateescape",
        timeout=60,
        env=dict(os.environ),
        check=False,
        preexec_fn=limit,
    )


REQUEST_TIMEOUT = 5
"""Seconds the hostile server has per request: ``hang`` waits them out, and its handshake must
fit in them on a machine busy with the other test workers (1 s did not, now and then)."""


@pytest.fixture
def config(write_config: WriteConfig) -> Path:
    return write_config(
        {
            "hostile": stdio_entry(hostile_argv(), requestTimeout=REQUEST_TIMEOUT),
            EVIL_NAME: stdio_entry(hostile_argv()),
            "dead": stdio_entry(hostile_argv("--exit-at-start")),
        }
    )


def assert_terminal_safe(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stderr
    for stream in (result.stdout, result.stderr):
        assert unsafe_chars(stream, allowed="\n") == [], stream


def test_list_and_catalog_show_every_control_as_a_visible_escape(config: Path) -> None:
    listed = run("list", "--config", str(config))
    assert listed.returncode == 0, listed.stderr
    assert_terminal_safe(listed)
    assert "    [on ] clip          ␛]52;c;aGk=␇clip" in listed.stdout
    assert "    [on ] forge         forges ␛]8;;http://evil.example/␛\\click" in listed.stdout
    assert "evil␛]0;owned␇<U+202E>  connected" in listed.stdout
    assert (
        "    [on ] fail          fails⏎    [on ] forged  a tool that is not there" in listed.stdout
    )
    assert not [line for line in listed.stdout.split("\n") if line.startswith("    [on ] forged")]
    assert "    ! dying ␛]0;pwned␇␛[2J␛[H\\x9b31m" in listed.stdout  # the dead server's stderr
    catalog = run("catalog", "--config", str(config))
    assert catalog.returncode == 0, catalog.stderr
    assert_terminal_safe(catalog)
    assert "evil␛]0;owned␇<U+202E> / clip" in catalog.stdout


def test_a_call_result_cannot_forge_lines_or_links(config: Path) -> None:
    result = run("call", "hostile", "forge", "--config", str(config))
    assert result.returncode == 0, result.stderr
    assert_terminal_safe(result)
    assert result.stdout == (
        "result ␛]8;;http://evil.example/␛\\click␛]8;;␛\\␍forged line\nnext␛[31m red␀\\x9b2J\n"
    )
    failed = run("call", "hostile", "fail", "--config", str(config))
    assert failed.returncode == 1
    assert_terminal_safe(failed)
    assert failed.stdout == "failure ␛[2J␛[H␛]0;pwned␇\n"


def test_json_output_keeps_the_servers_text_exactly(config: Path) -> None:
    listed = run("list", "--json", "--config", str(config))
    assert listed.returncode == 0, listed.stderr
    assert_terminal_safe(listed)
    assert listed.stdout.isascii()  # bidi controls and C1 are escaped by the encoder too
    servers = {s["name"]: s for s in json.loads(listed.stdout)["servers"]}
    assert list(servers) == ["hostile", EVIL_NAME, "dead"]
    tools = {t["name"]: t for t in servers["hostile"]["tools"]}
    assert tools["clip"]["title"] == CLIP_TITLE
    assert servers["hostile"]["server_info"]["name"] == SERVER_NAME
    called = run("call", "hostile", "forge", "--json", "--config", str(config))
    assert called.returncode == 0, called.stderr
    assert_terminal_safe(called)
    assert json.loads(called.stdout)["content"][0]["text"] == FORGE_TEXT


FAILURES = {
    "unknown tool": (
        ["call", "hostile", "nope"],
        "agentty-tui: no tool named 'nope' on server 'hostile'\n",
    ),
    "unknown tool, enable": (
        ["enable", "hostile", "nope"],
        "agentty-tui: no tool named 'nope' on server 'hostile'\n",
    ),
    "unknown tool, disable": (
        ["disable", "hostile", "nope"],
        "agentty-tui: no tool named 'nope' on server 'hostile'\n",
    ),
    "JSON-RPC error": (
        ["call", "hostile", "rpc_error"],
        "agentty-tui: calling 'rpc_error' on 'hostile' failed: protocol error: "
        "refused ␛]0;pwned␇␛[2J␛[H\n",
    ),
    "request timeout": (
        ["call", "hostile", "hang"],
        f"agentty-tui: calling 'hang' on 'hostile' failed: no answer within {REQUEST_TIMEOUT} s "
        "(request timeout)\n",
    ),
    # The server's stderr stays in its log ({log}: its path): the one line says where.
    "server dies mid-call": (
        ["call", "hostile", "die"],
        "agentty-tui: calling 'die' on 'hostile' failed: the server exited with status 3 "
        "(its stderr is in {log})\n",
    ),
    "server did not connect": (
        ["call", "dead", "clip"],
        "agentty-tui: server 'dead' did not connect: the server exited with status 4 "
        "(its stderr is in {log})\n",
    ),
}


def log_of(server: str, config: Path) -> Path:
    """Where the ``agentty-tui`` child writes ``server``'s log (conftest sets XDG_STATE_HOME)."""
    return Path(os.environ["XDG_STATE_HOME"]) / "agentty" / "logs" / log_file_name(server, config)


@pytest.mark.parametrize("case", list(FAILURES))
def test_every_failure_is_one_line_with_its_status(config: Path, case: str) -> None:
    args, stderr = FAILURES[case]
    log = log_of(args[1], config)
    before = config.read_bytes()
    result = run(*args, "--config", str(config))
    assert (result.returncode, result.stderr, result.stdout) == (1, stderr.format(log=log), "")
    assert config.read_bytes() == before
    if "{log}" in stderr:
        # There, as a terminal may show it: `cat` or `less` of the log obeys no control.
        written = log.read_bytes()
        assert "dying ␛]0;pwned␇␛[2J␛[H\\x9b31m\n" in written.decode(), "the stderr is there"
        assert unsafe_chars(written.decode(), allowed="\n") == []


def test_a_config_write_that_runs_out_of_space_is_one_line(write_config: WriteConfig) -> None:
    """A cap on file sizes makes the write fail as a full disk would (EFBIG for ENOSPC)."""
    config = write_config({"plain": {"command": "x", "tools": {"exclude": ["echo"]}}})
    before = config.read_bytes()
    result = run("enable", "plain", "echo", "--config", str(config), file_size_limit=16)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == f"agentty-tui: {config}: File too large\n"
    assert config.read_bytes() == before
    assert [p.name for p in config.parent.iterdir() if p.name.endswith(".tmp")] == []


def test_a_warning_is_one_line_pointing_to_the_servers_log(config: Path) -> None:
    result = run("disable", "dead", "clip", "--config", str(config))
    assert (result.returncode, result.stdout) == (0, "disabled dead/clip\n")
    assert result.stderr == (
        "agentty-tui: warning: could not check the tool name, 'dead' did not connect: "
        f"the server exited with status 4 (its stderr is in {log_of('dead', config)})\n"
    )


NUL = "\x00"
UNSPAWNABLE: dict[str, dict[str, object]] = {
    "nul-command": {"command": f"tr{NUL}ue"},
    "nul-arg": {"command": "true", "args": ["ok", f"a{NUL}b"]},
    "nul-cwd": {"command": "true", "cwd": f"/tmp{NUL}x"},
    "eq-env-name": {"command": "true", "env": {"A=B": "1"}},
    "nul-env-value": {"command": "true", "env": {"OK": f"x{NUL}y"}},
}
"""Entries no process can be started with, each in every dialect: a raw ``ValueError`` at the
spawn unless the loader names them."""
SURROGATES: dict[str, dict[str, object]] = {
    "surrogate-env-name": {"command": "true", "env": {"\ud800": "1"}},
    "surrogate-arg": {"command": "true", "args": ["\udc9b"]},
}
"""Entries with a lone surrogate, which JSON can spell (``"\\ud800"``) and TOML cannot."""
EXPECTED_PROBLEMS = {
    "nul-command": ("command", "it holds a NUL character (\\u0000)"),
    "nul-arg": ("args[1]", "it holds a NUL character (\\u0000)"),
    "nul-cwd": ("cwd", "it holds a NUL character (\\u0000)"),
    "eq-env-name": ("env", "'A=B' cannot be an environment variable"),
    "nul-env-value": ("env.OK", "it holds a NUL character (\\u0000)"),
    "surrogate-env-name": ("env", "'\\ud800' cannot be an environment variable"),
    "surrogate-arg": ("args[0]", "it holds a lone surrogate"),
}


def _toml_string(text: str) -> str:
    return json.dumps(text)  # a JSON string of ASCII is a TOML basic string too


def _dialect_file(tmp_path: Path, dialect: str) -> Path:
    servers = dict(UNSPAWNABLE) if dialect == "codex" else {**UNSPAWNABLE, **SURROGATES}
    if dialect == "codex":
        lines = []
        for name, entry in servers.items():
            lines.append(f'[mcp_servers."{name}"]')
            for key, value in entry.items():
                if isinstance(value, str):
                    lines.append(f"{key} = {_toml_string(value)}")
                elif isinstance(value, list):
                    lines.append(f"{key} = [{', '.join(map(_toml_string, value))}]")
                else:
                    assert isinstance(value, dict)
                    pairs = (f"{_toml_string(k)} = {_toml_string(v)}" for k, v in value.items())
                    lines.append(f"{key} = {{ {', '.join(pairs)} }}")
        path = tmp_path / "config.toml"
        path.write_text("\n".join(lines) + "\n")
        return path
    key = "servers" if dialect == "vscode" else "mcpServers"
    path = tmp_path / f"{dialect}.json"
    path.write_text(json.dumps({key: servers}))  # ASCII: NUL as \u0000, surrogates as \ud800
    return path


@pytest.mark.parametrize("dialect", ["claude", "gemini", "vscode", "codex"])
def test_an_entry_no_process_can_be_given_is_named_at_load(tmp_path: Path, dialect: str) -> None:
    path = _dialect_file(tmp_path, dialect)
    result = run("list", "--format", dialect, "--config", str(path))
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert "ValueError" not in result.stdout and "UnicodeEncodeError" not in result.stdout
    names = [*UNSPAWNABLE, *([] if dialect == "codex" else SURROGATES)]
    for name in names:
        field, problem = EXPECTED_PROBLEMS[name]
        # A JSON file says the line too (all of it is on line 1); TOML does not.
        where = path if dialect == "codex" else f"{path}:1"
        line = f"    ! {where}: server '{name}', field '{field}': {problem}"
        assert line in result.stdout, (name, result.stdout)
    assert unsafe_chars(result.stdout, allowed="\n") == []
