"""The text of each host's config file in a fake home, written the way that host writes it.

``tests/fake_home.py`` decides which servers go where; this module only spells them: Claude
Code's ``~/.claude.json`` as ``JSON.stringify(x, null, 2)`` (no final newline, several projects,
many keys of its own), hand-written ``mcpServers`` JSON for Claude Desktop, Cursor and a
project's ``.mcp.json``, Gemini CLI settings with comments among other settings, VS Code's
JSONC (comments, trailing commas, ``inputs``) and Codex TOML (comments, other settings). Every
text is a pure function of its arguments: the same plan gives the same bytes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

__all__ = [
    "PlannedServer",
    "claude_code_json",
    "codex_toml",
    "gemini_settings",
    "mcp_servers_json",
    "source_texts",
    "vscode_jsonc",
]

_BARE_TOML_KEY = re.compile(r"[A-Za-z0-9_-]+")


@dataclass(frozen=True)
class PlannedServer:
    """One server as a file spells it: how it is reached, and the host keys that ride along."""

    name: str
    """Its name in the file."""
    argv: tuple[str, ...] | None = None
    """Command and arguments of a stdio server (``None`` for a URL server)."""
    url: str | None = None
    """Endpoint of a Streamable HTTP server (``None`` for a stdio server)."""
    env: Mapping[str, str] = field(default_factory=dict)
    """Environment of a stdio server."""
    comment: str | None = None
    """A comment written above the entry, in formats that have comments."""
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Host keys of the entry that are not its connection (Gemini ``timeout``, our ``tools``)."""


def _entry(server: PlannedServer, *, typed: bool, url_key: str = "url") -> dict[str, Any]:
    """A JSON entry; ``typed`` writes ``"type"`` as Claude Code and VS Code do."""
    if server.argv is not None:
        entry: dict[str, Any] = {"type": "stdio"} if typed else {}
        entry["command"] = server.argv[0]
        entry["args"] = list(server.argv[1:])
        if server.env or typed:
            entry["env"] = dict(server.env)
    else:
        entry = {"type": "http"} if typed else {}
        entry[url_key] = server.url
    return {**entry, **server.extra}


def _servers(servers: Sequence[PlannedServer], **spelling: Any) -> dict[str, Any]:
    return {server.name: _entry(server, **spelling) for server in servers}


def mcp_servers_json(
    servers: Sequence[PlannedServer], *, typed: bool = False, top: Mapping[str, Any] | None = None
) -> str:
    """Hand-edited ``mcpServers`` JSON (Claude Desktop, Cursor, ours, a project's ``.mcp.json``):
    ``top`` keys first, two-space indent, a final newline."""
    document = {**(top or {}), "mcpServers": _servers(servers, typed=typed)}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _project_entry(servers: Sequence[PlannedServer], *, history: Sequence[str]) -> dict[str, Any]:
    """One ``projects[...]`` object as Claude Code keeps it."""
    return {
        "allowedTools": ["Bash(git status:*)", "Edit"],
        "history": [{"display": line, "pastedContents": {}} for line in history],
        "mcpContextUris": [],
        "mcpServers": _servers(servers, typed=True),
        "enabledMcpjsonServers": [],
        "disabledMcpjsonServers": [],
        "hasTrustDialogAccepted": True,
        "projectOnboardingSeenCount": 2,
        "hasClaudeMdExternalIncludesApproved": False,
        "hasClaudeMdExternalIncludesWarningShown": False,
        "lastCost": 0.4211,
        "lastAPIDuration": 51234,
        "lastDuration": 612345,
        "lastSessionId": "5f0c9a1e-2b7d-4c3e-9a61-0d2f7b8e4c15",
        "exampleFiles": ["cli.py", "store.py", "bridge.py"],
        "hasCompletedProjectOnboarding": True,
    }


