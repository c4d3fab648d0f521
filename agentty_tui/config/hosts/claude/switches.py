"""Claude Code's switches for one project, read from every file Claude Code reads them from.

What Claude Code 2.1.197 obeys (measured with the program, ``docs/HOSTS_MEASURED.md``; where it
reads each file was found in the program itself):

- a ``permissions.deny`` rule ``mcp__<server>__<tool>`` (or server-wide ``mcp__<server>``,
  ``mcp__<server>__*``) in any settings file leaves the tool out of the model's request; server
  and tool are spelled by ``claude_spelled``. The settings files: the user's
  (``$CLAUDE_CONFIG_DIR/settings.json``, by default ``~/.claude/settings.json``), the project's
  shared ``<root>/.claude/settings.json``, the project's local
  ``<root>/.claude/settings.local.json``, and the managed ones (on Linux
  ``/etc/claude-code/managed-settings.json`` and ``managed-settings.d/*.json``);
- ``projects["<root>"].disabledMcpServers`` in ``~/.claude.json``
  (``$CLAUDE_CONFIG_DIR/.claude.json``) stops a server of any scope in that project, the name
  compared as written (what ``/mcp`` writes, for every scope);
- for a ``.mcp.json`` server, ``disabledMcpjsonServers`` (rejected; in any settings file or,
  as Claude Code's older versions wrote it, the project's entry in ``~/.claude.json``) stops it,
  ``enabledMcpjsonServers`` / ``enableAllProjectMcpServers`` approve it; the names compared
  spelled. A headless run (``claude -p``) starts a server that is neither.

Everything read is untrusted: a file that does not parse, a key of the wrong type or a file
over the size limit becomes a problem naming the file (and line or key), and the rest is read.
Claude Code itself drops a settings file that does not parse, so its switches count for nothing
here either.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agentty_tui.config.documents.formats import JsonFormat
from agentty_tui.config.documents.jsonspan import value_span
from agentty_tui.config.files import decode_text, read_file
from agentty_tui.config.hosts.claude.local import PROJECTS_KEY
from agentty_tui.config.hosts.claude.policy import ServerPolicy, policy_of
from agentty_tui.config.raw import json_type
from agentty_tui.errors import ConfigError
from agentty_tui.specs import HostView, SourceRef, ToolFilter

__all__ = [
    "DISABLED_MCPJSON_KEY",
    "DISABLED_SERVERS_KEY",
    "ENABLED_MCPJSON_KEY",
    "ENABLED_PLUGINS_KEY",
    "ENABLE_ALL_KEY",
    "MANAGED_DIR",
    "PLUGIN_PREFIX",
    "Approval",
    "ClaudeFiles",
    "ClaudeSwitches",
    "EntryScope",
    "Switch",
    "claude_spelled",
    "deny_rule",
    "is_plugin_server",
    "parse_mcp_rule",
    "read_switches",
    "shown_path",
]

EntryScope = Literal["user", "local", "project"]
"""Where a Claude Code entry is: ``~/.claude.json``'s ``mcpServers`` (user), the project's
entry there (local), or ``<root>/.mcp.json`` (project)."""

DISABLED_SERVERS_KEY = "disabledMcpServers"
"""The list of servers off in a project (in its entry of ``~/.claude.json``)."""
DISABLED_MCPJSON_KEY = "disabledMcpjsonServers"
"""The ``.mcp.json`` servers rejected (a settings key)."""
ENABLED_MCPJSON_KEY = "enabledMcpjsonServers"
"""The ``.mcp.json`` servers approved (a settings key)."""
ENABLE_ALL_KEY = "enableAllProjectMcpServers"
"""Every ``.mcp.json`` server approved (a settings key)."""
ENABLED_PLUGINS_KEY = "enabledPlugins"
"""The plugins on or off, ``{"<plugin>@<marketplace>": true}`` (a settings key)."""
PLUGIN_PREFIX = "plugin:"
"""How Claude Code names a plugin's server: ``plugin:<plugin>:<server>``."""
PERMISSIONS_KEY = "permissions"
"""The settings object holding ``deny``."""
DENY_KEY = "deny"
"""The list of denied tool rules in ``permissions``."""

MANAGED_DIR = Path("/etc/claude-code")
"""Where Claude Code reads managed settings on Linux (``managed-settings.json`` and
``managed-settings.d/*.json``)."""

