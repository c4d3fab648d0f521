"""The plugin model: frozen values that are the single source of truth.

Everything here is immutable and free of I/O. What the config says (specs, entries, filters)
is in :mod:`agentty_tui.specs` and re-exported here; this module adds what the servers say and
the model built from both. The bridge owns the current ``PluginModel`` and publishes a new one
whenever the config changes or a server re-lists its tools; every reader (the picker, the
catalog, the command line) only ever sees whole snapshots.

``enabled`` is derived here, once, from the config's tool filter (``derive_tools``); no
consumer recomputes it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import count
from operator import attrgetter
from typing import Any, Literal, Self

from pydantic import Field, field_validator

from agentty_tui.errors import UnknownServerError
from agentty_tui.frozen import Frozen, FrozenJson
from agentty_tui.specs import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_MAX_RESPONSE_BYTES,
    DEFAULT_REQUEST_TIMEOUT,
    DEFAULT_TOOL_BUDGET,
    EntryFact,
    HostView,
    HttpSpec,
    NativeTool,
    OAuthSettings,
    PluginConfig,
    Scope,
    ServerConfig,
    ServerSpec,
    SourceRef,
    SpecField,
    StdioSpec,
    ToolFilter,
    hosts_in_use,
)

__all__ = [
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_MAX_RESPONSE_BYTES",
    "DEFAULT_REQUEST_TIMEOUT",
    "DEFAULT_TOOL_BUDGET",
    "AdvertisedTool",
    "AuthState",
    "DroppedTool",
    "EntryFact",
    "Frozen",
    "HostView",
    "HttpSpec",
    "NativeTool",
    "OAuthSettings",
    "PluginConfig",
    "PluginModel",
    "Scope",
    "ServerConfig",
    "ServerInfo",
    "ServerSpec",
    "ServerState",
    "ServerStatus",
    "SourceRef",
    "StdioSpec",
    "ToolFilter",
    "ToolHints",
    "ToolState",
    "derive_tools",
    "hosts_in_use",
    "next_revision",
]

# --- what the servers say ---------------------------------------------------------------


class ToolHints(Frozen):
    """A tool's annotations as its server sent them: hints, never guarantees (the server is
    not trusted to tell the truth about its own tools). ``None``: the server did not say."""

    title: str | None = None
    """The annotations' display name (``annotations.title``)."""
    read_only: bool | None = None
    """``readOnlyHint``: the tool changes nothing."""
    destructive: bool | None = None
    """``destructiveHint``: what it changes may be lost (only meaningful when not read-only)."""
    idempotent: bool | None = None
    """``idempotentHint``: calling it again with the same arguments changes nothing more."""
    open_world: bool | None = None
    """``openWorldHint``: it reaches outside entities (the web, other people's systems)."""

    @property
    def given(self) -> bool:
        """Whether the server said anything at all."""
        return any(
            value is not None
            for value in (
                self.title,
                self.read_only,
                self.destructive,
                self.idempotent,
                self.open_world,
            )
        )


class AdvertisedTool(Frozen):
    """A tool exactly as a live server advertised it in ``tools/list``."""

    name: str
    """The bare name, as advertised."""
    title: str | None = None
    """Human display name, when the server gives one."""
    description: str | None = None
    """What the tool does."""
    input_schema: FrozenJson = Field(
        default_factory=lambda: {"type": "object"}, validate_default=True
    )
    """JSON Schema of the arguments, passed through untouched."""
    needs_tasks: bool = False
    """The server runs it only as a task (``execution.taskSupport: "required"``): every call
    of a client without task support fails, so it is kept off the wire."""
    hints: ToolHints | None = None
    """Its annotations (untrusted hints); ``None`` when it has none."""
    output_schema: FrozenJson | None = None
    """JSON Schema its structured content should match, untouched; ``None``: none given."""


class DroppedTool(Frozen):
    """An advertised tool that breaks the MCP rules, left out of the model, and why."""

    name: str
    """The name as advertised (possibly the very thing that is wrong)."""
    reason: str
    """What is wrong with it, in plain words."""


class ServerInfo(Frozen):
    """Who answered: the server's self-description and the negotiated protocol."""

    name: str | None = None
    """The server implementation's name."""
    version: str | None = None
    """The server implementation's version."""
    protocol_version: str | None = None
    """The protocol revision negotiated with it."""


# --- the model -----------------------------------------------------------------------


class AuthState(Frozen):
    """Whether a URL server's OAuth login is in place (never the tokens themselves)."""

    logged_in: bool = False
    """Tokens are stored for the server."""
    scopes: tuple[str, ...] = ()
    """The scopes granted, as the authorization server reported them."""
    expires_at: float | None = None
    """When the access token expires (Unix time); a refresh token may outlive it."""


