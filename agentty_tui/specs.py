"""The config's side of the model: how to reach each server, and what it lets through.

Frozen values validated once, when a config file is read (``agentty_tui.config`` builds them);
``agentty_tui.model`` re-exports every name, and builds the live model on top of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

from pydantic import Field

from agentty_tui.frozen import Frozen, FrozenJson, FrozenStrMap

__all__ = [
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_MAX_RESPONSE_BYTES",
    "DEFAULT_REQUEST_TIMEOUT",
    "DEFAULT_TOOL_BUDGET",
    "EntryFact",
    "HostView",
    "HttpSpec",
    "NativeTool",
    "OAuthSettings",
    "PluginConfig",
    "Scope",
    "ServerConfig",
    "ServerSpec",
    "SourceRef",
    "SpecField",
    "StdioSpec",
    "ToolFilter",
    "hosts_in_use",
]

DEFAULT_TOOL_BUDGET = 128
"""OpenAI and Copilot reject requests that carry more than 128 tools."""

DEFAULT_CONNECT_TIMEOUT = 30.0
"""Seconds from spawn (or first HTTP request) until the server's tools are listed."""

DEFAULT_REQUEST_TIMEOUT = 60.0
"""Seconds any single request (tools/list, tools/call) may take before it fails."""

DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024
"""The largest HTTP response body (or server-sent event) a URL server may send."""


class StdioSpec(Frozen):
    """A server started as a subprocess that speaks MCP over its stdin and stdout."""

    kind: Literal["stdio"] = "stdio"
    """Discriminator: always ``"stdio"``."""
    command: str = Field(min_length=1)
    """The executable, looked up on PATH; never run through a shell."""
    args: tuple[str, ...] = ()
    """Arguments, passed verbatim."""
    env: FrozenStrMap = Field(default_factory=dict, validate_default=True)
    """Environment variables added to the child's minimal inherited environment."""
    cwd: str | None = None
    """Working directory of the child; the app's own when absent."""


class OAuthSettings(Frozen):
    """How to log in to a URL server that wants OAuth (the entry's ``oauth`` object)."""

    client_id: str | None = None
    """A client registered with the authorization server beforehand (else DCR is used)."""
    client_secret: str | None = None
    """That client's secret, if it has one; may be a ``${VAR}`` reference."""
    scopes: tuple[str, ...] | None = None
    """Scopes to ask for; by default those the server's challenge or metadata names."""
    callback_port: int | None = Field(default=None, ge=1, le=65535)
    """Fixed loopback port for the redirect (a pre-registered redirect URI); else a free one."""
    client_metadata_url: str | None = None
    """An HTTPS URL of a Client ID Metadata Document, used where the server supports it."""


class HttpSpec(Frozen):
    """A remote server reached over Streamable HTTP (or legacy SSE)."""

    kind: Literal["http"] = "http"
    """Discriminator: always ``"http"``."""
    url: str = Field(min_length=1)
    """The endpoint, e.g. ``http://127.0.0.1:8000/mcp``."""
    headers: FrozenStrMap = Field(default_factory=dict, validate_default=True)
    """HTTP headers sent with every request (often ``Authorization``)."""
    transport: Literal["streamable-http", "sse"] = "streamable-http"
    """Which HTTP transport the server speaks."""
    oauth: OAuthSettings | None = None
    """OAuth login settings from the config; ``None`` means discover everything."""


ServerSpec = StdioSpec | HttpSpec
"""How to reach a server. Two servers with equal specs are the same process to run."""

SpecField = Annotated[ServerSpec, Field(discriminator="kind")]
"""A ``ServerSpec`` as a model field, told apart by its ``kind``."""


class ToolFilter(Frozen):
    """Which of a server's tools the config lets through."""

    include: tuple[str, ...] | None = None
    """Allow-list: when given, only these tools are on (a newly revealed tool starts off)."""
    exclude: tuple[str, ...] = ()
    """Deny-list: these tools are off."""
    pin: tuple[str, ...] = ()
    """Pinned tools: trimmed only after every tool that is not (agentty's own files hold
    such a list; agentty's pin store holds it for a host's file, ``config.pins``)."""

    def allows(self, bare: str) -> bool:
        """Whether a tool of this bare name is enabled under this filter."""
        if bare in self.exclude:
            return False
        return self.include is None or bare in self.include

    def either(self, other: ToolFilter) -> ToolFilter:
        """The filter that lets through exactly the tools this one or ``other`` lets through
        (what several hosts send together)."""
        pin = tuple(dict.fromkeys([*self.pin, *other.pin]))  # pinned by any of them
        if self.include is None and other.include is None:
            excluded = tuple(t for t in self.exclude if t in other.exclude)
            return ToolFilter(exclude=excluded, pin=pin)
        if self.include is not None and other.include is not None:
            mine = [t for t in self.include if t not in self.exclude]
            theirs = [t for t in other.include if t not in other.exclude]
            return ToolFilter(include=tuple(dict.fromkeys([*mine, *theirs])), pin=pin)
        listed, open_ = (self, other) if self.include is not None else (other, self)
        assert listed.include is not None
        kept = {t for t in listed.include if t not in listed.exclude}
        return ToolFilter(exclude=tuple(t for t in open_.exclude if t not in kept), pin=pin)