_UNSPELLED = re.compile(r"[^A-Za-z0-9_-]")
_RUNS = re.compile(r"_+")
_CLAUDE_AI = "claude.ai "


def claude_spelled(name: str) -> str:
    """A server (or tool) name as Claude Code spells it in ``mcp__`` names: each character
    outside ``[A-Za-z0-9_-]`` one ``_`` (per character, not per byte). A ``claude.ai ``
    connector's name also has its runs of ``_`` joined and its edges trimmed, as the program
    does."""
    spelled = _UNSPELLED.sub("_", name)
    if name.startswith(_CLAUDE_AI):
        spelled = _RUNS.sub("_", spelled).strip("_")
    return spelled


def is_plugin_server(name: str) -> bool:
    """Whether ``name`` is a plugin's server as Claude Code names it (``plugin:<p>:<s>``):
    never a ``.mcp.json`` server, so no ``.mcp.json`` approval applies to it (measured)."""
    return name.startswith(PLUGIN_PREFIX)


def deny_rule(server: str, tool: str) -> str:
    """The ``permissions.deny`` rule that leaves ``tool`` of ``server`` out:
    ``mcp__<spelled server>__<spelled tool>``."""
    return f"mcp__{claude_spelled(server)}__{claude_spelled(tool)}"


def parse_mcp_rule(rule: str) -> tuple[str, str | None] | None:
    """``(server, tool)`` of an ``mcp__`` rule or tool name, split at ``__`` as Claude Code
    splits it (``tool`` is ``None`` for a server-wide ``mcp__<server>``); ``None`` for a rule
    of another tool. ``mcp__a__b__t`` is ``("a", "b__t")``: a server named ``a__b`` is ambiguous
    to Claude Code too."""
    parts = rule.split("__")
    if len(parts) < 2 or parts[0] != "mcp" or not parts[1]:
        return None
    return parts[1], "__".join(parts[2:]) if len(parts) > 2 else None


def _denies(rule: str, server: str, tool: str | None) -> bool:
    """Whether deny ``rule`` leaves out ``tool`` of ``server`` (every tool when ``None``)."""
    parsed = parse_mcp_rule(rule)
    if parsed is None:
        return False
    wanted = parse_mcp_rule(f"mcp__{claude_spelled(server)}__{claude_spelled(tool or '*')}")
    assert wanted is not None
    if parsed[0] != wanted[0]:
        return False
    if parsed[1] is None or parsed[1] == "*":
        return True
    return tool is not None and parsed[1] == wanted[1]


def shown_path(path: Path, home: Path, root: Path) -> str:
    """``path`` as a row says it: under the project root relative to it, under the home with
    ``~``, else whole."""
    for base, prefix in ((root, ""), (home, "~/")):
        try:
            rest = path.relative_to(base)
        except ValueError:
            continue
        if base == home and root != home and path.is_relative_to(root):
            continue
        return prefix + str(rest)
    return str(path)