ServerStatus = Literal[
    "connecting", "connected", "failed", "needs_login", "disabled", "untrusted", "shadowed"
]
"""Life cycle of one server as the user sees it; ``needs_login``: it asks for an OAuth login;
``untrusted``: not started because its file is not trusted yet (``PluginConfig.insecure``, or a
project file's entry, ``ServerConfig.untrusted``); ``shadowed``: an entry hidden by one of the
same name in a file that takes precedence (``PluginModel.shadowed``), never started."""


class ToolState(Frozen):
    """One advertised tool with its config-derived ``enabled`` flag."""

    bare: str
    """Name as advertised by the live server."""
    enabled: bool
    """Derived once from the config's include / exclude lists."""
    title: str | None = None
    """Advertised display name."""
    description: str | None = None
    """Advertised description."""
    input_schema: FrozenJson = Field(
        default_factory=lambda: {"type": "object"}, validate_default=True
    )
    """Advertised JSON Schema, untouched."""
    needs_tasks: bool = False
    """Only callable as a task (``execution.taskSupport: "required"``): kept off the wire,
    since a call without task support fails."""
    hints: ToolHints | None = None
    """Its annotations as the server sent them (untrusted hints); ``None``: none."""
    output_schema: FrozenJson | None = None
    """The advertised JSON Schema of its structured content, untouched; ``None``: none."""
    pinned: bool = False
    """Pinned by the config (``tools.pin``): trimmed only after every tool that is not."""

    @property
    def label(self) -> str:
        """A one-line human label: the title, else the first line of the description."""
        if self.title:
            return self.title
        return (self.description or "").strip().split("\n", 1)[0]


_REVISIONS = count(1)


def next_revision() -> int:
    """A server-state revision never handed out before in this process (thread-safe)."""
    return next(_REVISIONS)


class ServerState(Frozen):
    """One configured server: its config, its live status and the tools it advertises.

    Identity is the pair ``(name, revision)`` (docs/ARCHITECTURE.md §3): two states of a server
    with the same revision say the same thing, so a cache keyed on the pair never needs to look
    inside. A state built afresh, or copied with changes, gets a new revision; only the one who
    keeps the previous object (the bridge, for a server whose state did not change) keeps it.
    """

    name: str
    """Config key."""
    spec: SpecField | None = None
    """How the server is reached (from config); ``None`` for an invalid config entry."""
    status: ServerStatus
    """``connecting``, ``connected``, ``failed``, ``needs_login``, ``disabled``, ``untrusted``
    or ``shadowed``."""
    error: str | None = None
    """Why the server is not connected, in words a user can act on."""
    info: ServerInfo | None = None
    """What the server said about itself once connected."""
    tools: tuple[ToolState, ...] = ()
    """Advertised tools in advertised order, each with its enabled flag."""
    dropped_tools: tuple[DroppedTool, ...] = ()
    """Advertised tools that break the MCP rules and were left out, each with the reason."""
    pid: int | None = None
    """Process id of a stdio server while it runs (diagnostics; never shown in snapshots)."""
    warnings: tuple[str, ...] = ()
    """What the user should know about a server that otherwise works (its log cannot be
    written, it announces changes without pause, its tool list never ended), a line each."""
    auth: AuthState | None = None
    """A URL server's OAuth login state; ``None`` for stdio servers."""
    log_path: str | None = None
    """The file its stderr and our notes about it go to, while it has a session."""
    source: SourceRef | None = None
    """The workspace file its entry is in (``ServerConfig.source``); ``None`` for one file."""
    entry: str | None = None
    """The name of its entry in its files where that is not ``name`` (``ServerConfig.entry``:
    ``time`` for ``time@codex``); ``None``: the same."""
    also_in: tuple[SourceRef, ...] = ()
    """Other workspace files with the same server and connection (``ServerConfig.also_in``)."""
    hosts: tuple[HostView, ...] = ()
    """What each host holding the server does with it (``ServerConfig.hosts``); empty for one
    file."""
    shadowed_by: SourceRef | None = None
    """For a ``shadowed`` entry: the file whose entry of the same name wins."""
    trust_facts: tuple[EntryFact, ...] = ()
    """For a server that waits for trust: what trusting it runs or sends
    (``ServerConfig.trust_facts``)."""
    priority: int = 0
    """The config's ``priority`` (``ServerConfig.priority``): servers of a higher one come
    first on the wire; above 0, every tool of the server is pinned."""
    pins_kept_in: str | None = None
    """The pin store that keeps its pins, its file being a host's (``ServerConfig.
    pins_kept_in``); ``None``: its own file holds them."""
    revision: int = Field(default_factory=next_revision)
    """Which state of this server this is: new whenever anything above changes, the same for
    as long as nothing does (``same_as``), so caches key on ``(name, revision)``. Unique within
    the process, and later states of a server have larger ones."""

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy; one with changes (``update``) is a new state and gets a new revision."""
        if update and "revision" not in update:
            update = {**update, "revision": next_revision()}
        return super().model_copy(update=update, deep=deep)

    def same_as(self, other: ServerState) -> bool:
        """Whether ``other`` says exactly what this state says, whatever the two revisions."""
        mine, theirs = self.__dict__, other.__dict__
        # Identity first: an unchanged tool list is the same tuple, and compares in no time.
        return all(
            value is theirs[key] or value == theirs[key]
            for key, value in mine.items()
            if key != "revision"
        )

    @property
    def enabled_count(self) -> int:
        """How many of this server's tools are on."""
        # A count over C-level iteration: the status bar asks for it on every snapshot.
        return list(map(_ENABLED, self.tools)).count(True)

    def tool(self, bare: str) -> ToolState | None:
        """The tool advertised under ``bare``, if any."""
        for tool in self.tools:
            if tool.bare == bare:
                return tool
        return None


