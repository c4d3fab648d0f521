"""Gemini CLI's trust in a folder: whether it runs any MCP server there.

Measured with Gemini CLI 0.61.0 (tests/hosts/test_gemini_cli.py, test_gemini_folder_trust.py)
and read in its code:

- Folder trust is on unless ``security.folderTrust.enabled`` is ``false`` in the user's
  settings (``~/.gemini/settings.json``), the system defaults or the system settings (the
  system settings over the user's over the defaults: ``hosts/gemini_system``); the project's
  settings cannot turn it off.
- The rules are ``~/.gemini/trustedFolders.json`` (``$GEMINI_CLI_TRUSTED_FOLDERS_PATH``; the
  home is ``$GEMINI_CLI_HOME`` when set): a path and ``TRUST_FOLDER`` (that folder and every
  folder below it), ``TRUST_PARENT`` (the path's parent and below) or ``DO_NOT_TRUST``. The
  rule with the longest path among those covering the folder decides; real paths compared.
- A folder no rule covers is not trusted (an interactive session asks; a headless run
  refuses). In a folder that is not trusted Gemini runs no MCP server at all, not even the
  user's, and ignores the project's settings file whole.
- ``GEMINI_CLI_TRUST_WORKSPACE=true`` trusts every folder, ``=false`` (or
  ``GEMINI_RESTRICTED_MODE=true``) none. A rules file that does not parse, or holds another
  level, stops Gemini altogether.

``mcp.excluded`` and ``mcp.allowed`` count from every settings file it reads
(``gemini_mcp_block``): a server excluded in any file is blocked, and with allow-lists a server
runs only when every list names it; names are compared without case.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from agentty_tui.config.documents.formats import JsoncFormat
from agentty_tui.config.files import read_text
from agentty_tui.errors import ConfigError

__all__ = [
    "TRUST_LEVELS",
    "GeminiSettings",
    "gemini_folder_untrusted",
    "gemini_mcp_block",
    "gemini_settings",
    "gemini_trusted_folders_file",
]

TRUST_LEVELS = ("TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST")
"""The levels a rule of ``trustedFolders.json`` may give."""

GeminiSettings = tuple[tuple[str, Mapping[str, Any]], ...]
"""Every settings file Gemini CLI reads: each one's path as shown and its object."""

NO_SERVER = "Gemini CLI runs no MCP server in a folder it does not trust"
"""How every reason ``gemini_folder_untrusted`` gives begins."""


def gemini_trusted_folders_file(home: Path, env: Mapping[str, str]) -> Path:
    """Where Gemini CLI keeps its trust rules."""
    if env.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH"):
        return Path(env["GEMINI_CLI_TRUSTED_FOLDERS_PATH"])
    base = Path(env["GEMINI_CLI_HOME"]) if env.get("GEMINI_CLI_HOME") else home
    return base / ".gemini" / "trustedFolders.json"


def _object(path: Path) -> Mapping[str, Any]:
    """A JSON-with-comments file's object (absent or blank: empty); ``ConfigError`` else."""
    text = read_text(path)
    if text is None or not text.strip():
        return {}
    value = JsoncFormat().load(text, str(path)).value
    if not isinstance(value, Mapping):
        raise ConfigError("the top level must be an object", path=str(path))
    return value


def _trust_switch(settings: Mapping[str, Any]) -> Any:
    """``security.folderTrust.enabled`` of one settings object (``None``: not set)."""
    security = settings.get("security")
    folder_trust = security.get("folderTrust") if isinstance(security, Mapping) else None
    return folder_trust.get("enabled") if isinstance(folder_trust, Mapping) else None


def _trust_on(*settings: Mapping[str, Any] | None) -> bool:
    """``security.folderTrust.enabled`` as Gemini merges it from ``settings`` (lowest first:
    system defaults, user, system; the last that sets it wins; default: on)."""
    enabled = None
    for value in settings:
        switch = None if value is None else _trust_switch(value)
        enabled = enabled if switch is None else switch
    return enabled is not False


def _covers(folder: str, location: str) -> bool:
    return location == folder or location.startswith(folder.rstrip(os.sep) + os.sep)


def gemini_folder_untrusted(
    folders_file: Path,
    user_settings: Path,
    folder: Path,
    env: Mapping[str, str],
    *,
    system: Mapping[str, Any] | None = None,
    defaults: Mapping[str, Any] | None = None,
) -> str | None:
    """Why Gemini CLI runs no MCP server in ``folder`` (``None``: it trusts the folder, or
    folder trust is off), by its rules in ``folders_file``, the user's ``user_settings``, the
    ``system`` settings and system ``defaults`` it reads (``hosts/gemini_system``) and ``env``.
    Never raises: a file that cannot be read trusts nothing, and the reason says so."""
    if env.get("GEMINI_RESTRICTED_MODE") == "true" or env.get("GEMINI_CLI_TRUST_WORKSPACE") == (
        "false"
    ):
        return f"{NO_SERVER}: GEMINI_CLI_TRUST_WORKSPACE or GEMINI_RESTRICTED_MODE says so"
    if env.get("GEMINI_CLI_TRUST_WORKSPACE") == "true":
        return None
    try:
        if not _trust_on(defaults, _object(user_settings), system):
            return None
        rules = _object(folders_file)
    except ConfigError as error:
        return f"{NO_SERVER}, and a file of its trust could not be read ({error})"
    location = os.path.realpath(folder)
    longest, decided = -1, None
    for path, level in rules.items():
        if level not in TRUST_LEVELS:
            return f"{NO_SERVER}: {folders_file} gives {path} the level {level!r} (Gemini stops)"
        effective = os.path.dirname(path) if level == "TRUST_PARENT" else path
        if _covers(os.path.realpath(effective), location) and len(path) > longest:
            longest, decided = len(path), level
    if decided is None:
        return f"{NO_SERVER}: no rule for {location} in {folders_file}"
    if decided == "DO_NOT_TRUST":
        return f"{NO_SERVER}: {location} is DO_NOT_TRUST in {folders_file}"
    return None


def _names(mcp: Mapping[str, Any], key: str) -> list[str] | None:
    names = mcp.get(key)
    if not isinstance(names, list):
        return None
    return [name.strip().lower() for name in names if isinstance(name, str)]


def gemini_settings(paths: Sequence[Path]) -> GeminiSettings:
    """The settings files at ``paths`` that exist and parse (a file that does not is left out:
    its store reports it), for ``gemini_mcp_block``."""
    read: list[tuple[str, Mapping[str, Any]]] = []
    for path in paths:
        try:
            read.append((str(path), _object(path)))
        except ConfigError:
            continue
    return tuple(read)


def gemini_mcp_block(name: str, settings: Sequence[tuple[str, Mapping[str, Any]]]) -> str | None:
    """What blocks the server ``name`` given every settings file Gemini reads (``settings``:
    each file's path as shown and its object), ``None`` when nothing does: ``mcp.excluded`` of
    any file, or an ``mcp.allowed`` list that does not name it."""
    wanted = name.strip().lower()
    for shown, value in settings:
        mcp = value.get("mcp")
        if not isinstance(mcp, Mapping):
            continue
        if wanted in (_names(mcp, "excluded") or ()):
            return f"mcp.excluded in {shown}"
        allowed = _names(mcp, "allowed")
        if allowed is not None and wanted not in allowed:
            return f"mcp.allowed in {shown} leaves it out"
    return None