@dataclass(frozen=True, slots=True)
class ClaudeFiles:
    """Where Claude Code reads its switches for one project (``of`` finds them)."""

    home: Path
    """The user's home folder."""
    root: Path
    """The project root, as Claude Code keys it in ``~/.claude.json``."""
    state: Path
    """``~/.claude.json`` (``$CLAUDE_CONFIG_DIR/.claude.json``)."""
    user_settings: Path
    """``~/.claude/settings.json`` (``$CLAUDE_CONFIG_DIR/settings.json``)."""
    project_settings: Path
    """``<root>/.claude/settings.json``: shared, in the repository."""
    local_settings: Path
    """``<root>/.claude/settings.local.json``: the user's own, uncommitted."""
    mcp_json: Path
    """``<root>/.mcp.json``: the project's servers."""
    managed_dir: Path = MANAGED_DIR
    """The managed settings' folder."""
    plugins_dir: Path | None = None
    """Where Claude Code keeps its plugins' state (``CLAUDE_CODE_PLUGIN_CACHE_DIR``, else
    ``plugins`` beside the user's settings); ``None``: that default (``plugins``)."""

    @classmethod
    def of(
        cls,
        home: str | os.PathLike[str],
        root: str | os.PathLike[str],
        env: Mapping[str, str] | None = None,
        *,
        managed_dir: Path = MANAGED_DIR,
    ) -> ClaudeFiles:
        """The files of the project at ``root`` (absolute) for the user whose home is ``home``;
        ``CLAUDE_CONFIG_DIR`` in ``env`` moves the user's files as it moves Claude Code's."""
        home_path = Path(home)
        root_text = os.fspath(root)
        if not os.path.isabs(root_text):
            raise ValueError(f"a project root must be an absolute path, not {root_text!r}")
        root_path = Path(os.path.normpath(root_text))
        config_dir = (env or {}).get("CLAUDE_CONFIG_DIR")
        user_dir = Path(config_dir) if config_dir else home_path / ".claude"
        state_dir = Path(config_dir) if config_dir else home_path
        plugins_dir = (env or {}).get("CLAUDE_CODE_PLUGIN_CACHE_DIR")
        return cls(
            home=home_path,
            root=root_path,
            state=state_dir / ".claude.json",
            user_settings=user_dir / "settings.json",
            project_settings=root_path / ".claude" / "settings.json",
            local_settings=root_path / ".claude" / "settings.local.json",
            mcp_json=root_path / ".mcp.json",
            managed_dir=managed_dir,
            plugins_dir=Path(plugins_dir) if plugins_dir else None,
        )

    @property
    def plugins(self) -> Path:
        """The plugins' state folder: ``installed_plugins.json``, ``known_marketplaces.json``,
        ``cache``, ``data`` (``~/.claude/plugins`` by default)."""
        return self.plugins_dir or self.user_settings.parent / "plugins"

    @property
    def project_key(self) -> str:
        """The project's key under ``projects`` in ``~/.claude.json``."""
        return str(self.root)

    def managed_settings(self) -> tuple[Path, ...]:
        """The managed settings files, in the order Claude Code merges them:
        ``managed-settings.json``, then ``managed-settings.d/*.json`` by name (dot files left
        out)."""
        found = [self.managed_dir / "managed-settings.json"]
        folder = self.managed_dir / "managed-settings.d"
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            names = []
        found += [folder / n for n in names if n.endswith(".json") and not n.startswith(".")]
        return tuple(found)

    @property
    def managed_mcp(self) -> Path:
        """The managed MCP file, ``managed-mcp.json`` (``hosts/claude/managed``): when it reads,
        only its servers run."""
        return self.managed_dir / "managed-mcp.json"

    def settings_files(self) -> tuple[Path, ...]:
        """Every settings file read: user, project shared, project local, managed; each once
        (in a project at the home folder the project's shared settings are the user's)."""
        own = (self.user_settings, self.project_settings, self.local_settings)
        return tuple(dict.fromkeys((*own, *self.managed_settings())))

    def settings_for(self, scope: EntryScope) -> Path:
        """The settings file a switch of an entry of ``scope`` is written to: the user's for a
        user entry, the project's local (uncommitted) one for a local or ``.mcp.json`` entry."""
        return self.user_settings if scope == "user" else self.local_settings

    def own(self, path: Path) -> bool:
        """Whether ``path`` is one of the user's own files (the user settings, the project's
        local settings, ``~/.claude.json``), where a switch may be taken back."""
        return path in (self.user_settings, self.local_settings, self.state)

    def watched(self) -> tuple[Path, ...]:
        """The files whose outside edit changes a switch (and the managed folders, where a new
        file is one)."""
        return (
            self.state,
            *self.settings_files(),
            self.managed_dir / "managed-settings.d",
            self.managed_mcp,
            self.plugins / "installed_plugins.json",
            self.plugins / "known_marketplaces.json",
        )

    def shown(self, path: Path) -> str:
        """``path`` as a row says it (``shown_path``)."""
        return shown_path(path, self.home, self.root)


@dataclass(frozen=True, slots=True)
class Switch:
    """One switch found in a file: what it says and where."""

    file: Path
    """The file that holds it."""
    shown_file: str
    """The file as a row says it (``~/.claude.json``, ``.claude/settings.local.json``)."""
    key: str
    """The key that holds it (``permissions.deny``, ``disabledMcpServers``)."""
    value: str
    """The rule or server name as written."""
    own: bool
    """In one of the user's own files (user settings, local settings, ``~/.claude.json``)."""

    @property
    def where(self) -> str:
        """``disabledMcpServers in ~/.claude.json``, for a row."""
        return f"{self.key} in {self.shown_file}"

    @property
    def text(self) -> str:
        """The switch and where: ``mcp__time__* in permissions.deny of .claude/settings.json``."""
        return f"{self.value} in {self.key} of {self.shown_file}"


