"""Gemini CLI's extension servers: the MCP servers of the extensions it runs in one folder.

What Gemini CLI 0.61 does (measured with the program, ``docs/HOSTS_MEASURED.md``, Gemini
extensions; the enablement rules were read in the program itself):

- an extension is a folder ``~/.gemini/extensions/<folder>`` holding ``gemini-extension.json``
  (its ``name``, its ``mcpServers`` in the spelling of the settings files), or for a linked
  one (``gemini extensions link``) a ``.gemini-extension-install.json`` naming the folder
  that holds it;
- it is on unless ``~/.gemini/extensions/extension-enablement.json`` says otherwise for the
  folder Gemini runs in: ``{"<name>": {"overrides": ["!/path/*", "/path/"]}}``, each rule a
  folder (``!``: off; a trailing ``*``: and every folder below), the last rule that matches
  deciding (``gemini extensions disable <name> [--scope workspace]`` writes them);
- its servers keep their own names (``gemini mcp list`` shows ``<server> (from <name>)``,
  its model gets ``mcp_<server>_<tool>``); a settings file's entry of the same name wins, and
  the extension's is not run; ``excludeTools`` / ``includeTools`` in the entry are obeyed,
  ``mcp.excluded`` of the settings files blocks them as any server.

Everything read is untrusted: each file is read within the size limit of a config file as
plain JSON; a file that cannot be read, or a value of the wrong type, is a warning naming the
file, and the other extensions are still read. Only ``MAX_EXTENSIONS`` extensions are read.
An extension's files are never written: ``gemini extensions`` manages them.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentty_tui.config.documents.formats import JsonFormat
from agentty_tui.config.files import decode_text, read_file
from agentty_tui.config.hosts.gemini import GeminiDialect
from agentty_tui.config.hosts.mcpjson import SERVERS_KEY
from agentty_tui.config.raw import json_type, map_strings
from agentty_tui.config.sources import SourceFile
from agentty_tui.config.trust import file_trust_problem
from agentty_tui.errors import ConfigError
from agentty_tui.specs import PluginConfig, SourceRef

__all__ = [
    "ENABLEMENT",
    "EXTENSION_DIALECT",
    "MAX_EXTENSIONS",
    "ExtensionServers",
    "extension_enabled",
    "read_extension_servers",
]

MAX_EXTENSIONS = 64
"""The most extensions read (the others are left out, with a warning)."""

EXTENSION_DIALECT = "gemini-extension"
"""The ``SourceFile.dialect`` of an extension's file: read here, never written."""

MANIFEST = "gemini-extension.json"
"""The file of an extension that names it and its servers."""

INSTALL = ".gemini-extension-install.json"
"""The file ``gemini extensions install`` / ``link`` leaves in an extension's folder: for a
linked one (``"type": "link"``) it names the folder (``source``) whose manifest is read."""

ENABLEMENT = "extension-enablement.json"
"""The file beside the extensions that turns them off (or on again) by folder."""

_VARIABLES = re.compile(r"\$\{(extensionPath|workspacePath|/|pathSeparator)\}")


@dataclass(frozen=True, slots=True)
class ExtensionServers:
    """The extension servers Gemini CLI runs in one folder, as their files say now."""

    parts: tuple[tuple[SourceFile, PluginConfig], ...] = ()
    """Each extension's file holding servers, with its servers."""
    problems: tuple[str, ...] = ()
    """Why a file could not be read, one line each, naming it."""


def _json(path: Path) -> Any:
    """The JSON value of ``path`` (``None`` when it is absent); ``ConfigError`` naming it."""
    read = read_file(path, str(path))
    if read is None:
        return None
    text = decode_text(read.data, str(path))
    return JsonFormat().load(text, str(path)).value if text.strip() else None


def _slashed(path: str) -> str:
    """``path`` with a leading and a trailing slash, as Gemini compares folders."""
    path = path.replace("\\", "/")
    return ("" if path.startswith("/") else "/") + path + ("" if path.endswith("/") else "/")


def _matches(rule: str, folder: str) -> bool:
    """Whether one rule (``!`` already taken off) covers ``folder`` (slashed), as a glob: a
    trailing ``/*`` covers the folder and everything below it, a rule without one that
    folder alone."""
    pattern = re.sub(r"(/?)\\\*", lambda m: f"({m[1]}.*)?", re.escape(rule))
    return re.fullmatch(pattern, folder) is not None