def claude_code_json(
    user: Sequence[PlannedServer],
    projects: Mapping[str, Sequence[PlannedServer]],
) -> str:
    """``~/.claude.json``: ``user`` servers at the top, each project's local servers under
    ``projects[root].mcpServers``, among the many keys Claude Code keeps there; laid out as
    ``JSON.stringify(x, null, 2)`` (non-ASCII kept, no final newline)."""
    histories: tuple[list[str], ...] = (
        ["fix the failing test in tests/test_cli.py", "résumé: the layering ✓"],
        ["why does the build fail?"],
        [],
    )
    document = {
        "numStartups": 184,
        "installMethod": "native",
        "autoUpdates": True,
        "tipsHistory": {"new-user-warmup": 7, "shift-enter": 20, "memory-command": 15},
        "promptQueueUseCount": 3,
        "userID": "6f1d2c3b4a59687766554433221100ffeeddccbbaa99887766554433221100ff",
        "firstStartTime": "2025-06-02T08:14:51.120Z",
        "oauthAccount": {
            "accountUuid": "0b6e3f2a-8d41-4c7a-b5e9-1f2d3c4b5a69",
            "emailAddress": "dev@example.com",
            "organizationUuid": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
            "organizationRole": "admin",
            "workspaceRole": None,
            "organizationName": 'Example "Co"',
        },
        "hasCompletedOnboarding": True,
        "lastOnboardingVersion": "1.0.88",
        "mcpServers": _servers(user, typed=True),
        "projects": {
            root: _project_entry(servers, history=histories[index % len(histories)])
            for index, (root, servers) in enumerate(projects.items())
        },
        "cachedChangelog": "# Changelog\n\n## 1.0.88\n\n- Fixed a crash on `/mcp` \\ resume\n",
        "subscriptionNoticeCount": 0,
        "hasAvailableSubscription": False,
    }
    return json.dumps(document, indent=2, ensure_ascii=False)


def _comment_before(text: str, key: str, comment: str, indent: int = 2) -> str:
    """``text`` with ``// comment`` on the line above the first ``"key":`` at ``indent``."""
    marker = " " * indent + json.dumps(key) + ":"
    at = text.index("\n" + marker) + 1
    return text[:at] + " " * indent + "// " + comment + "\n" + text[at:]


def gemini_settings(
    servers: Sequence[PlannedServer],
    *,
    settings: Mapping[str, Any],
    excluded: Sequence[str] = (),
    comment: str,
) -> str:
    """Gemini CLI's ``settings.json``: ``settings`` first, then ``mcpServers`` (Gemini's
    spelling: ``httpUrl``) and ``mcp.excluded``; one ``//`` comment (Gemini strips comments,
    but allows no trailing comma)."""
    document: dict[str, Any] = {**settings, "mcpServers": _servers(servers, typed=False)}
    for server in servers:
        if server.url is not None:
            document["mcpServers"][server.name] = _entry(server, typed=False, url_key="httpUrl")
    if excluded:
        document["mcp"] = {"excluded": list(excluded)}
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    return _comment_before(text, "mcpServers", comment)


def _jsonc(value: Any, level: int) -> str:
    """``value`` as JSON with a trailing comma after every member, VS Code style."""
    pad, inner = "  " * level, "  " * (level + 1)
    if isinstance(value, dict) and value:
        members = [f"{inner}{json.dumps(k)}: {_jsonc(v, level + 1)},\n" for k, v in value.items()]
        return "{\n" + "".join(members) + pad + "}"
    if isinstance(value, list) and value and not all(isinstance(v, str) for v in value):
        items = [f"{inner}{_jsonc(v, level + 1)},\n" for v in value]
        return "[\n" + "".join(items) + pad + "]"
    return json.dumps(value, ensure_ascii=False)


def vscode_jsonc(
    servers: Sequence[PlannedServer], *, inputs: Sequence[Mapping[str, Any]], heading: str
) -> str:
    """VS Code's ``mcp.json``: a heading comment, ``inputs``, then ``servers``, each entry with
    ``type`` and the comment planned for it; trailing commas everywhere."""
    lines = [f"// {heading}\n", "{\n", f'  "inputs": {_jsonc(list(inputs), 1)},\n']
    lines.append('  "servers": {\n')
    for server in servers:
        if server.comment is not None:
            lines.append(f"    // {server.comment}\n")
        entry = _jsonc(_entry(server, typed=True), 2)
        lines.append(f"    {json.dumps(server.name)}: {entry},\n")
    lines += ["  },\n", "}\n"]
    return "".join(lines)


def _toml_key(key: str) -> str:
    return key if _BARE_TOML_KEY.fullmatch(key) else json.dumps(key)


