"""Claude Code's plugin servers: the MCP servers of the plugins it turns on in one project.

What Claude Code 2.1.197 does (measured with the program, ``docs/HOSTS_MEASURED.md``, Plugins;
where it reads each file was found in the program itself):

- a plugin ``<plugin>@<marketplace>`` is on when ``enabledPlugins`` says ``true`` for it in the
  settings file that decides it (local over project over user, managed over all:
  ``ClaudeSwitches.enabled_plugins``); ``claude plugin install --scope S`` writes it there;
- its marketplace is the one of that name in ``<plugins>/known_marketplaces.json``
  (``~/.claude/plugins``; a file one of whose entries lacks ``lastUpdated`` is dropped whole,
  and a marketplace only declared in settings is not known yet): a marketplace on this
  machine (source ``directory`` or ``file``) has its plugins read where they are
  (``<marketplace>/<entry source>``); any other plugin, from the copy
  ``installed_plugins.json`` names for the user, or for this project;
- its servers are ``<root>/.mcp.json`` (with or without the ``mcpServers`` wrapper), then the
  manifest's (``<root>/.claude-plugin/plugin.json``, or without one the marketplace entry)
  ``mcpServers``: an object of entries, the path of a JSON file inside the plugin, or a list
  of those; a later one wins a name;
- each server is called ``plugin:<plugin>:<server>``, the plugin's name its manifest's (else
  the marketplace entry's, as in ``<plugin>@<marketplace>``), and ``${CLAUDE_PLUGIN_ROOT}``,
  ``${CLAUDE_PLUGIN_DATA}`` and ``${CLAUDE_PROJECT_DIR}`` are put in its strings; a stdio
  server's environment also gets ``CLAUDE_PLUGIN_ROOT`` and ``CLAUDE_PLUGIN_DATA``.

Everything read is untrusted: each file is read within the size limit of a config file, as
plain JSON of bounded depth; a file that cannot be read, or a value of the wrong type, is a
warning naming the file, and the other plugins are still read. Only ``MAX_PLUGINS`` plugins
are read. A file others may change has its stdio servers wait for the user's trust, as any
config file's. A plugin's files are never written: ``claude plugin`` manages them.
"""

from __future__ import annotations

import re
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentty_tui.config.documents.formats import JsonFormat
from agentty_tui.config.files import decode_text, read_file
from agentty_tui.config.hosts.claude.switches import (
    PLUGIN_PREFIX,
    ClaudeFiles,
    ClaudeSwitches,
    Switch,
)
from agentty_tui.config.hosts.mcpjson import SERVERS_KEY
from agentty_tui.config.raw import json_type, map_strings, server_or_problem
from agentty_tui.config.sources import SourceFile
from agentty_tui.config.trust import file_trust_problem
from agentty_tui.errors import ConfigError
from agentty_tui.specs import PluginConfig, Scope, ServerConfig, SourceRef, ToolFilter

__all__ = [
    "MAX_PLUGINS",
    "PLUGIN_DIALECT",
    "PluginServers",
    "plugin_server_name",
    "read_plugin_servers",
]

MAX_PLUGINS = 64
"""The most plugins read for one project (the others are left out, with a warning)."""

PLUGIN_DIALECT = "claude-plugin"
"""The ``SourceFile.dialect`` of a plugin's file: read here, never written."""

_MARKETPLACE_FILE = (".claude-plugin", "marketplace.json")
_MANIFEST_FILE = (".claude-plugin", "plugin.json")
_LOCAL_SOURCES = ("directory", "file")
"""Marketplace sources on this machine, whose plugins Claude Code reads where they are."""
_ROOT_VARIABLES = re.compile(r"\$\{(CLAUDE_PLUGIN_ROOT|CLAUDE_PLUGIN_DATA|CLAUDE_PROJECT_DIR)\}")
_DATA_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")


def plugin_server_name(plugin: str, server: str) -> str:
    """What Claude Code calls ``server`` of ``plugin`` (its ``/mcp`` and ``mcp list``, its
    ``disabledMcpServers``): ``plugin:<plugin>:<server>``."""
    return f"{PLUGIN_PREFIX}{plugin}:{server}"


