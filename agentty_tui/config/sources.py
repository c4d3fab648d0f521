"""Which config files a workspace reads: ours and every host's, at user, local and project level.

``workspace_sources(home, env, root)`` lists every place a source may be, whether or not the
file exists (a file created later joins the workspace), in precedence order: local first, then
project, then user; within a scope, our own file first and then the hosts in a fixed order. The
same file reached by two names is listed once. ``home`` and ``env`` are given, never read from
the process, so that a test runs it on a fake home.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

from agentty_tui.specs import Scope, SourceRef

__all__ = [
    "HOSTS",
    "SourceFile",
    "find_project_root",
    "is_project_file",
    "our_user_file",
    "workspace_sources",
]

HOSTS = ("agentty", "claude", "claude-desktop", "cursor", "gemini", "codex", "vscode")
"""Every host whose files a workspace can read, as ``--hosts`` and the ``hosts`` setting name
them (``agentty`` is our own files, always read)."""


@dataclass(frozen=True, slots=True)
class SourceFile:
    """One place a workspace reads servers from."""

    ref: SourceRef
    """The file, its scope and its host, as server entries name it."""
    dialect: str
    """Its format, as ``detect.dialect_by_name`` takes it; ``claude-local`` is a project's
    part of ``~/.claude.json``; ``claude-plugin`` a Claude Code plugin's file, read by
    ``hosts/claude/plugins`` and never written."""

    @property
    def path(self) -> Path:
        """The file."""
        return Path(self.ref.path)


def find_project_root(cwd: Path) -> Path:
    """The project that holds ``cwd``: the nearest folder upwards with a ``.git``, else ``cwd``."""
    here = cwd.absolute()
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return folder
    return here


def _config_home(home: Path, env: Mapping[str, str]) -> Path:
    return Path(env["XDG_CONFIG_HOME"]) if env.get("XDG_CONFIG_HOME") else home / ".config"


def _app_folder(home: Path, env: Mapping[str, str], platform: str) -> Path:
    """Where Claude Desktop and VS Code keep their user files: ``~/Library/Application
    Support`` on macOS, ``%APPDATA%`` on Windows, ``$XDG_CONFIG_HOME`` elsewhere."""
    if platform == "darwin":
        return home / "Library" / "Application Support"
    if platform == "win32" and env.get("APPDATA"):
        return Path(env["APPDATA"])
    return _config_home(home, env)


def _places(
    home: Path, env: Mapping[str, str], root: Path, platform: str, cwd: Path
) -> list[tuple[Scope, str, Path, str]]:
    """(scope, host, path, dialect) of every source, in precedence order; Gemini CLI reads
    the project settings of the folder it runs in (``cwd``), not of the repository's top;
    Codex reads a ``.codex/config.toml`` in every folder from the top down to ``cwd`` (the
    deepest first here: it wins)."""
    config_home = _config_home(home, env)
    apps = _app_folder(home, env, platform)
    codex_home = Path(env["CODEX_HOME"]) if env.get("CODEX_HOME") else home / ".codex"
    below = cwd.relative_to(root).parts if cwd.is_relative_to(root) else ()
    folders = [root.joinpath(*below[:depth]) for depth in range(len(below), 0, -1)]
    codex_project: list[tuple[Scope, str, Path, str]] = [
        ("project", "codex", folder / ".codex" / "config.toml", "codex") for folder in folders
    ]
    return [
        ("local", "claude", home / ".claude.json", "claude-local"),
        ("project", "claude", root / ".mcp.json", "claude"),
        ("project", "cursor", root / ".cursor" / "mcp.json", "claude"),
        ("project", "gemini", cwd / ".gemini" / "settings.json", "gemini"),
        ("project", "vscode", root / ".vscode" / "mcp.json", "vscode"),
        *codex_project,
        ("project", "codex", root / ".codex" / "config.toml", "codex"),
        ("user", "agentty", config_home / "agentty" / "mcp.json", "claude"),
        ("user", "claude", home / ".claude.json", "claude"),
        ("user", "claude-desktop", apps / "Claude" / "claude_desktop_config.json", "claude"),
        ("user", "cursor", home / ".cursor" / "mcp.json", "claude"),
        ("user", "gemini", home / ".gemini" / "settings.json", "gemini"),
        ("user", "codex", codex_home / "config.toml", "codex"),
        ("user", "vscode", apps / "Code" / "User" / "mcp.json", "vscode"),
    ]


_PROJECT_PLACES = (
    (".mcp.json",),
    (".cursor", "mcp.json"),
    (".gemini", "settings.json"),
    (".vscode", "mcp.json"),
    (".codex", "config.toml"),
)
"""Where a project keeps a host's file, below its folder (the project scope of ``_places``)."""


def is_project_file(path: Path, home: Path) -> bool:
    """Whether ``path`` is a project's host file (``<folder>/.mcp.json``,
    ``<folder>/.cursor/mcp.json``, ...) of a folder other than ``home``: what it names comes
    with a repository, which the user has not vetted, not from the user's own settings."""
    resolved = Path(os.path.realpath(path))
    for place in _PROJECT_PLACES:
        if resolved.parts[-len(place) :] == place:
            folder = resolved.parents[len(place) - 1]
            return folder != Path(os.path.realpath(home))
    return False


def our_user_file(home: Path, env: Mapping[str, str]) -> Path:
    """Our own user config: ``$XDG_CONFIG_HOME/agentty/mcp.json``, where ``a`` adds a server
    unless told otherwise."""
    return _config_home(home, env) / "agentty" / "mcp.json"


def workspace_sources(
    home: Path,
    env: Mapping[str, str],
    root: Path,
    *,
    hosts: Collection[str] | None = None,
    platform: str = sys.platform,
    cwd: Path | None = None,
) -> tuple[SourceFile, ...]:
    """Every source of the workspace of the project at ``root``, present or not, in precedence
    order; ``hosts`` (default: all) limits which hosts' files are read (ours always are);
    ``platform`` (``sys.platform``) says where Claude Desktop and VS Code keep theirs;
    ``cwd`` (default: ``root``) is the folder the user is in, where Gemini CLI reads its
    project settings (measured with 0.61: from a subfolder it does not read the top's).

    A project whose root is the home folder has no project files of its own: the user's
    ``~/.cursor/mcp.json`` is a user file there, not a project one.
    """
    sources: list[SourceFile] = []
    seen: set[tuple[str, str]] = set()
    same_as_home = os.path.realpath(root) == os.path.realpath(home)
    for scope, host, path, dialect in _places(home, env, root, platform, cwd or root):
        if host != "agentty" and hosts is not None and host not in hosts:
            continue
        if scope == "project" and same_as_home and host != "claude":
            continue
        key = (os.path.realpath(path), dialect)
        if key in seen:
            continue
        seen.add(key)
        sources.append(SourceFile(SourceRef(path=str(path), scope=scope, host=host), dialect))
    return tuple(sources)