def _toml_value(value: Any) -> str:
    """A TOML value; JSON's string escapes are TOML's basic-string escapes."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    assert isinstance(value, Mapping)
    pairs = ", ".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items())
    return "{ " + pairs + " }" if pairs else "{}"


def codex_toml(
    servers: Sequence[PlannedServer], *, preamble: str, tables: Mapping[str, Mapping[str, Any]]
) -> str:
    """Codex's ``config.toml``: ``preamble`` (comments and top-level settings), then other
    ``tables`` (``[projects."/abs"]``, ``[tui]``), then one ``[mcp_servers.NAME]`` table per
    server, each led by its comment."""
    parts = [preamble.rstrip("\n") + "\n"]
    for header, body in tables.items():
        rows = "".join(f"{_toml_key(k)} = {_toml_value(v)}\n" for k, v in body.items())
        parts.append(f"\n[{header}]\n{rows}")
    parts.append("\n# MCP servers\n")
    for server in servers:
        table: dict[str, Any] = {}
        if server.argv is not None:
            table = {"command": server.argv[0], "args": list(server.argv[1:])}
            if server.env:
                table["env"] = dict(server.env)
        else:
            table = {"url": server.url}
        table.update(server.extra)
        lead = f"# {server.comment}\n" if server.comment is not None else ""
        rows = "".join(f"{_toml_key(k)} = {_toml_value(v)}\n" for k, v in table.items())
        parts.append(f"\n{lead}[mcp_servers.{_toml_key(server.name)}]\n{rows}")
    return "".join(parts)


_VAULT_INPUT = {
    "type": "promptString",
    "id": "vault-token",
    "description": "Vault token",
    "password": True,
}


def _writers(
    spelled: Mapping[str, Sequence[PlannedServer]],
    project: str,
    others: Mapping[str, Sequence[PlannedServer]],
    excluded: Sequence[str],
) -> dict[str, Callable[[], str]]:
    """Source key -> how its file is written (called only for the keys in ``spelled``)."""
    gemini_user = [s.name for s in spelled.get("gemini-user", [])]
    first, *rest = others.items() if others else [(project, [])]
    # Claude Code keeps projects in the order it first met them: ours after the first other.
    projects = dict([first, (project, spelled.get("claude-local", [])), *rest])
    claude = partial(claude_code_json, spelled.get("claude-user", []), projects)
    return {
        "agentty-user": lambda: mcp_servers_json(spelled["agentty-user"]),
        "claude-user": claude,
        "claude-local": claude,
        "claude-desktop": lambda: mcp_servers_json(
            spelled["claude-desktop"], top={"globalShortcut": "Ctrl+Alt+Space"}
        ),
        "cursor-user": lambda: mcp_servers_json(spelled["cursor-user"]),
        "gemini-user": lambda: gemini_settings(
            spelled["gemini-user"],
            settings={
                "theme": "GitHub",
                "selectedAuthType": "oauth-personal",
                "preferredEditor": "vscode",
            },
            excluded=[name for name in excluded if name in gemini_user],
            comment="servers for every session",
        ),
        "codex-user": lambda: codex_toml(
            spelled["codex-user"],
            preamble='# Codex settings\nmodel = "gpt-5-codex"\nmodel_reasoning_effort = "high"\n'
            'approval_policy = "on-request"\nsandbox_mode = "workspace-write"\n',
            tables={f"projects.{json.dumps(project)}": {"trust_level": "trusted"}},
        ),
        "vscode-user": lambda: vscode_jsonc(
            spelled["vscode-user"], inputs=[], heading="VS Code user MCP servers"
        ),
        "project-mcp": lambda: mcp_servers_json(spelled["project-mcp"], typed=True),
        "cursor-project": lambda: mcp_servers_json(spelled["cursor-project"]),
        "gemini-project": lambda: gemini_settings(
            spelled["gemini-project"],
            settings={"ui": {"hideBanner": True}, "context": {"fileName": "AGENTS.md"}},
            comment="the project's own servers",
        ),
        "vscode-project": lambda: vscode_jsonc(
            spelled["vscode-project"], inputs=[_VAULT_INPUT], heading="servers of this workspace"
        ),
        "codex-project": lambda: codex_toml(
            spelled["codex-project"],
            preamble='# settings for this repository\nmodel_reasoning_effort = "medium"\n',
            tables={"tui": {"notifications": True}},
        ),
    }


def source_texts(
    spelled: Mapping[str, Sequence[PlannedServer]],
    *,
    project: str,
    others: Mapping[str, Sequence[PlannedServer]],
    excluded: Sequence[str] = (),
) -> dict[str, str]:
    """Source key (as in ``tests.fake_home.SOURCES``) -> its file's text, for the keys of
    ``spelled``. ``project`` is the project root's absolute path (its key in
    ``~/.claude.json``, a trusted project in Codex's file), ``others`` the other projects of
    ``~/.claude.json`` and their servers, ``excluded`` the names Gemini's user file turns off
    (where it holds them)."""
    writers = _writers(spelled, project, others, excluded)
    return {key: writers[key]() for key in spelled}