Scope = Literal["user", "project", "local"]
"""Where a config file applies: to every project of the user, to one project for everyone who
checks it out (the file is in the repository), or to one project for this user alone."""


class SourceRef(Frozen):
    """One config file of a workspace, as a server entry names where it came from."""

    path: str
    """The file, as the workspace found it (``~`` expanded, links not resolved)."""
    scope: Scope
    """``user``, ``project`` or ``local``."""
    host: str
    """Whose file it is: ``agentty`` (ours), ``claude``, ``claude-desktop``, ``cursor``,
    ``gemini``, ``codex`` or ``vscode``."""
    plugin: str | None = None
    """For a Claude Code plugin's file: the plugin (``<plugin>@<marketplace>``), whose
    ``enabledPlugins`` setting of ``scope`` turns it on; for a Gemini CLI extension's
    ``gemini-extension.json``: the extension's name. Such a file is read, never written
    (``claude plugin``, ``gemini extensions`` manage it). ``None`` for every other file."""
    admin: str | None = None
    """For a file the machine's administrator keeps, what it is: ``managed`` (Claude Code's
    ``/etc/claude-code/managed-mcp.json``), ``system`` or ``system defaults`` (Gemini CLI's
    ``/etc/gemini-cli/settings.json`` and ``system-defaults.json``). Such a file is read, never
    written. ``None`` for every other file."""

    @property
    def label(self) -> str:
        """How a row names it: ``claude · local``, ``codex · user``, ``project .mcp.json``,
        ``claude · plugin tp@market (user)``, ``gemini · extension ext (user)``,
        ``claude · managed``, ``gemini · system``."""
        if self.plugin is not None and self.host == "gemini":
            return f"{self.host} · extension {self.plugin} ({self.scope})"
        if self.plugin is not None:
            return f"{self.host} · plugin {self.plugin} ({self.scope})"
        if self.admin is not None:
            return f"{self.host} · {self.admin}"
        if self.scope == "project" and self.host == "claude":
            return "project .mcp.json"
        return f"{self.host} · {self.scope}"


class HostView(Frozen):
    """What one host does with its entry of a server: whether it starts it, which tools it
    sends its model, and where the switches it obeys are written (``config/hosts/switches``)."""

    source: SourceRef
    """The host's file holding the entry (its ``host`` names the host)."""
    tools: ToolFilter = ToolFilter()
    """The tools this host sends, as the switches it obeys say (every tool for a host that
    has no tool switch in its files)."""
    off: bool = False
    """This host does not start the server."""
    tool_switch: str | None = None
    """Where a tool switch of this host is written, as a row says it
    (``tools.exclude in ~/.config/agentty/mcp.json``); ``None``: its files have none."""
    server_switch: str | None = None
    """Where a server switch of this host is written; ``None``: its files have none."""
    off_by: str | None = None
    """What keeps the server off for this host when ``off`` (``disabledMcpServers in
    ~/.claude.json``), or ``None``."""
    approved: bool | None = None
    """For a host that asks before it starts a project's server (Claude Code, a ``.mcp.json``
    entry): whether the user approved this one; ``None`` where the host asks nothing."""
    routed: bool = False
    """The host reaches this entry through agentty's gateway (``agentty-tui connect``): the
    host runs the gateway in its place, and the gateway obeys these switches for it."""

    def sends(self, bare: str) -> bool:
        """Whether this host sends its model the tool ``bare`` of a connected server."""
        return not self.off and self.tools.allows(bare)


def hosts_in_use(views: Sequence[HostView]) -> tuple[HostView, ...]:
    """Of ``views`` (a server's ``hosts``, in precedence order), the one each host runs: its
    first, by its own precedence (Claude Code's local entry over its user one). A switch goes
    to that entry, and that entry says what the host's model gets."""
    seen: set[str] = set()
    found = []
    for view in views:
        if view.source.host not in seen:
            seen.add(view.source.host)
            found.append(view)
    return tuple(found)


class EntryFact(Frozen):
    """One labelled fact about what an entry runs or sends, as it may be shown (secrets
    masked; not yet made safe for a terminal): what a trust prompt lists
    (``config.entry_facts``)."""

    label: str
    """What it is: ``runs``, ``resolves``, ``cwd``, ``env``, ``envFile``, ``url``, ``header``."""
    value: str
    """The fact, masked: ``npx -y pkg``, ``PATH=.bin:/usr/bin``, ``API_KEY=••••``."""
    alert: str | None = None
    """Why this fact deserves a second look (``inside the project folder``), or ``None``."""