def extension_enabled(enablement: Mapping[str, Any], name: str, folder: Path) -> bool:
    """Whether Gemini CLI runs extension ``name`` in ``folder`` by the rules of
    ``extension-enablement.json`` (``enablement``, already checked): the last rule that
    matches decides; none: on."""
    entry = enablement.get(name)
    rules = entry.get("overrides") if isinstance(entry, Mapping) else None
    enabled = True
    where = _slashed(str(folder))
    for rule in rules if isinstance(rules, list) else ():
        if not isinstance(rule, str):
            continue
        off = rule.startswith("!")
        if _matches(rule[1:] if off else rule, where):
            enabled = not off
    return enabled


def _enablement(folder: Path, problems: list[str]) -> Mapping[str, Any] | None:
    """The checked enablement file (``{}``: none); ``None`` when Gemini would not use it."""
    path = folder / ENABLEMENT
    try:
        value = _json(path)
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise ConfigError(f"must be an object, not {json_type(value)}", path=str(path))
        for name, entry in value.items():
            rules = entry.get("overrides") if isinstance(entry, Mapping) else None
            if not isinstance(rules, list) or not all(isinstance(r, str) for r in rules):
                raise ConfigError("must be {overrides: [rules]}", path=str(path), field=name)
    except ConfigError as error:
        # Gemini CLI says it failed to read the file and runs every extension.
        problems.append(f"{error} (Gemini CLI ignores it: every extension is on)")
        return {}
    return value


def _insecure(path: Path) -> str | None:
    """Why an extension's file is not trusted to name commands (others may change it)."""
    try:
        info = path.stat()
    except (OSError, ValueError):
        return None
    return file_trust_problem(str(path), stat.S_IMODE(info.st_mode), info.st_uid)


def _resolved(entries: Mapping[str, Any], root: Path, cwd: Path) -> Any:
    """``entries`` with Gemini's extension variables put in."""
    values = {
        "extensionPath": str(root),
        "workspacePath": str(cwd),
        "/": os.sep,
        "pathSeparator": os.sep,
    }
    return map_strings(dict(entries), lambda text: _VARIABLES.sub(lambda m: values[m[1]], text))


def _linked(folder: Path) -> Path:
    """The folder of the extension installed in ``folder``: the one a link names, else
    itself (``ConfigError`` naming the install file when it cannot be read)."""
    install = folder / INSTALL
    value = _json(install) if install.is_file() else None
    if not isinstance(value, Mapping) or value.get("type") != "link":
        return folder
    source = value.get("source")
    if not isinstance(source, str) or not source or "\0" in source:
        raise ConfigError("a link must name its folder", path=str(install), field="source")
    return Path(source)


def read_extension_servers(gemini_dir: Path, cwd: Path) -> ExtensionServers:
    """The servers of every extension in ``gemini_dir/extensions`` that Gemini CLI runs in
    ``cwd``; never raises for what a file holds (each problem is in ``problems``, naming it).
    A name a settings file (or an earlier extension) has already is the workspace's layering
    to shadow, as Gemini CLI runs the first."""
    folder = gemini_dir / "extensions"
    problems: list[str] = []
    try:
        found = sorted(
            p for p in folder.iterdir() if (p / MANIFEST).is_file() or (p / INSTALL).is_file()
        )
    except OSError:
        return ExtensionServers()
    enablement = _enablement(folder, problems) or {}
    if len(found) > MAX_EXTENSIONS:
        problems.append(
            f"{folder} holds {len(found)} extensions: only the first {MAX_EXTENSIONS} are read"
        )
    parts: list[tuple[SourceFile, PluginConfig]] = []
    for installed in found[:MAX_EXTENSIONS]:
        try:
            root = _linked(installed)
            path = root / MANIFEST
            value = _json(path)
            if not isinstance(value, Mapping):
                raise ConfigError(f"must be an object, not {json_type(value)}", path=str(path))
            name = value.get("name")
            if not isinstance(name, str) or not name:
                raise ConfigError("has no name", path=str(path), field="name")
            entries = value.get(SERVERS_KEY, {})
            if not isinstance(entries, Mapping):
                raise ConfigError("must be an object", path=str(path), field=SERVERS_KEY)
            if not entries or not extension_enabled(enablement, name, cwd):
                continue
            resolved = _resolved(entries, root, cwd)
            config = GeminiDialect().validate({SERVERS_KEY: resolved}, str(path))
        except ConfigError as error:
            problems.append(f"{error} (a Gemini CLI extension; its servers are not shown)")
            continue
        ref = SourceRef(path=str(path), scope="user", host="gemini", plugin=name)
        parts.append(
            (
                SourceFile(ref, EXTENSION_DIALECT),
                PluginConfig(servers=config.servers, insecure=_insecure(path)),
            )
        )
    return ExtensionServers(parts=tuple(parts), problems=tuple(problems))