@dataclass(frozen=True, slots=True)
class PluginServers:
    """The plugin servers Claude Code runs in one project, as their files say now."""

    parts: tuple[tuple[SourceFile, PluginConfig], ...] = ()
    """Each file holding servers, with its servers (named ``plugin:<p>:<s>``, resolved)."""
    problems: tuple[str, ...] = ()
    """Why a file or a plugin could not be read, one line each, naming it."""


@dataclass(frozen=True, slots=True)
class _Plugin:
    """One plugin that is on: its id, where it is and what turns it on."""

    plugin_id: str
    """``<plugin>@<marketplace>``."""
    root: Path
    """The folder ``${CLAUDE_PLUGIN_ROOT}`` names."""
    scope: Scope
    """The scope of the settings file that turns it on (managed settings: ``user``)."""
    entry: Mapping[str, Any]
    """Its marketplace entry: its manifest when the plugin has no ``plugin.json``."""
    listing: Path
    """The marketplace's file that holds ``entry``."""


def _json(path: Path, shown: str) -> Any:
    """The JSON value of ``path`` (``None`` when it is absent); ``ConfigError`` naming it."""
    try:
        read = read_file(path, shown)
    except ValueError:  # a path from a file may hold a NUL byte, which no file's name has
        raise ConfigError("not a path a file can have (a NUL byte)", path=repr(shown)) from None
    if read is None:
        return None
    text = decode_text(read.data, shown)
    return JsonFormat().load(text, shown).value if text.strip() else None


