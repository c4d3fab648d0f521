"""The one edit engine: every config edit, applied to any dialect through its adapter.

The vocabulary of config changes (``ConfigEdit``: ``AddServer``, ``RemoveServer``, ...) is small
frozen values, the same for every dialect. The engine applies each one through a dialect's
adapter, touching only the keys the edit owns, so everything else in the user's file is carried
over as it was.

A dialect is an ``Adapter``: it names its document format (``formats``) and says how it spells
an entry (the server map's key, the tool lists, the disabled flag, the timeouts, the keys of a
connection); it reads entries into the model (``validate``) and writes a new one
(``new_entry``). The engine does the rest the same way for every dialect: it finds the entry,
refuses what cannot be done with the same messages, and changes only the keys the edit owns,
through the format's tree operations, so that the format keeps everything else as it was.

The tool on/off rule (``toggle_tool``) is shared on plain allow-list / deny-list values: each
format spells the lists its own way (``tools.include`` / ``tools.exclude``, Gemini's
``includeTools`` / ``excludeTools``, Codex's ``enabled_tools`` / ``disabled_tools``) but turns a
tool on or off the same way, so that what one host writes means the same to the others.

``UpdateServer`` replaces how a server is reached inside its entry, keeping every other key.
A dialect spells a connection as a few groups of keys, each group carrying some fields of the
spec: in ``mcpServers`` JSON the field ``transport`` is the key ``type``; in Gemini's settings
``url`` and ``transport`` share ``httpUrl`` / ``url`` / ``type``; in Codex's TOML ``headers``
is spread over ``http_headers``, ``env_http_headers`` and ``bearer_token_env_var``. A group
whose fields did not change keeps its keys exactly as written (a Gemini ``$VAR`` stays
``$VAR``, a VS Code ``${env:VAR}`` stays as it is); a changed group's keys are rewritten from
the new entry in the dialect's spelling, an existing key keeping its place. Keys of no group
(tool lists, ``disabled``, ``oauth``, unknown keys) are never touched, except a URL server's
own settings (``oauth``), dropped when it becomes a command server, and a command server's
(VS Code's ``envFile``), dropped when it becomes a URL server: the entry would not load.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any, TypeAlias

from agentty_tui.config.documents.formats import Format, refuse_duplicates
from agentty_tui.config.documents.jsonspan import value_span
from agentty_tui.config.raw import server_or_problem, str_list
from agentty_tui.errors import ConfigError, UnknownServerError
from agentty_tui.specs import PluginConfig, ServerConfig, ServerSpec, StdioSpec

__all__ = [
    "Adapter",
    "AddServer",
    "AllowServer",
    "ConfigEdit",
    "ConnectionSpelling",
    "RemoveServer",
    "RestoreEntry",
    "SetServerDisabled",
    "SetServerPriority",
    "SetToolEnabled",
    "SetToolFilter",
    "SetToolPinned",
    "TimeoutKey",
    "UpdateServer",
    "filter_entry",
    "plain_number",
    "same_name",
    "spec_to_write",
    "toggle_tool",
    "update_connection",
    "validate_entries",
]


@dataclass(frozen=True, slots=True)
class AddServer:
    """Add a server entry; refused when a server of that name exists."""

    name: str
    """The new config key."""
    spec: ServerSpec
    """How to reach the server; written back in the on-disk shape."""
    connect_timeout: float | None = None
    """Seconds to connect and list tools; ``None`` leaves the default (nothing written)."""
    request_timeout: float | None = None
    """Seconds any one request may take; ``None`` leaves the default (nothing written)."""


@dataclass(frozen=True, slots=True)
class RemoveServer:
    """Remove a server entry; refused when there is none of that name."""

    name: str
    """The config key to drop."""


@dataclass(frozen=True, slots=True)
class SetToolEnabled:
    """Turn one tool of a server on or off through the entry's ``tools`` include/exclude lists."""

    server: str
    """The config key of the server."""
    tool: str
    """The bare tool name, as the server advertises it."""
    enabled: bool
    """The wanted state."""


@dataclass(frozen=True, slots=True)
class SetToolPinned:
    """Pin one tool of a server (trimmed only after every unpinned tool), or unpin it, through
    the entry's ``tools.pin`` list; refused by a dialect without one."""

    server: str
    """The config key of the server."""
    tool: str
    """The bare tool name."""
    pinned: bool
    """The wanted state."""


