"""A fixed workspace model for the picker's tests: servers from several hosts' files, one in
two files, a shadowed entry, and project servers waiting for trust.

Paths are fixed strings (no file is read), so the snapshots do not depend on a temporary folder.
"""

from __future__ import annotations

from pathlib import Path

from agentty_tui.config.sources import workspace_sources
from agentty_tui.config.trust import TrustBook
from agentty_tui.config.workspace import Workspace, add_targets
from agentty_tui.model import EntryFact, HttpSpec, PluginModel, ServerState, SourceRef, StdioSpec
from tests.ui.fakes import NATIVE, StaticSource, tool

__all__ = [
    "CLAUDE_LOCAL",
    "CODEX_USER",
    "OUR_USER",
    "PROJECT_MCP",
    "ROOT",
    "SECRET",
    "WorkspaceSource",
    "workspace_model",
]

HOME = "/home/ada"
ROOT = "/home/ada/src/app"
OUR_USER = SourceRef(path=f"{HOME}/.config/agentty/mcp.json", scope="user", host="agentty")
CLAUDE_USER = SourceRef(path=f"{HOME}/.claude.json", scope="user", host="claude")
CLAUDE_LOCAL = SourceRef(path=f"{HOME}/.claude.json", scope="local", host="claude")
CODEX_USER = SourceRef(path=f"{HOME}/.codex/config.toml", scope="user", host="codex")
PROJECT_MCP = SourceRef(path=f"{ROOT}/.mcp.json", scope="project", host="claude")
SECRET = "hunter2-secret"
"""A credential in an untrusted server's arguments and URL: never on screen."""


def _stdio(name: str, *args: str) -> StdioSpec:
    return StdioSpec(command="python", args=("-m", f"demo.{name}", *args))


REPO_TOOL_SPEC = StdioSpec(
    command="python",
    args=("-m", "demo.repo_tool", f"https://api.example.com/v1?token={SECRET}"),
    env={"PATH": ".bin:/usr/bin", "API_KEY": SECRET},
)
REPO_TOOL_FACTS = (
    EntryFact(
        label="runs", value="python -m demo.repo_tool 'https://api.example.com/v1?token=••••••••'"
    ),
    EntryFact(
        label="resolves",
        value=f"{ROOT}/.bin/python",
        alert="inside the project folder, found through a relative path",
    ),
    EntryFact(label="env", value="PATH=.bin:/usr/bin", alert="decides what runs"),
    EntryFact(label="env", value="API_KEY=••••••••"),
)
"""The facts ``config.entry_facts`` gives for it (fixed here: no file is read)."""
DOCS_SPEC = HttpSpec(
    url=f"https://docs.example.com/mcp?api_key={SECRET}",
    headers={"Authorization": "Bearer ${DOCS_TOKEN}"},
)
DOCS_FACTS = (
    EntryFact(label="url", value="https://docs.example.com/mcp?api_key=••••••••"),
    EntryFact(label="header", value="Authorization: Bearer ${DOCS_TOKEN}"),
)


def workspace_model() -> PluginModel:
    """``notes`` (Claude Code's local scope) shadows our user file's ``notes``; ``time`` is in
    Claude Code's and Codex's user files (one server, two sources); ``repo-tool`` and ``docs``
    are project servers waiting for trust (a URL with a token among the arguments, a URL with
    a token in its query); ``weather`` is ours and connected."""
    servers = (
        ServerState(
            name="notes",
            spec=_stdio("notes"),
            status="connected",
            tools=(tool("add_note"), tool("list_notes", enabled=False)),
            source=CLAUDE_LOCAL,
        ),
        ServerState(
            name="repo-tool",
            spec=REPO_TOOL_SPEC,
            status="untrusted",
            error="not trusted — T to trust, or agentty-tui trust repo-tool",
            source=PROJECT_MCP,
            trust_facts=REPO_TOOL_FACTS,
        ),
        ServerState(
            name="docs",
            spec=DOCS_SPEC,
            status="untrusted",
            error="not trusted — T to trust, or agentty-tui trust docs",
            source=PROJECT_MCP,
            trust_facts=DOCS_FACTS,
        ),
        ServerState(
            name="weather",
            spec=_stdio("weather"),
            status="connected",
            tools=(tool("forecast"),),
            source=OUR_USER,
        ),
        ServerState(
            name="time",
            spec=_stdio("time"),
            status="connected",
            tools=(tool("now"),),
            source=CLAUDE_USER,
            also_in=(CODEX_USER,),
        ),
    )
    shadowed = (
        ServerState(
            name="notes",
            spec=_stdio("old_notes"),
            status="shadowed",
            error=f"shadowed by {CLAUDE_LOCAL.label} ({CLAUDE_LOCAL.path})",
            source=OUR_USER,
            shadowed_by=CLAUDE_LOCAL,
        ),
    )
    return PluginModel(
        servers=servers,
        shadowed=shadowed,
        native_tools=NATIVE,
        config_path=ROOT,
    )


class WorkspaceSource(StaticSource):
    """A static source with a workspace behind it, as a bridge has, over the fixed paths
    above, none of which exists: the add form offers the files a workspace always offers
    (ours, Claude Code's local scope, the project's ``.mcp.json``), an import goes to our user
    file and offers none of the workspace's files."""

    def __init__(self, first: PluginModel) -> None:
        super().__init__(first)
        sources = workspace_sources(Path(HOME), {"XDG_CONFIG_HOME": f"{HOME}/.config"}, Path(ROOT))
        self.workspace = Workspace(
            sources,
            root=Path(ROOT),
            trust=TrustBook(Path(HOME) / "no-such-state" / "trust.json"),
            add_to=OUR_USER,
        )
        """Where a bridge keeps its config: here a workspace that is never loaded or written."""

    def add_targets(self) -> tuple[SourceRef, ...]:
        return add_targets(self.workspace)

    def import_target(self) -> Path:
        return Path(self.workspace.add_to.path)

    def config_files(self) -> tuple[Path, ...]:
        return self.workspace.watched_paths()
