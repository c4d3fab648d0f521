"""Gemini CLI's system settings and system defaults: the two settings files an administrator
keeps for every user of the machine.

What Gemini CLI 0.61.0 does (read in its bundle, ``packages/cli/src/config/settings.ts`` and
``packages/core/src/utils/security.ts``; measured with ``gemini mcp list`` in
``tests/hosts/test_gemini_system_settings.py``):

- the files are ``$GEMINI_CLI_SYSTEM_SETTINGS_PATH``, else ``/etc/gemini-cli/settings.json``,
  and ``$GEMINI_CLI_SYSTEM_DEFAULTS_PATH``, else ``system-defaults.json`` beside the system
  settings (``gemini_system_paths``);
- each is read only when it passes a **security check** (``system_file_insecure``): the file
  must be a regular file and it and every folder above it (as named, and again as the links
  resolve) owned by root (uid 0) and writable by neither group nor others; a symbolic link on
  the way must be owned by root itself. A file that fails is skipped with a warning ("Security
  Warning: Skipping system settings file ...") and Gemini goes on without it. Any folder
  under ``/tmp`` fails (``/tmp`` is writable by all);
- a file that passes but does not parse (JSON with comments), or is no object, stops Gemini
  ("Please fix the configuration file(s)");
- **precedence**, merged key by key: the system defaults under everything, then the user's
  settings, the project's (in a trusted folder), and the system settings over all. An
  ``mcpServers`` entry of one name is replaced whole by a later file's;
- ``mcp.excluded`` and ``mcp.allowed`` of the system files count as those of the others
  (``gemini_trust.gemini_mcp_block``), and the folder trust switch
  (``security.folderTrust.enabled``) is read from the system defaults, the user's settings and
  the system settings, the last that sets it winning.

Their servers are read here as read-only entries of host ``gemini`` (``SourceRef.admin``
``system`` or ``system defaults``).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentty_tui.config.documents.formats import JsoncFormat
from agentty_tui.config.files import read_text
from agentty_tui.config.hosts.gemini import GeminiDialect
from agentty_tui.config.sources import SourceFile
from agentty_tui.config.store import ConfigStore
from agentty_tui.errors import ConfigError
from agentty_tui.specs import PluginConfig, SourceRef

__all__ = [
    "DEFAULTS_ENV",
    "SETTINGS_ENV",
    "SYSTEM_SETTINGS",
    "GeminiSystem",
    "SystemFile",
    "gemini_system_paths",
    "read_gemini_system",
    "system_file_insecure",
]

SYSTEM_SETTINGS = Path("/etc/gemini-cli/settings.json")
"""Where Gemini CLI reads its system settings on Linux."""
SETTINGS_ENV = "GEMINI_CLI_SYSTEM_SETTINGS_PATH"
"""The variable that moves the system settings."""
DEFAULTS_ENV = "GEMINI_CLI_SYSTEM_DEFAULTS_PATH"
"""The variable that moves the system defaults."""

_GROUP_OR_OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH


def gemini_system_paths(env: Mapping[str, str]) -> tuple[Path, Path]:
    """The system settings and the system defaults Gemini CLI reads, as ``env`` places them."""
    settings = Path(env[SETTINGS_ENV]) if env.get(SETTINGS_ENV) else SYSTEM_SETTINGS
    defaults = env.get(DEFAULTS_ENV)
    return settings, Path(defaults) if defaults else settings.parent / "system-defaults.json"


def _unsafe(path: str, kind: str) -> str | None:
    """Why one file or folder fails Gemini's check (``None``: it passes): it must be of
    ``kind`` (``file`` or ``directory``), a link on it owned by root, and it owned by root and
    not writable by group or others."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None  # as Gemini: a path not there is no risk
    except OSError as error:
        return f"Failed to access path: {error.strerror}"
    is_dir = stat.S_ISDIR(info.st_mode)
    if kind == "directory" and not is_dir:
        return "Not a directory"
    if kind == "file" and not stat.S_ISREG(info.st_mode):
        return "Not a file"
    try:
        link = os.lstat(path)
    except OSError:
        link = None
    if link is not None and stat.S_ISLNK(link.st_mode) and link.st_uid != 0:
        return f"Symlink '{path}' is not owned by root (uid 0). Current uid: {link.st_uid}"
    what = "Directory" if is_dir else "File"
    if info.st_uid != 0:
        return f"{what} '{path}' is not owned by root (uid 0). Current uid: {info.st_uid}"
    if info.st_mode & _GROUP_OR_OTHERS_WRITE:
        mode = format(info.st_mode, "o")
        return f"{what} '{path}' is writable by group or others (mode: {mode})"
    return None