@dataclass(frozen=True, slots=True)
class SetServerPriority:
    """Set a server's ``priority`` (0 drops the key); refused by a dialect without one."""

    server: str
    """The config key of the server."""
    priority: int
    """Higher first on the wire; above 0 every tool of the server is pinned."""


@dataclass(frozen=True, slots=True)
class SetServerDisabled:
    """Keep a server in the config but stop (or resume) starting it."""

    server: str
    """The config key of the server."""
    disabled: bool
    """The wanted state."""


@dataclass(frozen=True, slots=True)
class SetToolFilter:
    """Replace a server's whole tool filter, e.g. to carry an imported server's lists over."""

    server: str
    """The config key of the server."""
    include: tuple[str, ...] | None
    """The allow-list (``None``: no allow-list, every tool not excluded is on)."""
    exclude: tuple[str, ...] = ()
    """The deny-list."""


@dataclass(frozen=True, slots=True)
class UpdateServer:
    """Replace how an existing server is reached; every other key of its entry stays as written.

    The keys of the connection (``command`` / ``args`` / ``env`` / ``cwd``, or ``url`` /
    ``headers`` / the transport) are rewritten in the file's own spelling, and only those whose
    value changed; tool lists, the disabled flag, ``oauth``, unknown keys and comments stay.
    Refused (``ConfigError`` naming the file and server) when there is no such server.
    """

    server: str
    """The config key of the server."""
    spec: ServerSpec
    """How to reach it from now on."""
    connect_timeout: float | None = None
    """New seconds to connect and list tools; ``None`` keeps what the entry says."""
    request_timeout: float | None = None
    """New seconds any one request may take; ``None`` keeps what the entry says."""


@dataclass(frozen=True, slots=True)
class RestoreEntry:
    """Put back an entry exactly as it was read from a file of the same dialect (a server
    moved aside and returned: ``config.routing``), every key kept; refused when a server of
    that name exists."""

    name: str
    """The config key."""
    entry: Mapping[str, Any]
    """The entry's plain value, as the file held it."""


@dataclass(frozen=True, slots=True)
class AllowServer:
    """Let a server start as far as this file's own server lists decide, whether or not the
    file holds its entry (Gemini CLI's ``mcp.excluded`` and ``mcp.allowed`` name servers of
    any of its files); nothing for a dialect without such lists."""

    name: str
    """The server's name."""
    allowed: bool = True
    """``False``: keep it from starting instead (Gemini CLI's ``mcp.excluded``), for a server
    of another file than this one (an extension's)."""


ConfigEdit: TypeAlias = (
    AllowServer
    | AddServer
    | RemoveServer
    | SetToolEnabled
    | SetToolPinned
    | SetServerPriority
    | SetServerDisabled
    | SetToolFilter
    | UpdateServer
    | RestoreEntry
)
"""Every change the config layer knows how to write."""


def filter_entry(include: list[str] | None, exclude: list[str] | None) -> dict[str, Any]:
    """Our ``tools`` object for a dialect's allow-list / deny-list (empty when neither is set)."""
    tools: dict[str, Any] = {}
    if include is not None:
        tools["include"] = include
    if exclude:
        tools["exclude"] = exclude
    return tools


def toggle_tool(
    include: list[str] | None, exclude: list[str], tool: str, enabled: bool
) -> tuple[list[str] | None, list[str]]:
    """The (include, exclude) lists after turning ``tool`` on or off; the inputs are unchanged.

    Off adds the tool to the deny-list. On removes it from the deny-list and, when there is an
    allow-list, adds it there too; an absent allow-list stays absent.
    """
    if enabled:
        exclude = [name for name in exclude if name != tool]
        if include is not None and tool not in include:
            include = [*include, tool]
    elif tool not in exclude:
        exclude = [*exclude, tool]
    return include, exclude


@dataclass(frozen=True, slots=True)
class ConnectionSpelling:
    """Which keys of a dialect's entry carry which fields of a ``ServerSpec``."""

    groups: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]
    """``(spec fields, entry keys)`` pairs; every connection key of both transports is in one."""
    url_only: tuple[str, ...] = ()
    """Keys that only a URL server may have (dropped when the server becomes a command)."""
    command_only: tuple[str, ...] = ()
    """Keys that only a command server may have (dropped when the server becomes a URL)."""