def _object(value: Any, shown: str, field: str | None = None) -> Mapping[str, Any]:
    """``value`` when it is an object (``None``: empty); ``ConfigError`` naming the field."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ConfigError(f"must be an object, not {json_type(value)}", path=shown, field=field)
    return value


def _scope(switch: Switch, files: ClaudeFiles) -> Scope:
    if switch.file == files.project_settings and files.project_settings != files.user_settings:
        return "project"
    return "local" if switch.file == files.local_settings else "user"


def _installed_root(installed: Mapping[str, Any], plugin_id: str, files: ClaudeFiles) -> Path:
    """The copy ``installed_plugins.json`` names for the user, or for this project."""
    shown = files.shown(files.plugins / "installed_plugins.json")
    records = _object(installed.get("plugins"), shown, "plugins").get(plugin_id)
    if not isinstance(records, list):
        raise ConfigError(f"{plugin_id} is on but not installed (no copy of it is recorded)")
    for record in records:
        if not isinstance(record, Mapping) or not isinstance(record.get("installPath"), str):
            continue
        project = record.get("projectPath")
        if record.get("scope") in ("user", "managed") or project == files.project_key:
            return Path(record["installPath"])
    raise ConfigError(f"{plugin_id} is on but not installed for this project")


def _marketplace_entry(
    marketplace: Mapping[str, Any], name: str, read: dict[Path, Any]
) -> tuple[Mapping[str, Any], Path, Path | None]:
    """The marketplace's entry of plugin ``name``, the file that lists it, and for a
    marketplace on this machine whose entry names a folder, that folder (``None``: the
    installed copy is the one run); ``read``: the listings read so far (each is read once)."""
    base = Path(marketplace["installLocation"])  # there, as _check_known checked
    listing = base.joinpath(*_MARKETPLACE_FILE) if base.is_dir() else base
    base = base if base.is_dir() else base.parent
    if listing not in read:
        read[listing] = _object(_json(listing, str(listing)), str(listing))
    entries = read[listing].get("plugins")
    if not isinstance(entries, list):
        raise ConfigError("must list its plugins", path=str(listing), field="plugins")
    for entry in entries:
        if isinstance(entry, Mapping) and entry.get("name") == name:
            where = entry.get("source")
            local = marketplace["source"].get("source") in _LOCAL_SOURCES
            return entry, listing, base / where if local and isinstance(where, str) else None
    raise ConfigError(f"does not list the plugin {name!r}", path=str(listing))


def _check_known(known: Mapping[str, Any], shown: str) -> None:
    """``ConfigError`` unless every marketplace of ``known_marketplaces.json`` has what Claude
    Code's schema asks (``source``, ``installLocation``, ``lastUpdated``): it drops the whole
    file otherwise, so none of its plugins runs (measured: one entry without ``lastUpdated``)."""
    for name, entry in known.items():
        if not isinstance(entry, Mapping):
            raise ConfigError(f"must be an object, not {json_type(entry)}", path=shown, field=name)
        for key, kind in (("source", Mapping), ("installLocation", str), ("lastUpdated", str)):
            if not isinstance(entry.get(key), kind):
                raise ConfigError(
                    f"has no {key}, so Claude Code drops the whole file", path=shown, field=name
                )


def _enabled(switches: ClaudeSwitches, problems: list[str]) -> Iterator[_Plugin]:
    """Each plugin that is on and can be found, in the order its settings name it."""
    files = switches.files
    known_path, installed_path = (
        files.plugins / "known_marketplaces.json",
        files.plugins / "installed_plugins.json",
    )
    known_shown, installed_shown = files.shown(known_path), files.shown(installed_path)
    try:
        known = _object(_json(known_path, known_shown), known_shown)
        _check_known(known, known_shown)
    except ConfigError as error:
        problems.append(f"{error} (Claude Code's plugin servers unread)")
        return
    installed: Mapping[str, Any] | None = None
    listings: dict[Path, Any] = {}
    chosen = switches.enabled_plugins
    if len(chosen) > MAX_PLUGINS:
        problems.append(
            f"Claude Code turns on {len(chosen)} plugins here: only the first {MAX_PLUGINS} "
            "are read"
        )
    for switch in chosen[:MAX_PLUGINS]:
        plugin_id = switch.value
        name, _, market = plugin_id.rpartition("@")
        try:
            if not name or not market:
                raise ConfigError(f"{plugin_id!r} is not <plugin>@<marketplace>")
            marketplace = known.get(market)
            if not isinstance(marketplace, Mapping):
                raise ConfigError(f"its marketplace {market!r} is not in {known_shown}")
            entry, listing, root = _marketplace_entry(marketplace, name, listings)
            if root is None:
                if installed is None:
                    installed = _object(_json(installed_path, installed_shown), installed_shown)
                root = _installed_root(installed, plugin_id, files)
        except ConfigError as error:
            problems.append(
                f"Claude Code's plugin {plugin_id} ({switch.key} in {switch.shown_file}): "
                f"{error}; its servers are not shown"
            )
            continue
        yield _Plugin(plugin_id, root, _scope(switch, files), entry, listing)


def _server_files(
    plugin: _Plugin, manifest: Mapping[str, Any], manifest_path: Path, problems: list[str]
) -> Iterator[tuple[Path, Mapping[str, Any]]]:
    """Each file of the plugin with its server entries, in the order Claude Code merges them
    (``manifest``: its ``plugin.json``, or its marketplace entry, read from
    ``manifest_path``); a bundle or URL the manifest names is a line in ``problems`` (the rest
    is read)."""
    mcp_json = plugin.root / ".mcp.json"
    value = _object(_json(mcp_json, str(mcp_json)), str(mcp_json))
    wrapped = value.get(SERVERS_KEY)
    yield mcp_json, _object(wrapped if wrapped is not None else value, str(mcp_json), SERVERS_KEY)
    declared = manifest.get(SERVERS_KEY)
    for item in declared if isinstance(declared, list) else [declared]:
        if item is None:
            continue
        if isinstance(item, Mapping):
            yield manifest_path, item
        elif isinstance(item, str) and item.endswith(".json"):
            other = plugin.root / item
            found = _object(_json(other, str(other)), str(other))
            inner = found.get(SERVERS_KEY)
            yield other, _object(inner if inner is not None else found, str(other), SERVERS_KEY)
        else:  # an .mcpb bundle or a URL: fetched and unpacked by Claude Code, not read here
            error = ConfigError(
                f"names {item!r}, which is not read here",
                path=str(manifest_path),
                field=SERVERS_KEY,
            )
            problems.append(f"{error} (a server of Claude Code's plugin {plugin.plugin_id})")


def _resolved(entry: Any, plugin: _Plugin, files: ClaudeFiles) -> Any:
    """``entry`` with the plugin's variables put in, as Claude Code puts them."""
    data = files.plugins / "data" / _DATA_UNSAFE.sub("-", plugin.plugin_id)
    values = {
        "CLAUDE_PLUGIN_ROOT": str(plugin.root),
        "CLAUDE_PLUGIN_DATA": str(data),
        "CLAUDE_PROJECT_DIR": str(files.root),
    }
    resolved = map_strings(entry, lambda text: _ROOT_VARIABLES.sub(lambda m: values[m[1]], text))
    if isinstance(resolved, dict) and "command" in resolved:  # a stdio server
        env = resolved.get("env")
        own = env if isinstance(env, Mapping) else {}
        resolved["env"] = {
            "CLAUDE_PLUGIN_ROOT": values["CLAUDE_PLUGIN_ROOT"],
            "CLAUDE_PLUGIN_DATA": values["CLAUDE_PLUGIN_DATA"],
            **own,
        }
    return resolved