ApprovalState = Literal["approved", "rejected", "pending"]


@dataclass(frozen=True, slots=True)
class Approval:
    """A ``.mcp.json`` server's approval in this project."""

    state: ApprovalState
    """``approved`` (``enabledMcpjsonServers`` or ``enableAllProjectMcpServers``),
    ``rejected`` (``disabledMcpjsonServers``, which wins) or ``pending`` (neither)."""
    by: Switch | None
    """The switch that decided it (``None`` for pending)."""

    @property
    def headless_starts(self) -> bool:
        """Whether a headless run (``claude -p``) starts the server: unless rejected, as
        measured (an interactive session asks first for a pending one)."""
        return self.state != "rejected"


@dataclass(frozen=True, slots=True)
class ClaudeSwitches:
    """Claude Code's switches for one project, as its files say now (``read_switches``)."""

    files: ClaudeFiles
    """The files they were read from."""
    deny: tuple[Switch, ...] = ()
    """Every ``mcp__`` rule of ``permissions.deny``, in the order of ``files.settings_files``."""
    disabled_servers: tuple[Switch, ...] = ()
    """The project's ``disabledMcpServers`` in ``~/.claude.json``."""
    disabled_mcpjson: tuple[Switch, ...] = ()
    """``disabledMcpjsonServers`` of every settings file and of the project's entry."""
    enabled_mcpjson: tuple[Switch, ...] = ()
    """``enabledMcpjsonServers`` likewise."""
    enable_all: tuple[Switch, ...] = ()
    """Each ``enableAllProjectMcpServers: true`` (its value ``"true"``)."""
    enabled_plugins: tuple[Switch, ...] = ()
    """The plugins on in this project (the value ``<plugin>@<marketplace>``), each with the
    settings file whose ``enabledPlugins`` decides it: the last of ``files.settings_files``
    that names it (local over project over user, managed over all), only when it says
    ``true`` there (what Claude Code checks)."""
    problems: tuple[str, ...] = ()
    """Why a file (or a key of it) could not be read, naming the file and line or key."""
    policy: ServerPolicy = field(default_factory=ServerPolicy)
    """``allowedMcpServers`` / ``deniedMcpServers`` of every settings file (``policy``)."""

    def host_view(self, name: str, ref: SourceRef) -> HostView:
        """What Claude Code does with its entry ``name`` in ``ref``: what these switches say,
        never what the entry holds (it ignores switches there). A headless run starts a
        pending ``.mcp.json`` server too, so pending is not off (an interactive one asks)."""
        files, off = self.files, self.server_off(name, ref.scope)
        if self.server_denied(name) is not None:
            tools = ToolFilter(include=())  # a server-wide rule: no tool of it is sent
        else:
            tools = ToolFilter(exclude=tuple(self.denied_tools(name)))
        # A plugin's server is never a .mcp.json one, whatever scope turns its plugin on.
        mcpjson = ref.scope == "project" and ref.plugin is None
        approved = self.approval(name).state == "approved" if mcpjson else None
        return HostView(
            source=ref,
            tools=tools,
            off=off is not None,
            tool_switch=f"permissions.deny in {files.shown(files.settings_for(ref.scope))}",
            server_switch=f"disabledMcpServers in {files.shown(files.state)}",
            off_by=off.where if off is not None else None,
            approved=approved,
        )

    def server_off(self, name: str, scope: EntryScope) -> Switch | None:
        """What keeps server ``name`` (an entry of ``scope``) from starting in this project,
        or ``None``: ``disabledMcpServers``, then for a ``.mcp.json`` entry a rejection."""
        for switch in self.disabled_servers:
            if switch.value == name:
                return switch
        if scope == "project" and not is_plugin_server(name):
            approval = self.approval(name)
            return approval.by if approval.state == "rejected" else None
        return None

    def server_offs(self, name: str, scope: EntryScope) -> tuple[Switch, ...]:
        """Every switch that keeps server ``name`` from starting (``server_off`` finds the
        first)."""
        found = [s for s in self.disabled_servers if s.value == name]
        if scope == "project" and not is_plugin_server(name):
            spelled = claude_spelled(name)
            found += [s for s in self.disabled_mcpjson if _same_mcpjson(s.value, name, spelled)]
        return tuple(found)

    def approval(self, name: str) -> Approval:
        """The approval of the ``.mcp.json`` server ``name`` (names compared spelled)."""
        spelled = claude_spelled(name)
        for switch in self.disabled_mcpjson:
            if _same_mcpjson(switch.value, name, spelled):
                return Approval("rejected", switch)
        for switch in self.enabled_mcpjson:
            if _same_mcpjson(switch.value, name, spelled):
                return Approval("approved", switch)
        if self.enable_all:
            return Approval("approved", self.enable_all[0])
        return Approval("pending", None)

    def tool_denied(self, server: str, tool: str) -> Switch | None:
        """The first deny rule that leaves ``tool`` of ``server`` out, or ``None``."""
        return next(iter(self.tool_denials(server, tool)), None)

    def tool_denials(self, server: str, tool: str) -> tuple[Switch, ...]:
        """Every deny rule that leaves ``tool`` of ``server`` out."""
        return tuple(s for s in self.deny if _denies(s.value, server, tool))

    def server_denied(self, server: str) -> Switch | None:
        """A server-wide deny rule (``mcp__<server>``, ``mcp__<server>__*``), or ``None``."""
        return next((s for s in self.deny if _denies(s.value, server, None)), None)

    def denied_tools(self, server: str) -> dict[str, Switch]:
        """The tools of ``server`` named by a rule of their own, each with its first rule."""
        spelled = claude_spelled(server)
        found: dict[str, Switch] = {}
        for switch in self.deny:
            parsed = parse_mcp_rule(switch.value)
            if parsed is not None and parsed[0] == spelled and parsed[1] not in (None, "*"):
                assert parsed[1] is not None
                found.setdefault(parsed[1], switch)
        return found