def same_name(*fields: str) -> tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]:
    """Groups of one field each, spelled as the key of the same name."""
    return tuple(((field,), (field,)) for field in fields)


def spec_to_write(new: ServerSpec, old: ServerConfig | None) -> ServerSpec:
    """``new`` without the env values that came, unchanged, from the entry's env file: those
    stay in the file they were read from rather than being copied into the config."""
    if old is None or not old.env_file_keys or not isinstance(new, StdioSpec):
        return new
    before = old.spec.env if isinstance(old.spec, StdioSpec) else {}
    env = {
        key: value
        for key, value in new.env.items()
        if not (key in old.env_file_keys and before.get(key) == value)
    }
    return new.model_copy(update={"env": env})


def _same(old: ServerSpec | None, new: ServerSpec, fields: tuple[str, ...]) -> bool:
    if old is None or old.kind != new.kind:
        return False
    return all(getattr(old, field, None) == getattr(new, field, None) for field in fields)


def _assign(entry: MutableMapping[str, Any], key: str, value: Any) -> None:
    entry[key] = value


def update_connection(
    entry: MutableMapping[str, Any],
    new_entry: Mapping[str, Any],
    new: ServerSpec,
    old: ServerConfig | None,
    spelling: ConnectionSpelling,
    *,
    add: Callable[[MutableMapping[str, Any], str, Any], None] = _assign,
) -> None:
    """Make ``entry`` reach ``new`` (whose entry in the dialect's spelling is ``new_entry``).

    ``old`` is the entry as loaded (``None`` or without a spec when it had a problem: then
    every group is rewritten). ``add`` puts a key the entry lacks (after its last key, say).
    """
    before = None if old is None else old.spec
    for fields, keys in spelling.groups:
        if _same(before, new, fields):
            continue
        for key in keys:
            if key in new_entry and key in entry:
                entry[key] = new_entry[key]
            elif key in new_entry:
                add(entry, key, new_entry[key])
            elif key in entry:
                del entry[key]
    for key in spelling.url_only if isinstance(new, StdioSpec) else spelling.command_only:
        if key in entry:
            del entry[key]


def plain_number(value: float) -> float:
    """``value`` as an ``int`` when it is a whole number (``5``, not ``5.0``, in the file)."""
    return int(value) if float(value).is_integer() else value


@dataclass(frozen=True, slots=True)
class TimeoutKey:
    """How a dialect spells one of ``ServerConfig``'s timeouts."""

    field: str
    """``connect_timeout`` or ``request_timeout`` (the edit's and the model's name)."""
    key: str | None
    """The entry key; ``None`` when the format cannot hold this timeout."""
    scale: float = 1
    """File units per second (1000 for milliseconds)."""
    older: str | None = None
    """An older key of the same timeout, kept in use by a file that has it alone."""
    older_scale: float = 1
    """The older key's units per second."""
    missing: str = ""
    """What to say when an edit asks for a timeout the format cannot hold..."""
    missing_field: str | None = None
    """... and the field that message names."""


def validate_entries(
    servers: dict[str, Any], ours: Callable[[str, dict[str, Any]], dict[str, Any]], path: str | None
) -> tuple[ServerConfig, ...]:
    """Each entry, turned into our ``mcpServers`` shape by ``ours`` and validated; one bad
    entry carries its problem and never stops the others."""
    configs: list[ServerConfig] = []
    for key, entry in servers.items():
        name = str(key)
        if not isinstance(entry, dict):
            configs.append(server_or_problem(name, entry, path))
            continue
        try:
            shaped = ours(name, entry)
        except ConfigError as error:
            configs.append(ServerConfig(name=name, problem=str(error)))
            continue
        configs.append(server_or_problem(name, shaped, path))
    return tuple(configs)


