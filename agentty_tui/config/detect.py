"""Which dialect a config file is written in, from its name and content, or by name.

``detect_dialect(path, text)``:
- a ``.toml`` file is Codex;
- JSON(C) with a top-level ``servers`` object, or a new file in a ``.vscode`` folder, is VS Code;
- a file named ``settings.json``, or JSON(C) whose top level has Gemini's ``mcp`` settings or
  whose entries use Gemini-only keys (``httpUrl``, ``includeTools``, ``excludeTools``,
  ``trust``, ``timeout``), is Gemini CLI;
- anything else is Claude-style ``mcpServers`` JSON (Claude Desktop / Code, Cursor).

``dialect_by_name`` forces one (the ``--format`` of the command line).

Each dialect's module is imported the first time a file of it is met, not with this one: a
command on a JSON file never imports Codex's (and tomlkit with it), nor VS Code's or Gemini's.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentty_tui.config.documents.jsonc import parse_jsonc
from agentty_tui.config.files import read_text
from agentty_tui.config.hosts.mcpjson import SERVERS_KEY, McpJsonDialect
from agentty_tui.errors import ConfigError

if TYPE_CHECKING:
    from agentty_tui.config.dialect import Dialect

__all__ = [
    "DIALECT_NAMES",
    "FORMAT_NAMES",
    "detect_dialect",
    "detect_file",
    "dialect_by_name",
    "dialect_name",
]

DIALECT_NAMES = ("claude", "gemini", "vscode", "codex")
"""The names ``dialect_by_name`` takes, in the order a ``--format`` help lists them."""

_ALIASES = {"cursor": "claude", "mcp.json": "claude", "vs-code": "vscode", "toml": "codex"}

FORMAT_NAMES = ("claude", "cursor", *DIALECT_NAMES[1:])
"""The names a ``--format`` offers: the dialects, and Cursor (whose file is Claude's format)."""
_GEMINI_ENTRY_KEYS = frozenset({"httpUrl", "includeTools", "excludeTools", "trust", "timeout"})


def dialect_by_name(name: str) -> Dialect:
    """The dialect called ``name`` (see ``DIALECT_NAMES``; ``cursor`` is ``claude``)."""
    key = name.strip().lower()
    key = _ALIASES.get(key, key)
    if key == "claude":
        return McpJsonDialect()
    if key == "gemini":
        return _gemini()
    if key == "vscode":
        return _vscode()
    if key == "codex":
        return _codex()
    raise ConfigError(f"unknown config format {name!r}; use one of {', '.join(DIALECT_NAMES)}")


def _gemini() -> Dialect:
    from agentty_tui.config.hosts.gemini import GeminiDialect

    return GeminiDialect()


def _vscode() -> Dialect:
    from agentty_tui.config.hosts.vscode import VsCodeDialect

    return VsCodeDialect()


def _codex() -> Dialect:
    from agentty_tui.config.hosts.codex import CodexDialect  # with tomlkit

    return CodexDialect()


def _is_vscode(value: dict[str, Any]) -> bool:
    """Whether a file's top level is VS Code's: its server map, and no ``mcpServers``."""
    if SERVERS_KEY in value:
        return False
    from agentty_tui.config.hosts.vscode import VSCODE_SERVERS_KEY

    return isinstance(value.get(VSCODE_SERVERS_KEY), dict)


def dialect_name(dialect: Dialect) -> str:
    """The name of a dialect, as ``dialect_by_name`` takes it."""
    return dialect.name


def _looks_gemini(value: dict[str, Any]) -> bool:
    if isinstance(value.get("mcp"), dict):
        return True
    servers = value.get(SERVERS_KEY)
    if not isinstance(servers, dict):
        return False
    return any(
        isinstance(entry, dict) and not _GEMINI_ENTRY_KEYS.isdisjoint(entry)
        for entry in servers.values()
    )


def detect_dialect(path: str | os.PathLike[str] | None, text: str | None) -> Dialect:
    """The dialect of the file at ``path`` holding ``text`` (``None``: not there yet)."""
    name = os.path.basename(os.fspath(path)) if path is not None else ""
    folder = os.path.basename(os.path.dirname(os.fspath(path))) if path is not None else ""
    if name.lower().endswith(".toml"):
        return _codex()
    value: Any = None
    if text is not None and text.strip():
        try:
            value = parse_jsonc(text).value
        except ConfigError:
            value = None  # the name decides; the dialect's parse will name the syntax error
    if isinstance(value, dict):
        if _is_vscode(value):
            return _vscode()
        if _looks_gemini(value):
            return _gemini()
        if SERVERS_KEY in value and name != "settings.json":
            return McpJsonDialect()
    if name == "settings.json":
        return _gemini()
    if folder == ".vscode" and value is None:
        return _vscode()
    return McpJsonDialect()


def detect_file(path: str | os.PathLike[str]) -> Dialect:
    """The dialect of the file at ``path`` as it is now; a missing, unreadable or non-UTF-8 file
    is judged by its name alone (the dialect's own parse reports what is wrong with it)."""
    try:
        text = read_text(Path(path))
    except ConfigError:
        text = None
    return detect_dialect(path, text)