def _same_mcpjson(written: str, name: str, spelled: str) -> bool:
    """Whether a ``disabled``/``enabledMcpjsonServers`` item names server ``name``: compared
    spelled, except a ``plugin:`` name, compared as written (as Claude Code compares them)."""
    if written.startswith("plugin:") or name.startswith("plugin:"):
        return written == name
    return claude_spelled(written) == spelled


# --- reading --------------------------------------------------------------------------------


def _text(path: Path, shown: str) -> str | None:
    """The file's text (``None`` when absent); ``ConfigError`` for one that cannot be read."""
    read = read_file(path, shown)
    if read is None:
        return None
    return decode_text(read.data, shown)


def _settings_value(text: str, shown: str) -> Mapping[str, Any]:
    """A settings file's object (blank text: empty); ``ConfigError`` naming line and column."""
    if not text.strip():
        return {}
    value = JsonFormat().load(text, shown).value
    if not isinstance(value, Mapping):
        raise ConfigError(f"the top level must be an object, not {json_type(value)}", path=shown)
    return value


def _project_value(text: str, shown: str, key: str) -> Mapping[str, Any]:
    """The project's entry of ``~/.claude.json`` (empty when absent), found without parsing
    the rest of a file of megabytes; ``ConfigError`` naming the line of a syntax error."""
    if not text.strip():
        return {}
    try:
        span = value_span(text, (PROJECTS_KEY, key))
        value = {} if span is None else json.loads(text[span[0] : span[1]])
    except ValueError:
        JsonFormat().load(text, shown)  # raises with the line and column
        raise ConfigError("not plain JSON", path=shown) from None
    if not isinstance(value, Mapping):
        field_name = f"{PROJECTS_KEY}[{json.dumps(key, ensure_ascii=False)}]"
        raise ConfigError(
            f"must be an object (the project's settings), not {json_type(value)}",
            path=shown,
            field=field_name,
        )
    return value


def _strings(
    holder: Mapping[str, Any], key: str, shown: str, field_name: str, problems: list[str]
) -> Iterator[str]:
    """The strings of list ``holder[key]``; a wrong type is a problem naming the field."""
    value = holder.get(key)
    if value is None:
        return
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        problems.append(
            str(ConfigError("must be a list of strings; not read", path=shown, field=field_name))
        )
        return
    yield from value