class Adapter:
    """A dialect: its format, its spelling, how it reads an entry and writes a new one.

    Subclasses set the class attributes and give ``validate`` and ``new_entry``; the engine
    methods (``parse``, ``apply``, ``dump``) are the ``Dialect`` protocol the store uses.
    """

    name: str = ""
    """What ``dialect_by_name`` calls the dialect."""
    format: Format
    """The document format of the file."""
    servers_key: str = ""
    """The top-level key of the server map."""
    tools_key: str | None = "tools"
    """The entry key of an object holding the tool lists; ``None``: they sit in the entry."""
    include_key: str = "include"
    """The allow-list's key."""
    exclude_key: str = "exclude"
    """The deny-list's key."""
    pin_key: str | None = None
    """The key of the pinned tools' list beside the tool lists; ``None``: the host's format
    has no such field (only agentty's own spelling has)."""
    priority_key: str | None = None
    """The entry key of the server's priority; ``None``: the format has no such field."""
    disabled_key: str = "disabled"
    """The entry key of the disabled flag (absent: the server starts)."""
    disabled_value: bool = True
    """What that key holds for a disabled server."""
    timeouts: tuple[TimeoutKey, ...] = ()
    """How the timeouts are spelled."""
    connection: ConnectionSpelling = ConnectionSpelling(groups=())
    """Which keys carry which parts of the spec (for ``UpdateServer``)."""

    @property
    def timeout_fields(self) -> tuple[str, ...]:
        """Which of ``ServerConfig``'s timeouts the format can hold, so an import can say what
        it could not carry over."""
        return tuple(timeout.field for timeout in self.timeouts if timeout.key is not None)

    def validate(self, value: dict[str, Any], path: str | None) -> PluginConfig:
        """The config a parsed top-level object describes."""
        raise NotImplementedError

    def new_entry(self, spec: ServerSpec) -> Any:
        """A new entry of ``spec`` in the dialect's spelling (``ConfigError`` if it has none)."""
        raise NotImplementedError

    def allow(self, root: Any, name: str, path: str | None, allowed: bool = True) -> None:
        """``AllowServer``: what this dialect's server lists outside the entries need (none)."""

    def plain_entries(self, text: str, path: str | None) -> dict[str, Any]:
        """Each server entry of ``text`` as a plain value (every key, as written), in file
        order: what a host merges or a route moves aside."""
        if not text.strip():
            return {}
        document, _ = self.parse(text, path)
        root = self.format.begin(document, self.servers_key)
        servers = root.get(self.servers_key) or {}
        return {str(name): self.format.plain(servers[name]) for name in servers}

    def set_disabled(
        self, root: Any, servers: Any, name: str, disabled: bool, path: str | None
    ) -> None:
        """Set the disabled flag of an existing server (an entry key, unless overridden)."""
        entry = _writable(self.format, servers, name, path)
        if disabled:
            self.format.put(entry, self.disabled_key, self.disabled_value)
        elif self.disabled_key in entry:
            # Absent means enabled; dropping the key keeps the entry minimal.
            del entry[self.disabled_key]

    def after_add(self, root: Any, name: str, path: str | None) -> None:
        """What else a new server needs in the file (nothing, unless overridden)."""

    # --- the Dialect protocol ---------------------------------------------------------------

    def parse(self, text: str, path: str | None) -> tuple[Any, PluginConfig]:
        """Parse and validate ``text``; whitespace-only text is an empty config."""
        loaded = self.format.load(text, path)
        config = self.validate(loaded.value, path)
        if path is not None and any(s.problem is not None for s in config.servers):
            config = _with_problem_lines(config, text, self.servers_key, path)
        if loaded.warnings:
            config = config.model_copy(update={"warnings": loaded.warnings})
        return loaded.document, config

    def apply(self, document: Any, edit: ConfigEdit, path: str | None) -> Any:
        """A new document with ``edit`` applied; a file that repeats keys is refused."""
        refuse_duplicates(self.format.duplicates(document), path)
        return self.edit(document, edit, path)

    def edit(self, document: Any, edit: ConfigEdit, path: str | None) -> Any:
        """A new document with ``edit`` applied (``document`` is left as it was)."""
        root = self.format.begin(document, self.servers_key)
        _apply(self, root, edit, path)
        return self.format.end(document, root, path)

    def dump(self, document: Any, like: str | None) -> str:
        """The document's text, laid out like ``like``."""
        return self.format.dump(document, like)


