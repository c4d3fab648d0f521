"""Codex in a fake home: what ``codex mcp list/get --json`` say, and which tools it sends.

``CodexHome`` holds the user's ``~/.codex/config.toml`` (as a dict), the project's
``<project>/.codex/config.toml``, and the project's trust (``[projects."<root>"]
trust_level``): 0.171.0 reads the project's file only in a trusted project. ``tools_sent()``
runs ``codex exec hi`` with a model provider whose ``base_url`` is the loopback stand-in for
the Responses API, and returns the tool names of its request (an MCP server's tools as
``mcp__<server>__<tool>``, see ``standin.ModelStandIn.tool_names``).

Quiet settings every run gets (with them a run made no DNS look-up and no connection but to
the stand-in; without them it looked up hosts of the plugin marketplace and of analytics):
``check_for_update_on_startup = false``, ``[analytics] enabled = false``, ``[feedback]
enabled = false``, ``[otel] exporter = "none"``, and the ``plugins``, ``remote_plugin`` and
``apps`` features off.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomlkit

from tests.hosts.programs import Ran, host_env, light_argv, program_path, run_program
from tests.hosts.standin import model_standin

RUN_TIMEOUT = 60.0
"""Seconds one codex run may take (``mcp`` commands take well under a second, ``exec`` 3 s)."""

QUIET_SETTINGS: dict[str, Any] = {
    "check_for_update_on_startup": False,
    "analytics": {"enabled": False},
    "feedback": {"enabled": False},
    "otel": {"exporter": "none"},
    "features": {"plugins": False, "remote_plugin": False, "apps": False},
}
"""User settings every run gets (see the module's docstring)."""

STANDIN_PROVIDER = "standin"
STANDIN_KEY_VAR = "STANDIN_API_KEY"


def light_entry(name: str, tools: int = 3, **more: Any) -> dict[str, Any]:
    """A Codex ``[mcp_servers.NAME]`` table for ``light_server.py``.

    ``startup_timeout_sec`` is raised from its default (10 s), which a loaded 2-core machine
    can miss when several servers start at once.
    """
    argv = light_argv(name, tools)
    return {"command": argv[0], "args": argv[1:], "startup_timeout_sec": 40, **more}


def sent_names(server: str, tools: list[str]) -> list[str]:
    """What ``tool_names`` calls these tools of ``server``."""
    return [f"mcp__{server}__{tool}" for tool in tools]


@dataclass
class CodexHome:
    """A fake ``HOME`` and project for Codex; edit the dicts, then run."""

    home: Path
    project: Path
    user: dict[str, Any] = field(default_factory=dict)
    """``~/.codex/config.toml`` (QUIET_SETTINGS are added when written)."""
    workspace: dict[str, Any] = field(default_factory=dict)
    """``<project>/.codex/config.toml`` (written only when it holds something)."""
    trust: str | None = "trusted"
    """The project's ``trust_level`` in the user file (None: no entry for the project)."""

    @classmethod
    def make(cls, root: Path) -> CodexHome:
        """An empty home and a trusted project under ``root`` (no git repository)."""
        home, project = root / "home", root / "project"
        (home / ".codex").mkdir(parents=True)
        project.mkdir(parents=True)
        return cls(home=home, project=project)

    def write(self, extra: dict[str, Any] | None = None) -> None:
        """Write every file this home describes (``extra`` is added to the user file)."""
        user = {**QUIET_SETTINGS, **(extra or {}), **self.user}
        if self.trust is not None:
            user["projects"] = {str(self.project): {"trust_level": self.trust}}
        (self.home / ".codex" / "config.toml").write_text(tomlkit.dumps(user))
        if self.workspace:
            folder = self.project / ".codex"
            folder.mkdir(exist_ok=True)
            (folder / "config.toml").write_text(tomlkit.dumps(self.workspace))

    def run(
        self, *args: str, cwd: Path | None = None, extra_env: dict[str, str] | None = None
    ) -> Ran:
        """Run ``codex ARGS`` (in the project unless ``cwd``), on the files as last written."""
        codex = program_path("codex")
        env = host_env(self.home, extra_env)
        return run_program(
            [str(codex), *args], cwd=cwd or self.project, env=env, timeout=RUN_TIMEOUT
        )

    def mcp_list(self, cwd: Path | None = None) -> dict[str, dict[str, Any]]:
        """``codex mcp list --json``, by server name."""
        self.write()
        ran = self.run("mcp", "list", "--json", cwd=cwd)
        assert ran.returncode == 0, ran.describe()
        return {str(s["name"]): s for s in json.loads(ran.stdout)}

    def mcp_get(self, name: str) -> dict[str, Any]:
        """``codex mcp get NAME --json``."""
        self.write()
        ran = self.run("mcp", "get", name, "--json")
        assert ran.returncode == 0, ran.describe()
        got: dict[str, Any] = json.loads(ran.stdout)
        return got

    def tools_sent(self) -> list[str]:
        """Run ``codex exec hi`` against the stand-in; its first request's tool names."""
        with model_standin("openai") as standin:
            provider = {
                "name": STANDIN_PROVIDER,
                "base_url": f"{standin.url}/v1",
                "wire_api": "responses",
                "env_key": STANDIN_KEY_VAR,
            }
            self.write(
                {
                    "model": "gpt-5",
                    "model_provider": STANDIN_PROVIDER,
                    "model_providers": {STANDIN_PROVIDER: provider},
                }
            )
            ran = self.run(
                "exec", "--skip-git-repo-check", "hi", extra_env={STANDIN_KEY_VAR: "stand-in"}
            )
            sent = standin.tool_names()
        assert ran.returncode == 0, ran.describe()
        assert sent, f"no model request reached the stand-in\n{ran.describe()}"
        return sent[0]

    def mcp_tools_sent(self) -> list[str]:
        """The ``mcp__`` tools of the first request, sorted."""
        return sorted(n for n in self.tools_sent() if n.startswith("mcp__"))

    def git_init(self) -> None:
        """Make the project a git repository (Codex finds the project root by it)."""
        subprocess.run(["git", "init", "-q", str(self.project)], check=True)