def read_switches(files: ClaudeFiles) -> ClaudeSwitches:
    """Read every file of ``files`` now; never raises for what a file holds (each problem is
    in ``problems``, naming the file)."""
    problems: list[str] = []
    deny: list[Switch] = []
    disabled: list[Switch] = []
    rejected: list[Switch] = []
    approved: list[Switch] = []
    every: list[Switch] = []
    plugins: dict[str, tuple[bool, Path]] = {}
    read: list[tuple[str, Mapping[str, Any], bool]] = []
    managed = set(files.managed_settings())

    def switch(path: Path, key: str, value: str) -> Switch:
        return Switch(path, files.shown(path), key, value, files.own(path))

    for path in files.settings_files():
        shown = files.shown(path)
        try:
            text = _text(path, shown)
            settings = {} if text is None else _settings_value(text, shown)
        except ConfigError as error:
            problems.append(str(error))
            continue
        read.append((shown, settings, path in managed))
        permissions = settings.get(PERMISSIONS_KEY, {})
        if not isinstance(permissions, Mapping):
            message = f"must be an object, not {json_type(permissions)}; not read"
            problems.append(str(ConfigError(message, path=shown, field=PERMISSIONS_KEY)))
            permissions = {}
        for rule in _strings(permissions, DENY_KEY, shown, "permissions.deny", problems):
            if parse_mcp_rule(rule) is not None:
                deny.append(switch(path, "permissions.deny", rule))
        _approvals(settings, path, shown, switch, problems, rejected, approved, every)
        _plugins(settings, path, shown, problems, plugins)

    shown = files.shown(files.state)
    try:
        text = _text(files.state, shown)
        project = {} if text is None else _project_value(text, shown, files.project_key)
    except ConfigError as error:
        problems.append(str(error))
        project = {}
    prefix = f"{PROJECTS_KEY}[{json.dumps(files.project_key, ensure_ascii=False)}]."
    for name in _strings(
        project, DISABLED_SERVERS_KEY, shown, prefix + DISABLED_SERVERS_KEY, problems
    ):
        disabled.append(switch(files.state, DISABLED_SERVERS_KEY, name))
    _approvals(project, files.state, shown, switch, problems, rejected, approved, every, prefix)
    return ClaudeSwitches(
        files=files,
        deny=tuple(deny),
        disabled_servers=tuple(disabled),
        disabled_mcpjson=tuple(rejected),
        enabled_mcpjson=tuple(approved),
        enable_all=tuple(every),
        enabled_plugins=tuple(
            switch(path, ENABLED_PLUGINS_KEY, name) for name, (on, path) in plugins.items() if on
        ),
        policy=policy_of(read, problems),
        problems=tuple(problems),
    )


def _plugins(
    settings: Mapping[str, Any],
    path: Path,
    shown: str,
    problems: list[str],
    plugins: dict[str, tuple[bool, Path]],
) -> None:
    """One settings file's ``enabledPlugins`` into ``plugins`` (a later file's word wins):
    on only for ``true``, as Claude Code checks; a value that is no object is a problem."""
    value = settings.get(ENABLED_PLUGINS_KEY)
    if value is None:
        return
    if not isinstance(value, Mapping):
        message = f"must be an object, not {json_type(value)}; not read"
        problems.append(str(ConfigError(message, path=shown, field=ENABLED_PLUGINS_KEY)))
        return
    for name, on in value.items():
        plugins[str(name)] = (on is True, path)


def _approvals(
    holder: Mapping[str, Any],
    path: Path,
    shown: str,
    switch: Callable[[Path, str, str], Switch],
    problems: list[str],
    rejected: list[Switch],
    approved: list[Switch],
    every: list[Switch],
    prefix: str = "",
) -> None:
    """The ``.mcp.json`` approval keys of one settings object, appended to the lists."""
    for name in _strings(
        holder, DISABLED_MCPJSON_KEY, shown, prefix + DISABLED_MCPJSON_KEY, problems
    ):
        rejected.append(switch(path, DISABLED_MCPJSON_KEY, name))
    for name in _strings(
        holder, ENABLED_MCPJSON_KEY, shown, prefix + ENABLED_MCPJSON_KEY, problems
    ):
        approved.append(switch(path, ENABLED_MCPJSON_KEY, name))
    value = holder.get(ENABLE_ALL_KEY)
    if value is True:
        every.append(switch(path, ENABLE_ALL_KEY, "true"))
    elif value is not None and value is not False:
        message = f"must be true or false, not {json_type(value)}; not read"
        problems.append(str(ConfigError(message, path=shown, field=prefix + ENABLE_ALL_KEY)))
