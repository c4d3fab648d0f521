"""Several processes editing one config file at once lose no edit.

Each writer process (``config_writer.py toggle``) turns off its own tools of one server one edit at
a time, then turns half of them back on; the processes start together (a start gate on stdin,
opened once every one has imported the store) so their read-edit-write rounds overlap. The sidecar
``flock`` orders them; without it, concurrent rounds would clobber each other or run out of
retries.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from agentty_tui.config import ConfigStore

WRITER = Path(__file__).resolve().parent / "config_writer.py"

WRITERS = 4
EDITS_PER_WRITER = 15

ORIGINAL: dict[str, Any] = {
    "$schema": "https://example.invalid/mcp.schema.json",
    "mcpServers": {
        "shared": {"command": "srv", "tools": {"exclude": ["theirs"], "x-note": 1}, "x": [1]},
        "other": {"url": "http://127.0.0.1:9/mcp"},
    },
    "zLast": True,
}


def _start(path: Path, prefix: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            str(WRITER),
            "toggle",
            str(path),
            "shared",
            prefix,
            str(EDITS_PER_WRITER),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def test_processes_editing_at_once_lose_no_edit(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(ORIGINAL, indent=2) + "\n")
    prefixes = [f"w{i}-" for i in range(WRITERS)]
    writers = [_start(path, prefix) for prefix in prefixes]
    try:
        for writer in writers:
            assert writer.stdout is not None
            assert writer.stdout.readline() == b"ready\n"
        for writer in writers:  # open the gate for all of them together
            assert writer.stdin is not None
            writer.stdin.write(b"g")
            writer.stdin.flush()
        results = [writer.communicate(timeout=120) for writer in writers]
    finally:
        for writer in writers:
            if writer.poll() is None:
                writer.kill()
                writer.wait()
    for writer, (out, err) in zip(writers, results, strict=True):
        assert writer.returncode == 0, err.decode()
        assert out == b"done\n"

    # Each writer's even-numbered tools stay off, the odd ones went off and back on.
    expected = ["theirs"] + [
        f"{prefix}{j}" for prefix in prefixes for j in range(0, EDITS_PER_WRITER, 2)
    ]
    document = json.loads(path.read_text())
    shared = document["mcpServers"]["shared"]
    assert sorted(shared["tools"]["exclude"]) == sorted(expected)
    assert shared["tools"]["exclude"][0] == "theirs"
    # Everything else is as it was, in its order.
    shared["tools"]["exclude"] = ["theirs"]
    assert json.dumps(document) == json.dumps(ORIGINAL)
    assert ConfigStore(path).load().server("shared") is not None
    assert sorted(os.listdir(tmp_path)) == ["mcp.json"]