def _folders(folder: str) -> list[str]:
    """``folder`` and every folder above it, up to ``/``."""
    found = [folder]
    while os.path.dirname(found[-1]) != found[-1]:
        found.append(os.path.dirname(found[-1]))
    return found


def system_file_insecure(path: Path) -> str | None:
    """Why Gemini CLI skips the system file ``path`` (``None``: it reads it, or it is not
    there), in Gemini's words: the file and each folder above it, as named and as its links
    resolve, must be owned by root and writable by neither group nor others."""
    named = os.path.abspath(path)
    if not os.path.exists(named):
        return None
    real = os.path.realpath(named)
    for folder in _folders(os.path.dirname(named)):
        if os.path.islink(folder):
            why = _unsafe(folder, "directory")
            if why is not None:
                return f"Parent directory symlink '{folder}' is insecure: {why}"
    for folder in _folders(os.path.dirname(named)):
        why = _unsafe(folder, "directory")
        if why is not None:
            return f"Parent directory '{folder}' is insecure: {why}"
    why = _unsafe(named, "file")
    if why is not None:
        return f"File is insecure: {why}"
    if real != named:
        why = _unsafe(real, "file")
        if why is not None:
            return f"Resolved target file is insecure: {why}"
        for folder in _folders(os.path.dirname(real)):
            why = _unsafe(folder, "directory")
            if why is not None:
                return f"Resolved target parent directory '{folder}' is insecure: {why}"
    return None


@dataclass(frozen=True, slots=True)
class SystemFile:
    """One of the two system files, as Gemini CLI would take it now."""

    path: Path
    """The file."""
    admin: str
    """``system`` or ``system defaults``."""
    settings: Mapping[str, Any] | None = None
    """Its object when Gemini reads it (``None``: absent, skipped or not parsed)."""
    part: tuple[SourceFile, PluginConfig] | None = None
    """Its servers, as a read-only source of host ``gemini`` (when read)."""
    problem: str | None = None
    """Why Gemini skips it, or stops on it, naming the file."""


@dataclass(frozen=True, slots=True)
class GeminiSystem:
    """Gemini CLI's system settings and system defaults."""

    system: SystemFile
    """``/etc/gemini-cli/settings.json``: over every other settings file."""
    defaults: SystemFile
    """``system-defaults.json``: under every other settings file."""

    @property
    def problems(self) -> tuple[str, ...]:
        """Each file's problem, one line each."""
        return tuple(f.problem for f in (self.system, self.defaults) if f.problem is not None)


def _read(path: Path, admin: str) -> SystemFile:
    label = "system settings" if admin == "system" else admin
    why = system_file_insecure(path)
    if why is not None:
        return SystemFile(path, admin, problem=f"Gemini CLI skips its {label} {path}: {why}")
    if not os.path.exists(path):
        return SystemFile(path, admin)
    store = ConfigStore(path, dialect=GeminiDialect())
    try:
        config = store.load()
        # Read again whole, comments allowed as Gemini allows them, for the keys beside
        # mcpServers (mcp.excluded, security.folderTrust).
        text = read_text(path) or ""
        settings = JsoncFormat().load(text, str(path)).value if text.strip() else {}
    except ConfigError as error:
        problem = f"Gemini CLI stops on its {label} {path}: {error}"
        return SystemFile(path, admin, problem=problem)
    if not isinstance(settings, Mapping):
        problem = f"Gemini CLI stops on its {label} {path}: the top level must be an object"
        return SystemFile(path, admin, problem=problem)
    ref = SourceRef(path=str(path), scope="user", host="gemini", admin=admin)
    source = SourceFile(ref, "gemini")
    return SystemFile(path, admin, settings=settings, part=(source, config))


def read_gemini_system(env: Mapping[str, str]) -> GeminiSystem:
    """Both system files as ``env`` places them, read now if Gemini CLI reads them; never
    raises (a file skipped or not parsed says why in its ``problem``)."""
    settings, defaults = gemini_system_paths(env)
    return GeminiSystem(
        system=_read(settings, "system"), defaults=_read(defaults, "system defaults")
    )