def _problem_line(server: ServerConfig, text: str, servers_key: str, path: str) -> int | None:
    """The line of what ``server``'s problem is about, found in plain JSON text: the field
    its message names (``field 'roots[0]'`` is the ``roots`` key), else its entry; ``None``
    where the text is not plain JSON (JSONC, TOML: the server and field are still named) or
    the problem is not an entry's (``raw.server_or_problem`` words those)."""
    prefix = f"{path}: server {server.name!r}"
    if server.problem is None or not server.problem.startswith(prefix):
        return None
    entry = (servers_key, server.entry_name)
    field = re.match(r", field '([^'.\[]+)", server.problem[len(prefix) :])
    try:
        span = value_span(text, (*entry, field[1])) if field else None
        span = span or value_span(text, entry)
    except ValueError:
        return None
    return None if span is None else text.count("\n", 0, span[0]) + 1


def _with_problem_lines(
    config: PluginConfig, text: str, servers_key: str, path: str
) -> PluginConfig:
    """``config`` with the line put in each entry's problem (``file:LINE: server …``), where
    ``_problem_line`` finds one."""
    servers = []
    for server in config.servers:
        line = _problem_line(server, text, servers_key, path)
        if line is not None and server.problem is not None:
            problem = f"{path}:{line}{server.problem[len(path) :]}"
            server = server.model_copy(update={"problem": problem})
        servers.append(server)
    return config.model_copy(update={"servers": tuple(servers)})


def _writable(fmt: Format, servers: Any, name: str, path: str | None) -> Any:
    if not isinstance(servers[name], dict):
        raise ConfigError(fmt.entry_message, path=path, server=name)
    return fmt.writable(servers, name)


def _apply(adapter: Adapter, root: Any, edit: ConfigEdit, path: str | None) -> None:
    """Apply ``edit`` to the tree ``root`` in the adapter's spelling."""
    fmt = adapter.format
    servers = root.get(adapter.servers_key)
    if servers is not None and not isinstance(servers, dict):
        raise ConfigError(fmt.map_message, path=path, field=adapter.servers_key)
    if isinstance(edit, AddServer):
        _add(adapter, root, servers, edit, path)
        return
    if isinstance(edit, AllowServer):
        adapter.allow(root, edit.name, path, edit.allowed)
        return
    if isinstance(edit, RestoreEntry):
        if servers is not None and edit.name in servers:
            raise ConfigError("a server of this name already exists", path=path, server=edit.name)
        fmt.add(root, adapter.servers_key, edit.name, copy.deepcopy(dict(edit.entry)))
        return
    name = edit.name if isinstance(edit, RemoveServer) else edit.server
    if servers is None or name not in servers:
        if isinstance(edit, UpdateServer):
            raise ConfigError("there is no server of this name to update", path=path, server=name)
        raise UnknownServerError(name)
    if isinstance(edit, RemoveServer):
        fmt.remove(servers, name)
    elif isinstance(edit, SetServerDisabled):
        adapter.set_disabled(root, servers, name, edit.disabled, path)
    elif isinstance(edit, SetToolPinned):
        _set_pinned(adapter, _writable(fmt, servers, name, path), edit, path)
    elif isinstance(edit, SetServerPriority):
        _set_priority(adapter, _writable(fmt, servers, name, path), edit, path)
    elif isinstance(edit, UpdateServer):
        try:
            old = adapter.validate(fmt.plain(root), path).server(name)
        except ConfigError:
            old = None
        entry = _writable(fmt, servers, name, path)
        spec = spec_to_write(edit.spec, old)
        new = _new_entry(adapter, spec, name, path)
        update_connection(entry, new, spec, old, adapter.connection, add=fmt.put)
        _put_timeouts(adapter, entry, edit, path)
    else:
        _set_tools(adapter, _writable(fmt, servers, name, path), edit, path)


def _new_entry(adapter: Adapter, spec: ServerSpec, name: str, path: str | None) -> Any:
    try:
        return adapter.new_entry(spec)
    except ConfigError as error:
        raise ConfigError(error.detail, path=path, server=name) from None


def _add(adapter: Adapter, root: Any, servers: Any, edit: AddServer, path: str | None) -> None:
    if not edit.name:
        raise ConfigError("a server name must not be empty", path=path, field=adapter.servers_key)
    if servers is not None and edit.name in servers:
        raise ConfigError("a server of this name already exists", path=path, server=edit.name)
    entry = _new_entry(adapter, edit.spec, edit.name, path)
    _put_timeouts(adapter, entry, edit, path)
    adapter.format.add(root, adapter.servers_key, edit.name, entry)
    adapter.after_add(root, edit.name, path)