_ENABLED = attrgetter("enabled")


class PluginModel(Frozen):
    """The whole plugin state at one instant. Replaced, never changed."""

    servers: tuple[ServerState, ...] = ()
    """Every configured server, in config order."""
    tool_budget: int = DEFAULT_TOOL_BUDGET
    """How many tools may go on the wire."""
    tool_token_budget: int | None = None
    """How many tokens the shipped tools' definitions may take; ``None``: no token budget."""
    native_tools: tuple[NativeTool, ...] = ()
    """The host's own tools, which always ship."""
    config_path: str | None = None
    """The file this model was built from."""
    config_error: str | None = None
    """Why the config could not be (re)loaded; the servers shown are from the last good load."""
    config_warnings: tuple[str, ...] = ()
    """The config's ``PluginConfig.warnings`` (e.g. duplicate keys), one line each."""
    config_untrusted: str | None = None
    """The config's ``PluginConfig.insecure`` while the user has not trusted the file: its
    stdio servers are ``untrusted`` (not started) until then."""
    shadowed: tuple[ServerState, ...] = ()
    """A workspace's entries hidden by one of the same name in a file that takes precedence,
    each ``shadowed`` (``ServerState.shadowed_by`` names the winner's file); never started."""
    revision: int = 0
    """Increases with every published snapshot; lets readers tell two snapshots apart cheaply."""
    reading: tuple[str, ...] = ()
    """The workspace's files still being read when this model was made (a large
    ``~/.claude.json``, as the picker's first frame is shown before it is parsed:
    ``bridge/starting.py``), each as a line that says so; their servers are not in ``servers``
    yet. Empty once every file is read, and in every snapshot of a bridge."""

    @field_validator("servers")
    @classmethod
    def _names_are_unique(cls, servers: tuple[ServerState, ...]) -> tuple[ServerState, ...]:
        # A server is known by its config key everywhere (tool identities, wire names, edits).
        names = [server.name for server in servers]
        if len(set(names)) != len(names):
            twice = sorted({name for name in names if names.count(name) > 1})
            raise ValueError(f"server names must be unique; repeated: {', '.join(twice)}")
        return servers

    def server(self, name: str) -> ServerState | None:
        """The server called ``name``, if configured."""
        for server in self.servers:
            if server.name == name:
                return server
        return None

    def require_server(self, name: str) -> ServerState:
        """The server called ``name``; ``UnknownServerError`` (naming the closest configured
        name) when there is none."""
        server = self.server(name)
        if server is None:
            raise UnknownServerError(name, [known.name for known in self.servers])
        return server

    @property
    def settled(self) -> bool:
        """True when no server is still connecting."""
        return all(server.status != "connecting" for server in self.servers)


def derive_tools(advertised: Sequence[AdvertisedTool], rule: ToolFilter) -> tuple[ToolState, ...]:
    """Attach the config-derived ``enabled`` flag to each advertised tool, keeping their order."""
    return tuple(
        ToolState.model_construct(
            bare=tool.name,
            enabled=rule.allows(tool.name),
            title=tool.title,
            description=tool.description,
            input_schema=tool.input_schema,
            needs_tasks=tool.needs_tasks,
            hints=tool.hints,
            output_schema=tool.output_schema,
            pinned=tool.name in rule.pin,
        )
        for tool in advertised
    )
