"""A writer killed at any moment leaves the old file or the new one, never a partial one.

Writer processes (forked by ``config_writer.py zygote``, so that 30 kills do not cost 30
interpreter starts) apply edits in a loop to a 200-server config (about 60 kB, so a write takes
some milliseconds), reporting on stdout how many they have finished. The test SIGKILLs the writer
at a random moment, 30 times, and starts the next one from where the file is. After each kill the
file must be exactly the state after the last edit the writer reported or after the one it was in
the middle of; no other state (half-written, a mix) is allowed, and every server entry is
complete. While the writer runs, the test reads the file as fast as it can: every read must be a
whole document (those reads are also the random delay before the kill).

What a killed writer does leave behind is its temp file (``.mcp.json.<hex>.tmp``) when it died
between creating it and renaming it over the target; nothing cleans those up (see
``test_a_writer_killed_before_the_rename_leaves_the_old_file``).
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from agentty_tui.config import ConfigStore
from tests.config.config_writer import (
    CYCLE_SERVERS,
    big_config,
    cycle_edit,
    cycle_state,
    server_name,
)

WRITER = Path(__file__).resolve().parent / "config_writer.py"
KILLS = 30
TEMP_NAME = re.compile(r"\.mcp\.json\.[0-9a-f]{8}\.tmp")


def ordered(value: Any) -> Any:
    """A JSON value with objects as lists of pairs, so equality also checks key order."""
    if isinstance(value, dict):
        return [(key, ordered(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [ordered(item) for item in value]
    return value


def _check_complete(path: Path) -> None:
    """The file parses, validates, and every server entry is all there."""
    config = ConfigStore(path).load()
    assert [server.name for server in config.servers] == [
        server_name(i) for i in range(CYCLE_SERVERS)
    ]
    assert all(server.problem is None for server in config.servers)
    original = big_config()["mcpServers"]
    for name, entry in json.loads(path.read_bytes())["mcpServers"].items():
        assert {key: value for key, value in entry.items() if key != "tools"} == original[name]


def _leftovers(directory: Path) -> list[str]:
    """Names in ``directory`` other than the config; only temp files may be there."""
    names = sorted(p.name for p in directory.iterdir())
    others = [name for name in names if name != "mcp.json"]
    assert all(TEMP_NAME.fullmatch(name) for name in others), others
    return others


def _read_for(path: Path, seconds: float) -> None:
    """Read the file over and over for ``seconds`` while a writer runs: every read must be a
    whole document (parsed in full whenever its bytes changed) with all the servers.

    This is also the random delay before a kill; the reads are cheap so that they come fast
    enough to catch a file caught half-written.
    """
    deadline = time.monotonic() + seconds
    last = b""
    while time.monotonic() < deadline:
        data = path.read_bytes()
        assert data.endswith(b"}\n"), f"a reader saw {len(data)} bytes ending {data[-20:]!r}"
        if data != last:
            servers = json.loads(data)["mcpServers"]
            assert len(servers) == CYCLE_SERVERS
            assert all("x-note" in entry for entry in servers.values())
            last = data


def test_a_writer_killed_at_random_moments_leaves_old_or_new_file(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(big_config(), indent=2) + "\n")
    rng = random.Random(20240607)  # the kill moments still vary with timing; the checks do not
    applied = 0  # edits in the file so far
    zygote = subprocess.Popen(
        [sys.executable, str(WRITER), "zygote", str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert zygote.stdin is not None
    assert zygote.stdout is not None
    running: int | None = None  # the pid of a writer not yet reaped

    def next_line() -> str:
        line = zygote.stdout.readline() if zygote.stdout is not None else ""
        assert line, "the writer zygote ended early"
        return line

    try:
        for kill in range(KILLS):
            zygote.stdin.write(f"{applied}\n")
            zygote.stdin.flush()
            reported = 0
            while running is None or reported == 0:  # until it has a pid and one edit is done
                line = next_line()
                assert not line.startswith("dead"), "the writer died by itself"
                if line.startswith("pid "):
                    running = int(line.split()[1])
                else:
                    reported = int(line)
            _read_for(path, rng.uniform(0, 0.06))
            os.kill(running, signal.SIGKILL)
            while not (line := next_line()).startswith("dead "):
                reported = int(line)
            running = None
            status = int(line.split()[1])
            assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL

            on_disk = ordered(json.loads(path.read_bytes()))
            if on_disk == ordered(cycle_state(applied + reported)):
                applied += reported
            else:
                # The kill came after the rename of the next edit and before its report.
                assert on_disk == ordered(cycle_state(applied + reported + 1)), (
                    f"kill {kill}: the file is neither the state after edit {applied + reported} "
                    f"nor after edit {applied + reported + 1}"
                )
                applied += reported + 1
            _check_complete(path)
            assert len(_leftovers(tmp_path)) <= kill + 1
    finally:
        if running is not None:
            os.kill(running, signal.SIGKILL)
        zygote.stdin.close()
        try:
            zygote.wait(timeout=30)
        finally:
            if zygote.poll() is None:
                zygote.kill()
                zygote.wait()
            zygote.stdout.close()
            assert zygote.stderr is not None
            errors = zygote.stderr.read()
            zygote.stderr.close()
    assert zygote.returncode == 0, errors
    assert errors == ""
    # The writers really made progress between kills, and the store still takes edits.
    assert applied >= KILLS
    ConfigStore(path, lock_timeout=5).apply(cycle_edit(applied))
    assert ordered(json.loads(path.read_bytes())) == ordered(cycle_state(applied + 1))


def test_a_writer_killed_before_the_rename_leaves_the_old_file(tmp_path: Path) -> None:
    """Killed with its temp file complete but not yet renamed: the old bytes stay, and the temp
    file is left behind (nothing removes the temp files of dead writers)."""
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(big_config(), indent=2) + "\n")
    before = path.read_bytes()
    inode = path.stat().st_ino

    writer = subprocess.run(
        [sys.executable, str(WRITER), "die-before-replace", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert writer.returncode == -signal.SIGKILL, writer.stderr
    assert path.read_bytes() == before
    assert path.stat().st_ino == inode
    (temp,) = _leftovers(tmp_path)
    # The orphan is the complete new file, never renamed.
    assert json.loads((tmp_path / temp).read_bytes()) == cycle_state(1)
    # The dead writer's lock went with it: the next writer gets it at once, succeeds, and
    # clears the orphan away.
    ConfigStore(path, lock_timeout=5).apply(cycle_edit(0))
    assert ordered(json.loads(path.read_bytes())) == ordered(cycle_state(1))
    assert _leftovers(tmp_path) == []