class ServerConfig(Frozen):
    """One server entry of the config, validated."""

    name: str
    """The config key; unique within a config. In a workspace where two hosts run servers of
    one name with different connections, the second is ``<name>@<host>`` (see ``entry``)."""
    entry: str | None = None
    """The name of the server's entry in its files, where the workspace had to call it
    otherwise (``time`` for ``time@codex``); ``None``: the same as ``name``."""
    spec: SpecField | None = None
    """How to reach the server; ``None`` when the entry is invalid (see ``problem``)."""
    problem: str | None = None
    """Why the entry could not be used (file, server and field named); it is never started."""
    disabled: bool = False
    """Kept in the config but not started."""
    tools: ToolFilter = ToolFilter()
    """Which tools are on (and which are pinned)."""
    priority: int = 0
    """Where the server's tools rank on the wire: a higher priority first (config order among
    equals); above 0 every tool of the server is pinned (agentty's own files hold it; the pin
    store, ``pins_kept_in``, holds it for the others)."""
    pins_kept_in: str | None = None
    """The pin store that keeps this server's pins (``tools.pin``, ``priority``), its file being
    a host's that cannot hold them (``config.pins``); ``None``: its own file holds them."""
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    """Seconds until the server must have listed its tools."""
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT
    """Seconds any one request may take."""
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    """The largest HTTP response body (or server-sent event) a URL server may send."""
    roots: tuple[str, ...] | None = None
    """The roots offered to the server when it asks (``roots/list``), as absolute ``file://``
    URIs (the entry's ``roots``, relative paths taken against its file's folder); ``None``:
    the project's root. Not part of the connection: a change is announced to the running
    server (``notifications/roots/list_changed``), never a restart."""
    env_file: str | None = None
    """The file some of the spec's ``env`` was read from (VS Code's ``envFile``), if any."""
    env_file_keys: tuple[str, ...] = ()
    """The ``env`` names whose values came from ``env_file`` (the entry's own ``env`` wins)."""
    source: SourceRef | None = None
    """The workspace file that holds the entry, where every edit of it goes; ``None`` for a
    config read from one file (``--config``)."""
    also_in: tuple[SourceRef, ...] = ()
    """Other workspace files holding the same server with the same connection: it is started
    once, and shown once with every source."""
    hosts: tuple[HostView, ...] = ()
    """In a workspace, what each file holding the server (``source``, then ``also_in``) has its
    host do with it; ``tools`` and ``disabled`` are then what the hosts do together: a tool
    is on while any host sends it, the server off only when every host leaves it off.
    Empty for one file (``--config``): its own ``tools`` and ``disabled`` say it all."""
    shadowed_by: SourceRef | None = None
    """For an entry of ``PluginConfig.shadowed``: the file whose entry of the same name wins."""
    untrusted: str | None = None
    """Why the entry waits for the user's trust before it starts (a project file's server not
    trusted yet, or a file others can write), as a line that says how to trust it."""
    trust_facts: tuple[EntryFact, ...] = ()
    """For an entry that waits for trust: everything that decides what trusting it runs or
    sends (``config.entry_facts``), as the workspace found it when it loaded the entry."""

    @property
    def entry_name(self) -> str:
        """The name of the server's entry in its files (``entry``, else ``name``)."""
        return self.entry if self.entry is not None else self.name

    def connection_key(self) -> tuple[object, ...]:
        """What a running session depends on: when it changes, a reload re-spawns the server."""
        return (self.spec, self.connect_timeout, self.request_timeout, self.max_response_bytes)


class NativeTool(Frozen):
    """A tool of the host itself, which always ships on the wire before any MCP tool."""

    name: str
    """Wire name, already provider-safe."""
    description: str = ""
    """What the model reads about the tool."""
    input_schema: FrozenJson = Field(
        default_factory=lambda: {"type": "object"}, validate_default=True
    )
    """JSON Schema of the arguments."""


class PluginConfig(Frozen):
    """A whole config file, validated: the servers in file order plus the catalog settings."""

    servers: tuple[ServerConfig, ...] = ()
    """Server entries in the order the file lists them (that order is also wire priority)."""
    tool_budget: int = Field(default=DEFAULT_TOOL_BUDGET, ge=0)
    """How many tools (native + MCP) may go on the wire."""
    tool_token_budget: int | None = Field(default=None, ge=0)
    """How many tokens the shipped tools' definitions may take (``toolTokenBudget``);
    ``None``: no token budget."""
    native_tools: tuple[NativeTool, ...] | None = None
    """The host's own tools; ``None`` means the built-in default list."""
    warnings: tuple[str, ...] = ()
    """What is wrong with the file but did not stop it loading (a key given twice), one line
    each, naming the file and the line."""
    insecure: str | None = None
    """Why the file is not trusted to say which commands run as the user (others can write it,
    or it belongs to another user), as a line that names the file and the fix; ``None`` for a
    file only the user (or root) controls. Its stdio servers wait until the user trusts it."""

    shadowed: tuple[ServerConfig, ...] = ()
    """Entries of a workspace hidden by an entry of the same name in a file that takes
    precedence (local over project over user), each with ``shadowed_by``; never started."""

    def server(self, name: str) -> ServerConfig | None:
        """The entry called ``name``, if any."""
        for server in self.servers:
            if server.name == name:
                return server
        return None
