"""Claude Code's interactive mode under a pseudo-terminal, turn by turn, against the stand-in.

``claude -p`` answers one prompt and exits, so it cannot show whether a running session takes a
change of its MCP tools. ``interactive_session`` starts ``claude`` as a person does (its TUI on a
pty of 150 x 45), and ``ClaudeSession.turn`` types one prompt and returns the MCP tools of the
model request it caused, so a test can change something between two turns of one session.

Measured with 2.1.197: with ``customApiKeyResponses`` approving the key's last 20 characters
the TUI asks nothing before its prompt; a turn's request reaches the stand-in in about a second.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pty
import select
import signal
import struct
import subprocess
import termios
import time
from collections.abc import Iterator
from dataclasses import dataclass

from tests.hosts.claude_code import QUIET_ENV, ClaudeCodeHome, mcp_tools
from tests.hosts.programs import host_env
from tests.hosts.standin import ModelStandIn, model_standin

API_KEY = "stand-in"
"""The key the session is given; its last 20 characters are approved in ``~/.claude.json``."""

PROMPT = "\u276f".encode()
"""The TUI's prompt mark, drawn once it takes input."""

TURN_TIMEOUT = 60.0
"""Seconds a turn may take to reach the stand-in (the first waits for the MCP servers)."""


@dataclass
class ClaudeSession:
    """A running interactive ``claude``: its pty's master side and the stand-in it talks to."""

    process: subprocess.Popen[bytes]
    master: int
    standin: ModelStandIn
    output: bytearray

    def turn(self, prompt: str) -> list[str]:
        """Type ``prompt`` and Enter; the sorted ``mcp__`` tools of the model request it made."""
        before = len(self.standin.tool_names())
        # The text, and Enter only once the TUI redrew it: keys and Enter read at once would be
        # taken as a paste whose Enter is a new line.
        shown = len(self.output)
        os.write(self.master, prompt.encode())
        self.wait_for_output(since=shown)
        os.write(self.master, b"\r")
        deadline = time.monotonic() + TURN_TIMEOUT
        while len(names := self.standin.tool_names()) <= before:
            if time.monotonic() > deadline:
                screen = self.output[-3000:].decode(errors="replace")
                raise AssertionError(
                    f"no model request for {prompt!r}; the screen's end:\n{screen}"
                )
            if self.process.poll() is not None:
                screen = self.output[-3000:].decode(errors="replace")
                said = f"claude exited with {self.process.returncode}; the screen's end:\n{screen}"
                raise AssertionError(said)
            self._drain(0.1)
        return mcp_tools(names[before])

    def first_turn(self, prompt: str) -> list[str]:
        """Turns of ``prompt`` until one's request carries MCP tools: the interactive mode does
        not wait for its MCP servers before a turn (``MCP_CONNECTION_NONBLOCKING`` is for
        ``-p``), so a turn typed while they connect goes without them."""
        deadline = time.monotonic() + TURN_TIMEOUT
        while not (tools := self.turn(prompt)) and time.monotonic() < deadline:
            self._drain(0.5)  # the servers are connecting: no event of theirs reaches here
        return tools

    def wait_for_output(self, since: int) -> None:
        """Read until the TUI has written more than its first ``since`` bytes."""
        deadline = time.monotonic() + TURN_TIMEOUT
        while len(self.output) <= since and time.monotonic() < deadline:
            self._drain(0.05)

    def turns_until(self, prompt: str, expected: list[str], within: float) -> list[str]:
        """Turns of ``prompt`` until one's request carries exactly the MCP tools ``expected``,
        for at most ``within`` seconds; the tools of the last turn. Claude Code takes a change
        in the background (a ``tools/list`` after the gateway's ``list_changed``, its settings
        file read again), so the turn right after the change may still carry the old list."""
        deadline = time.monotonic() + within
        while (tools := self.turn(prompt)) != expected and time.monotonic() < deadline:
            self._drain(0.2)  # nothing of Claude Code's background work shows here
        return tools

    def wait_for(self, mark: bytes) -> None:
        """Read until the TUI has written ``mark``, within ``TURN_TIMEOUT``."""
        deadline = time.monotonic() + TURN_TIMEOUT
        while mark not in self.output:
            if time.monotonic() > deadline or self.process.poll() is not None:
                screen = self.output[-3000:].decode(errors="replace")
                raise AssertionError(f"claude never showed {mark!r}; the screen's end:\n{screen}")
            self._drain(0.1)

    def _drain(self, seconds: float) -> None:
        """Read what the TUI writes for ``seconds`` (a child that cannot write stalls)."""
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    self.output += os.read(self.master, 65536)
                except OSError:  # EIO: the child closed its side
                    return


@contextlib.contextmanager
def interactive_session(claude: ClaudeCodeHome) -> Iterator[ClaudeSession]:
    """``claude`` in ``claude.project`` under a pty, the files as they are (not written here
    but for the key's approval); killed with everything it started at the end."""
    state_file = claude.home / ".claude.json"
    state = json.loads(state_file.read_text())
    state["customApiKeyResponses"] = {"approved": [API_KEY[-20:]], "rejected": []}
    state_file.write_text(json.dumps(state, indent=2) + "\n")
    with model_standin("anthropic") as standin:
        env = host_env(
            claude.home,
            {
                "ANTHROPIC_BASE_URL": standin.url,
                "ANTHROPIC_API_KEY": API_KEY,
                "TERM": "xterm-256color",
                **QUIET_ENV,
            },
        )
        env.pop("NO_COLOR", None)
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 45, 150, 0, 0))
        process = subprocess.Popen(
            claude.argv(),
            cwd=claude.project,
            env=env,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            start_new_session=True,
        )
        os.close(slave)
        session = ClaudeSession(process, master, standin, bytearray())
        try:
            session.wait_for(PROMPT)  # keys typed before its prompt is drawn are lost
            yield session
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            os.close(master)