def _put_timeouts(
    adapter: Adapter, entry: Any, edit: AddServer | UpdateServer, path: str | None
) -> None:
    """Write the timeouts the edit gives (``None`` leaves a timeout as it is)."""
    name = edit.name if isinstance(edit, AddServer) else edit.server
    spelled = {timeout.field: timeout for timeout in adapter.timeouts}
    for field in ("connect_timeout", "request_timeout"):
        seconds = getattr(edit, field)
        if seconds is None:
            continue
        timeout = spelled.get(field, TimeoutKey(field, None))
        if timeout.key is None:
            missing = timeout.missing or f"the {adapter.name} format cannot hold a {field}"
            raise ConfigError(missing, path=path, server=name, field=timeout.missing_field)
        key, scale = timeout.key, timeout.scale
        if timeout.older is not None and timeout.older in entry and key not in entry:
            key, scale = timeout.older, timeout.older_scale
        adapter.format.put(entry, key, plain_number(seconds * scale))


def _set_pinned(adapter: Adapter, entry: Any, edit: SetToolPinned, path: str | None) -> None:
    """Add the tool to the entry's pin list or take it out; other keys stay."""
    fmt, key, nest, server = adapter.format, adapter.pin_key, adapter.tools_key, edit.server
    if key is None or nest is None:
        raise ConfigError(f"the {adapter.name} format cannot pin tools", path=path, server=server)
    holder = entry.get(nest, {})
    if not isinstance(holder, dict):
        raise ConfigError("must be an object", path=path, server=server, field=nest)
    pins = str_list(fmt.plain(holder).get(key), name=server, field=f"{nest}.{key}", path=path)
    pins = [pin for pin in pins or [] if pin != edit.tool]
    if edit.pinned:
        pins.append(edit.tool)
    fmt.put_list(holder, key, pins or None)
    if holder:
        entry[nest] = holder
    else:
        entry.pop(nest, None)


def _set_priority(adapter: Adapter, entry: Any, edit: SetServerPriority, path: str | None) -> None:
    """Write the entry's priority (0: no key); other keys stay."""
    key = adapter.priority_key
    if key is None:
        raise ConfigError(
            f"the {adapter.name} format has no server priority", path=path, server=edit.server
        )
    if edit.priority:
        adapter.format.put(entry, key, edit.priority)
    elif key in entry:
        adapter.format.remove(entry, key)


def _set_tools(
    adapter: Adapter, entry: Any, edit: SetToolEnabled | SetToolFilter, path: str | None
) -> None:
    """Rewrite the tool lists so that the edit holds; other keys stay."""
    fmt, inc, exc, server = adapter.format, adapter.include_key, adapter.exclude_key, edit.server
    holder, nest = entry, adapter.tools_key
    if adapter.tools_key is not None:
        holder = entry.get(adapter.tools_key, {})
        if not isinstance(holder, dict):
            raise ConfigError(
                "must be an object", path=path, server=server, field=adapter.tools_key
            )
        if isinstance(edit, SetToolEnabled):
            for key in (inc, exc):
                if key in holder and not isinstance(holder[key], list):
                    raise ConfigError(
                        f"'{key}' must be an array",
                        path=path,
                        server=server,
                        field=adapter.tools_key,
                    )
        include, exclude = holder.get(inc), holder.get(exc, [])
    else:
        plain = fmt.plain(holder)
        include = str_list(plain.get(inc), name=server, field=inc, path=path)
        exclude = str_list(plain.get(exc), name=server, field=exc, path=path)
    if isinstance(edit, SetToolEnabled):
        include, exclude = toggle_tool(include, exclude or [], edit.tool, edit.enabled)
    else:
        include = None if edit.include is None else list(edit.include)
        exclude = list(edit.exclude)
    fmt.put_list(holder, inc, include)
    fmt.put_list(holder, exc, exclude or None)
    if nest is None:
        return
    if holder:
        entry[nest] = holder
    else:
        # An empty `tools` object says nothing; leave no litter behind.
        entry.pop(nest, None)
