"""Claude Code in a fake home, asked which MCP tools it sends to its model.

``ClaudeCodeHome`` holds what the files say (``~/.claude.json``, the settings files,
``.mcp.json``) and writes them; ``tools_sent()`` runs ``claude -p hi`` against the loopback
stand-in for the Anthropic API and returns the tool names of the first model request.

The environment (measured with 2.1.197; docs/HOSTS_MEASURED.md):
- ``MCP_CONNECTION_NONBLOCKING=false``: the first request waits for the MCP servers (without
  it the first request may carry only a ``WaitForMcpServers`` tool), but only
  ``MCP_CONNECT_TIMEOUT_MS`` (5 s unless set; 40 s here), then goes without the ones still
  connecting;
- ``CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1``: with it the run made no DNS look-up and no
  connection but to the stand-in (without it, it looked up the real API's host name);
  ``DISABLE_TELEMETRY`` / ``DISABLE_ERROR_REPORTING`` are set too.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tests.hosts.etc_overlay import EtcOverlay
from tests.hosts.programs import Ran, host_env, light_argv, light_tools, program_path, run_program
from tests.hosts.standin import model_standin

Scope = Literal["user", "project", "local"]

RUN_TIMEOUT = 60.0
"""Seconds one ``claude -p`` run may take (about 3 s on an idle 2-core machine, 10 s loaded)."""

QUIET_ENV = {
    "MCP_CONNECTION_NONBLOCKING": "false",
    # Milliseconds a server may take to start; its default (30 s) was not always enough for
    # ten servers at once on a loaded 2-core machine.
    "MCP_TIMEOUT": "50000",
    # Milliseconds the first model request waits for servers still connecting before it goes
    # without them (the connection goes on in the background): 5 s unless set, which a loaded
    # machine's server start, or the gateway's with the servers behind it, can pass.
    "MCP_CONNECT_TIMEOUT_MS": "40000",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
}
"""The switches every run gets (see the module's docstring)."""


LIST_LINE = re.compile(r"^(?P<name>[^:]+): (?P<target>.*) - (?P<status>\S+ .+)$")
"""One server in ``claude mcp list``: ``name: command args - ✔ Connected``."""


def light_entry(name: str, tools: int = 3) -> dict[str, Any]:
    """A stdio entry for ``light_server.py``, shaped as ``claude mcp add`` writes one."""
    argv = light_argv(name, tools)
    return {"type": "stdio", "command": argv[0], "args": argv[1:], "env": {}}


def sent_names(server: str, tools: int) -> list[str]:
    """What Claude Code calls the first ``tools`` tools of ``light_server.py`` in ``server``."""
    return [f"mcp__{server}__{tool}" for tool in light_tools(tools)]


def mcp_tools(names: list[str]) -> list[str]:
    """The MCP tools among a request's tool names (``mcp__<server>__<tool>``), sorted."""
    return sorted(n for n in names if n.startswith("mcp__"))


@dataclass
class ClaudeCodeHome:
    """A fake ``HOME`` and project for Claude Code; edit the dicts, then run."""

    home: Path
    project: Path
    state: dict[str, Any]
    """``~/.claude.json``: onboarding done, the project trusted."""
    mcp_json: dict[str, Any] = field(default_factory=dict)
    """``<project>/.mcp.json`` (written only when it holds something)."""
    settings: dict[Scope, dict[str, Any]] = field(default_factory=dict)
    """Settings by scope: user ``~/.claude/settings.json``, project ``.claude/settings.json``,
    local ``.claude/settings.local.json`` (each written only when given)."""
    etc: EtcOverlay | None = None
    """Files under ``/etc`` (the managed settings and MCP file) for this home's runs, which
    then run in a private mount namespace (``etc_overlay``); ``None``: the machine's ``/etc``."""

    @classmethod
    def make(cls, root: Path) -> ClaudeCodeHome:
        """An empty home and project under ``root``: nothing configured, the project trusted."""
        home, project = root / "home", root / "project"
        home.mkdir(parents=True)
        project.mkdir(parents=True)
        state: dict[str, Any] = {
            "hasCompletedOnboarding": True,
            "projects": {str(project): {"hasTrustDialogAccepted": True}},
        }
        return cls(home=home, project=project, state=state)

    @property
    def project_state(self) -> dict[str, Any]:
        """The project's entry under ``projects`` in ``~/.claude.json``."""
        entry: dict[str, Any] = self.state["projects"][str(self.project)]
        return entry

    def add(self, scope: Scope, name: str, entry: dict[str, Any]) -> None:
        """Add an entry in ``scope`` (local: in the project's entry; project: ``.mcp.json``)."""
        if scope == "user":
            self.state.setdefault("mcpServers", {})[name] = entry
        elif scope == "local":
            self.project_state.setdefault("mcpServers", {})[name] = entry
        else:
            self.mcp_json.setdefault("mcpServers", {})[name] = entry

    def settings_path(self, scope: Scope) -> Path:
        """Where the settings of ``scope`` live."""
        if scope == "user":
            return self.home / ".claude" / "settings.json"
        name = "settings.json" if scope == "project" else "settings.local.json"
        return self.project / ".claude" / name

    def write(self) -> None:
        """Write every file this home describes."""
        (self.home / ".claude.json").write_text(json.dumps(self.state, indent=2) + "\n")
        if self.mcp_json:
            (self.project / ".mcp.json").write_text(json.dumps(self.mcp_json, indent=2) + "\n")
        for scope, data in self.settings.items():
            path = self.settings_path(scope)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(data, indent=2) + "\n")

    def argv(self, *args: str) -> list[str]:
        """``claude ARGS`` as this home runs it (inside the ``/etc`` overlay, when it has one)."""
        argv = [str(program_path("claude")), *args]
        return argv if self.etc is None else self.etc.wrap(argv)

    def tools_sent(
        self, extra_env: dict[str, str] | None = None, *, write: bool = True
    ) -> list[str]:
        """Write the files (unless told not to: a test that wrote them through the product),
        run ``claude -p hi``; the tool names of its first model request."""
        if write:
            self.write()
        with model_standin("anthropic") as standin:
            env = host_env(
                self.home,
                {
                    "ANTHROPIC_BASE_URL": standin.url,
                    "ANTHROPIC_API_KEY": "stand-in",
                    **QUIET_ENV,
                    **(extra_env or {}),
                },
            )
            ran = run_program(self.argv("-p", "hi"), cwd=self.project, env=env, timeout=RUN_TIMEOUT)
            sent = standin.tool_names()
        assert ran.returncode == 0, ran.describe()
        assert sent, f"no model request reached the stand-in\n{ran.describe()}"
        return sent[0]

    def run(self, *args: str, write: bool = True) -> Ran:
        """Write the files (unless told not to) and run ``claude ARGS`` in the project (no
        model involved)."""
        if write:
            self.write()
        env = host_env(self.home, QUIET_ENV)
        return run_program(self.argv(*args), cwd=self.project, env=env, timeout=RUN_TIMEOUT)

    def toggle(self, switches: dict[str, bool]) -> None:
        """Have Claude Code itself switch servers on or off, as its ``/mcp`` does: the SDK's
        ``mcp_toggle`` control request, one per server, in one headless run (the files as they
        are, not written first; no model involved)."""
        requests = [
            {
                "type": "control_request",
                "request_id": f"toggle-{index}",
                "request": {"subtype": "mcp_toggle", "serverName": name, "enabled": enabled},
            }
            for index, (name, enabled) in enumerate(switches.items())
        ]
        env = host_env(self.home, QUIET_ENV)
        argv = self.argv(
            "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"
        )
        text = "".join(json.dumps(request) + "\n" for request in requests)
        ran = run_program(argv, cwd=self.project, env=env, timeout=RUN_TIMEOUT, stdin=text)
        assert ran.returncode == 0, ran.describe()
        for request in requests:
            answer = f'"subtype":"success","request_id":"{request["request_id"]}"'
            assert answer in ran.stdout, ran.describe()

    def mcp_list(self) -> dict[str, str]:
        """``claude mcp list`` (it starts every server it shows): status by server name."""
        ran = self.run("mcp", "list")
        assert ran.returncode == 0, ran.describe()
        found = (LIST_LINE.match(line.strip()) for line in ran.stdout.splitlines())
        return {m["name"]: m["status"] for m in found if m}

    def mcp_tools_sent(
        self, extra_env: dict[str, str] | None = None, *, write: bool = True
    ) -> list[str]:
        """The ``mcp__`` tools of the first model request, sorted (``write`` as
        ``tools_sent``)."""
        return mcp_tools(self.tools_sent(extra_env, write=write))
