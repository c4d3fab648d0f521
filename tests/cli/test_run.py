"""The program's own end (``cli.run``): it ends the process at once, its output complete."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def test_the_output_of_a_piped_command_is_whole_and_the_status_is_mains(tmp_path: Path) -> None:
    """Through a pipe the output is buffered: ``os._exit`` must come after its flush."""
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"s": {"command": "true"}}}))
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    env.pop("PYTHONUNBUFFERED", None)  # what a user's shell has: a pipe is block-buffered
    done = subprocess.run(
        [sys.executable, "-m", "agentty_tui", "disable", "s", "--config", str(config)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, f"disabled 's' in {config}\n", "")
    missing = subprocess.run(
        [sys.executable, "-m", "agentty_tui", "enable", "nope", "--config", str(config)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert missing.returncode == 1
    assert missing.stderr == "agentty-tui: no server named 'nope' in the config\n"