def _insecure(path: Path) -> str | None:
    """Why a plugin's file is not trusted to name commands (others may change it), as the
    store says it of any config file (``trust.file_trust_problem``); ``None`` when it is."""
    try:
        info = path.stat()
    except (OSError, ValueError):
        return None
    return file_trust_problem(str(path), stat.S_IMODE(info.st_mode), info.st_uid)


def read_plugin_servers(switches: ClaudeSwitches) -> PluginServers:
    """The servers of every plugin ``switches`` say is on, read now; never raises for what a
    file holds (each problem is in ``problems``, naming the file)."""
    files = switches.files
    problems: list[str] = []
    by_file: dict[tuple[Path, str], tuple[SourceFile, dict[str, ServerConfig]]] = {}
    for plugin in _enabled(switches, problems):
        name = plugin.plugin_id.rpartition("@")[0]
        servers: dict[str, tuple[Path, ServerConfig]] = {}
        try:
            manifest_path = plugin.root.joinpath(*_MANIFEST_FILE)
            value = _json(manifest_path, str(manifest_path))
            # Without a plugin.json the marketplace entry is the manifest (measured: with one,
            # the entry's mcpServers are not run).
            manifest = plugin.entry if value is None else _object(value, str(manifest_path))
            if value is None:
                manifest_path = plugin.listing
            # The manifest's name is the plugin's (measured: not the marketplace entry's).
            if isinstance(manifest.get("name"), str) and manifest["name"]:
                name = manifest["name"]
            for path, entries in _server_files(plugin, manifest, manifest_path, problems):
                for server, entry in entries.items():
                    full = plugin_server_name(name, str(server))
                    config = server_or_problem(full, _resolved(entry, plugin, files), str(path))
                    # Claude Code ignores switches inside an entry (measured): only its own count.
                    config = config.model_copy(update={"disabled": False, "tools": ToolFilter()})
                    servers.pop(full, None)  # a later file wins the name, and its place
                    servers[full] = (path, config)
        except ConfigError as error:
            problems.append(f"{error} (Claude Code's plugin {plugin.plugin_id} unread)")
            continue
        for full, (path, config) in servers.items():
            key = (path, plugin.plugin_id)
            if key not in by_file:
                ref = SourceRef(
                    path=str(path), scope=plugin.scope, host="claude", plugin=plugin.plugin_id
                )
                by_file[key] = (SourceFile(ref, PLUGIN_DIALECT), {})
            by_file[key][1][full] = config
    parts = tuple(
        (source, PluginConfig(servers=tuple(servers.values()), insecure=_insecure(source.path)))
        for source, servers in by_file.values()
    )
    return PluginServers(parts=parts, problems=tuple(problems))
