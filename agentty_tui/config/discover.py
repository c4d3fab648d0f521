"""Other hosts' MCP config files on this machine: where each host keeps its own, and how many
servers each holds (the first run offers to import one).

``host_config_files(home, env, cwd)`` looks only where the hosts themselves look: Claude Code
(``~/.claude.json``, the ``.mcp.json`` of a folder that is in no repository), Claude Desktop,
Cursor, Gemini CLI, VS Code's user ``mcp.json`` and Codex (``$CODEX_HOME`` or ``~/.codex``).
``home`` and ``env`` are given, never read from the process, so a test runs it on a fake home.
It reads files and writes nothing; a file that is absent or holds no server is left out, one
that does not parse is listed with its problem (importing it would fail the same way).

A ``.mcp.json`` is a project's file, not a user's: one inside a repository is that project's
(the workspace reads it, each server trusted on its own), so it is never offered; one in a
folder outside any repository is offered marked ``project``, and its servers are not trusted by
an import (they are copied disabled).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from agentty_tui.config.detect import dialect_by_name
from agentty_tui.config.files import read_text
from agentty_tui.config.sources import find_project_root
from agentty_tui.errors import ConfigError

__all__ = ["THIS_FOLDER", "HostFile", "host_config_files"]

THIS_FOLDER = "Claude Code (this folder)"
"""The host label of the current folder's ``.mcp.json``: a project's file."""


@dataclass(frozen=True, slots=True)
class HostFile:
    """One host's config file found on the machine."""

    host: str
    """The host that reads it, e.g. ``Claude Code`` or ``Codex``."""
    path: Path
    """Where it is."""
    dialect: str
    """Its format, as ``detect.dialect_by_name`` takes it."""
    servers: int
    """How many servers it holds (0 when it does not parse)."""
    problem: str | None = None
    """Why it cannot be read, or ``None``."""
    project: bool = False
    """A project's file (a folder's ``.mcp.json``): what it names is not trusted, so an import
    copies its servers disabled."""

    def describe(self) -> str:
        """One line: the host, the path, and its server count or its problem."""
        if self.problem is not None:
            return f"{self.host}: {self.path} (cannot be read: {self.problem})"
        plural = "" if self.servers == 1 else "s"
        untrusted = ", a project's: imported disabled" if self.project else ""
        return f"{self.host}: {self.path} ({self.servers} server{plural}{untrusted})"


def _candidates(
    home: Path, env: Mapping[str, str], cwd: Path | None
) -> list[tuple[str, Path, str]]:
    """(host, path, dialect) of every place a host keeps its MCP servers, in a fixed order."""
    config_home = Path(env["XDG_CONFIG_HOME"]) if env.get("XDG_CONFIG_HOME") else home / ".config"
    mac_support = home / "Library" / "Application Support"
    codex_home = Path(env["CODEX_HOME"]) if env.get("CODEX_HOME") else home / ".codex"
    found = [("Claude Code", home / ".claude.json", "claude")]
    # Inside a repository the file is the project's (the workspace reads it, and asks trust for
    # each of its servers): never a user file to copy.
    if cwd is not None and not (find_project_root(cwd) / ".git").exists():
        found.append((THIS_FOLDER, cwd / ".mcp.json", "claude"))
    found += [
        ("Claude Desktop", config_home / "Claude" / "claude_desktop_config.json", "claude"),
        ("Claude Desktop", mac_support / "Claude" / "claude_desktop_config.json", "claude"),
        ("Cursor", home / ".cursor" / "mcp.json", "claude"),
        ("Gemini CLI", home / ".gemini" / "settings.json", "gemini"),
        ("VS Code", config_home / "Code" / "User" / "mcp.json", "vscode"),
        ("VS Code", mac_support / "Code" / "User" / "mcp.json", "vscode"),
        ("Codex", codex_home / "config.toml", "codex"),
    ]
    if env.get("APPDATA"):
        appdata = Path(env["APPDATA"])
        found += [
            ("Claude Desktop", appdata / "Claude" / "claude_desktop_config.json", "claude"),
            ("VS Code", appdata / "Code" / "User" / "mcp.json", "vscode"),
        ]
    return found


def _read(host: str, path: Path, dialect: str) -> HostFile | None:
    """The file as a ``HostFile``; ``None`` when it is absent or holds no server."""
    try:
        text = read_text(path)
        if text is None:
            return None
        config = dialect_by_name(dialect).parse(text, str(path))[1]
    except ConfigError as exc:
        return HostFile(host, path, dialect, 0, str(exc), project=host == THIS_FOLDER)
    if not config.servers:
        return None
    return HostFile(host, path, dialect, len(config.servers), project=host == THIS_FOLDER)


def host_config_files(
    home: Path, env: Mapping[str, str], cwd: Path | None = None, *, exclude: Path | None = None
) -> tuple[HostFile, ...]:
    """The other hosts' config files under ``home`` (and ``cwd``) that hold servers.

    ``env`` gives ``XDG_CONFIG_HOME``, ``CODEX_HOME`` and ``APPDATA`` where set; ``exclude`` is
    the config being edited, never offered as its own source. A file reached by two names (a
    link) is listed once.
    """
    seen: set[Path] = set()
    if exclude is not None:
        seen.add(exclude.resolve())
    files: list[HostFile] = []
    for host, path, dialect in _candidates(home, env, cwd):
        real = path.resolve()
        if real in seen or not path.is_file():
            continue
        seen.add(real)
        if (found := _read(host, path, dialect)) is not None:
            files.append(found)
    return tuple(files)
