"""Gemini CLI in a fake home: what ``gemini mcp list`` says, and which tools it sends.

``GeminiHome`` holds the user settings (``~/.gemini/settings.json``), the project settings
(``<project>/.gemini/settings.json``) and whether the project is a trusted folder
(``~/.gemini/trustedFolders.json``; 0.61.0 runs no MCP server, not even a user one, in an
untrusted folder). ``mcp_list()`` parses ``gemini mcp list`` (it has no ``--json``, writes
to stderr and starts each server to show its state). ``tools_sent()`` runs ``gemini -p hi``
against the loopback stand-in for the Gemini API (``GOOGLE_GEMINI_BASE_URL``) and returns the
function names of its request: MCP tools are ``mcp_<server>_<tool>``.

The run uses ``--approval-mode yolo``: in the default mode a headless run leaves out every MCP
tool that would need a confirmation (all of them unless the entry says ``"trust": true``), so
only yolo shows what an interactive session offers its model. ``-m gemini-2.5-flash`` skips
the model router, whose classifier call would otherwise retry for a minute and a half.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.hosts.programs import Ran, host_env, light_argv, program_path, run_program
from tests.hosts.standin import model_standin

RUN_TIMEOUT = 90.0
"""Seconds one gemini run may take (5 to 12 s measured on a loaded 2-core machine)."""

QUIET_SETTINGS: dict[str, Any] = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
}
"""User settings every run gets: an API key login, no statistics, telemetry or update check."""

QUIET_ENV = {"GEMINI_CLI_NO_RELAUNCH": "true", "GEMINI_TELEMETRY_ENABLED": "false"}
"""No second node process (it relaunches itself with a bigger heap otherwise), no telemetry."""

LIST_LINE = re.compile(
    r"^(?P<mark>\S+) (?P<name>[^:]+): (?P<command>.*) \((?P<transport>[\w-]+)\) - (?P<state>.+)$"
)
"""One server in ``gemini mcp list``: ``✓ name: command args (stdio) - Connected``."""


def light_entry(name: str, tools: int = 3, **more: Any) -> dict[str, Any]:
    """A Gemini ``mcpServers`` entry for ``light_server.py``."""
    argv = light_argv(name, tools)
    return {"command": argv[0], "args": argv[1:], **more}


def sent_names(server: str, tools: list[str]) -> list[str]:
    """What Gemini CLI calls these tools of ``server``."""
    return [f"mcp_{server}_{tool}" for tool in tools]


@dataclass(frozen=True)
class Listed:
    """One server as ``gemini mcp list`` shows it."""

    name: str
    command: str
    transport: str
    state: str
    """``Connected``, ``Disconnected``, ``Disabled`` or ``Blocked``."""


@dataclass
class GeminiHome:
    """A fake ``HOME`` and project for Gemini CLI; edit the dicts, then run."""

    home: Path
    project: Path
    user: dict[str, Any] = field(default_factory=dict)
    """``~/.gemini/settings.json`` (QUIET_SETTINGS are added when written)."""
    workspace: dict[str, Any] = field(default_factory=dict)
    """``<project>/.gemini/settings.json`` (written only when it holds something)."""
    trusted: bool = True

    @classmethod
    def make(cls, root: Path) -> GeminiHome:
        """An empty home and a trusted project under ``root``."""
        home, project = root / "home", root / "project"
        (home / ".gemini").mkdir(parents=True)
        project.mkdir(parents=True)
        return cls(home=home, project=project)

    def write(self) -> None:
        """Write every file this home describes."""
        (self.home / ".gemini" / "settings.json").write_text(
            json.dumps({**QUIET_SETTINGS, **self.user}, indent=2) + "\n"
        )
        trust = {str(self.project): "TRUST_FOLDER" if self.trusted else "DO_NOT_TRUST"}
        (self.home / ".gemini" / "trustedFolders.json").write_text(json.dumps(trust) + "\n")
        if self.workspace:
            folder = self.project / ".gemini"
            folder.mkdir(exist_ok=True)
            (folder / "settings.json").write_text(json.dumps(self.workspace, indent=2) + "\n")

    def run(
        self,
        *args: str,
        extra_env: dict[str, str] | None = None,
        write: bool = True,
        cwd: Path | None = None,
    ) -> Ran:
        """Write the files (unless told not to) and run ``gemini ARGS`` in the project (or
        ``cwd``)."""
        gemini = program_path("gemini")
        if write:
            self.write()
        env = host_env(self.home, {**QUIET_ENV, **(extra_env or {})})
        folder = cwd or self.project
        return run_program([str(gemini), *args], cwd=folder, env=env, timeout=RUN_TIMEOUT)

    def mcp_list(self) -> dict[str, Listed]:
        """``gemini mcp list``, by server name."""
        ran = self.run("mcp", "list")
        assert ran.returncode == 0, ran.describe()
        listed: dict[str, Listed] = {}
        # 0.61.0 writes the list to stderr.
        for line in (ran.stdout + "\n" + ran.stderr).splitlines():
            match = LIST_LINE.match(line.strip())
            if match:
                name = match["name"]
                listed[name] = Listed(name, match["command"], match["transport"], match["state"])
        return listed

    def tools_sent(self, *flags: str) -> list[str]:
        """Run ``gemini -p hi`` (yolo unless ``flags`` say otherwise); the first request's
        function names."""
        with model_standin("gemini") as standin:
            extra = {"GOOGLE_GEMINI_BASE_URL": standin.url, "GEMINI_API_KEY": "stand-in"}
            args = flags or ("--approval-mode", "yolo")
            ran = self.run("-m", "gemini-2.5-flash", *args, "-p", "hi", extra_env=extra)
            sent = standin.tool_names()
        assert ran.returncode == 0, ran.describe()
        assert sent, f"no model request reached the stand-in\n{ran.describe()}"
        return sent[0]

    def mcp_tools_sent(self, *flags: str) -> list[str]:
        """The ``mcp_`` tools of the first request, sorted."""
        return sorted(n for n in self.tools_sent(*flags) if n.startswith("mcp_"))
