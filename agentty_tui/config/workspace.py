"""A workspace: every config file of a project and its user, read as one config.

``Workspace`` is the one shape of config the bridge and the commands work on: ``load`` gives
one ``PluginConfig`` (layered by ``layer``), ``apply`` writes an edit, ``version`` tells
whether any file changed. A config file named on the command line (``--config``) is a
workspace of that one source (``Workspace.of_file``), read as the file says: not layered, a
file that does not parse is an error rather than kept as last read, and a file others can
write is trusted or not as a whole (``PluginConfig.insecure``).

Behind a workspace is one ``ConfigStore`` per source, so each file keeps every guarantee of
the store (lock, re-read, atomic replace, its own dialect and layout), and each
edit goes to the one file that owns the entry it changes (``ServerConfig.source``).

- A file that stops parsing keeps its servers as last read (a half-saved edit in the user's
  editor must not stop them), with a warning that names the file and the problem; so does a
  file that held text and is blank now (``ConfigStore.load``: a non-atomic writer's truncate).
- A project file's entries wait for the user's trust (``trust.TrustBook``); so do the
  stdio entries of a file other users can write (``trust.file_trust_problem``).
- Each entry carries what its host does with it (``ServerConfig.hosts``, from
  ``hosts/switches``): a switch is written for every host holding the server, where that host
  reads it (Claude Code's settings for its entries), and the host's own trust: a project
  entry Codex does not read (its project not trusted), or any entry of Gemini CLI in a folder
  it does not trust, is off for that host, saying why; the ``tools`` and ``disabled`` keys our
  earlier versions wrote into Claude Code's entries are moved to its own switches at the
  first load that finds them, with a warning line saying so.
- A pin (``tools.pin``, ``priority``) of a server whose file cannot hold one (every host's
  file: only agentty's own spell it) is kept in agentty's pin store (``config.pins``), keyed by
  the file and the entry's name, and read into the config as a file's own pins are; the host's
  file is never written for a pin, and removing the server drops its record.
- The servers of the plugins Claude Code turns on (``hosts/claude/plugins``) are entries of
  host ``claude`` too, after every file's; their files are read, never written.
- So are the files a machine's administrator keeps (``SourceRef.admin``), each where its host
  ranks it: Claude Code's ``managed-mcp.json`` (``hosts/claude/managed``) before its other
  files, and while it has exclusive control every other entry of Claude Code's is off and none
  is added or turned on (``claude_lockdown``); Gemini CLI's system settings before its other
  files and its system defaults after them (``hosts/gemini_system``), read only when they pass
  its security check.

Layering, one config out of a workspace's files (precedence, shadowing, de-duplication):
``layer`` takes each source's config in precedence order (local, project, user: the order of
``sources.workspace_sources``) and gives the one config the bridge runs. No host reads another
host's files, so precedence and shadowing exist only inside one host:

- each host runs its first entry of a name (Claude Code: local over ``.mcp.json`` over user;
  Gemini CLI and Codex: project over user); every entry is stamped with the file it came from
  (``ServerConfig.source``), which is where its edits go;
- a host's later entry of that name with the same connection (``connection_key``) is the same
  process, listed in ``also_in``; with another connection it is shadowed: listed in
  ``PluginConfig.shadowed`` with ``shadowed_by`` (the host's entry that wins) and never started;
- another host's entry of the name with the same connection is the same server written into
  several hosts' files: started once, every file in ``also_in``, trusted if any copy is (the
  user already runs it);
- another host's entry of the name with another connection is a server of its own, which that
  host runs: keyed ``name@host`` (``ServerConfig.entry`` keeps ``name``, which its edits, its
  trust and Claude Code's switches use).

The catalog settings (tool budget, native tools) come from our own user file alone; warnings
come from every file.

The files a new server may be added to (``add_targets``, for the picker's add form): our
user file is the default (``Workspace.add_to``) and always offered, as are the project's
``.mcp.json`` and Claude Code's local scope (this project, this user) whether or not the files
exist yet: adding creates them. Another host's file is offered only once it exists and reads
without a problem: creating a host's file from nothing, or writing one that does not parse, is
not what a user adding a server means.

Opening the workspace of the folder the user is in:
``open_workspace(cwd, home=..., env=...)`` finds the project root, reads which hosts to read
(``--hosts``, else the ``hosts`` setting of our user file, else all) and lists the sources.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentty_tui.config.announce import one_announcement
from agentty_tui.config.detect import dialect_by_name
from agentty_tui.config.dialect import Dialect
from agentty_tui.config.documents.formats import parses_shared
from agentty_tui.config.engine import (
    Adapter,
    AddServer,
    AllowServer,
    ConfigEdit,
    RemoveServer,
    RestoreEntry,
    SetServerDisabled,
    SetServerPriority,
    SetToolEnabled,
    SetToolPinned,
)
from agentty_tui.config.entry_rules import entry_facts
from agentty_tui.config.files import FileVersion, read_text
from agentty_tui.config.hosts.claude import ClaudeLocalDialect
from agentty_tui.config.hosts.claude.entries import ClaudeCodeDialect
from agentty_tui.config.hosts.switches import (
    HOST_NAMES,
    NO_SWITCH,
    entry_view,
    no_switch,
    no_switch_view,
    switch_claude,
    untrusted_view,
)
from agentty_tui.config.pins import (
    DropPins,
    PinBook,
    PinEdit,
    PinPlace,
    PinServer,
    PinStore,
    PinTool,
    holds_pins,
)
from agentty_tui.config.routing import routed_sources, routed_view, without_gateway
from agentty_tui.config.sources import (
    HOSTS,
    SourceFile,
    find_project_root,
    our_user_file,
    workspace_sources,
)
from agentty_tui.config.store import ConfigStore
from agentty_tui.config.trust import ProjectTrust, TrustBook, default_trust_file
from agentty_tui.errors import ConfigError, OperationError, UnknownServerError
from agentty_tui.specs import (
    EntryFact,
    HostView,
    PluginConfig,
    ServerConfig,
    SourceRef,
    StdioSpec,
    hosts_in_use,
)

if TYPE_CHECKING:
    # The hosts' own rules and files, imported where a workspace of several files reads them
    # (``load``, ``open_workspace``): the one file of ``--config`` needs none of them.
    from agentty_tui.config.hosts.claude.managed import ManagedServers
    from agentty_tui.config.hosts.claude.switches import ClaudeFiles, ClaudeSwitches
    from agentty_tui.config.hosts.gemini_system import GeminiSystem
    from agentty_tui.config.hosts.gemini_trust import GeminiSettings

__all__ = [
    "Layer",
    "SourceReport",
    "Workspace",
    "add_targets",
    "hosts_setting",
    "layer",
    "open_workspace",
    "parse_hosts",
    "source_dialect",
    "trust_prompt",
]


def trust_prompt(server: ServerConfig) -> str:
    """The line an untrusted project entry shows: that it waits, and how to trust it (what
    trusting it runs or sends is its ``trust_facts``, shown under this line)."""
    return f"not trusted — T to trust, or agentty-tui trust {shlex.quote(server.name)}"


@dataclass(frozen=True, slots=True)
class SourceReport:
    """One source file as the last ``load`` found it (for ``agentty-tui sources``)."""

    source: SourceFile
    """The file, its scope, host and dialect."""
    exists: bool
    """Whether the file is there."""
    servers: int
    """How many servers it holds (as last read, for a file that no longer parses)."""
    problem: str | None = None
    """Why it could not be read this time, or ``None``."""


def source_dialect(source: SourceFile, root: Path) -> Dialect:
    """The dialect a workspace reads and writes ``source`` in (of the project at ``root``)."""
    if source.dialect == "claude-local":
        return ClaudeLocalDialect(str(root))
    if source.ref.host == "claude":
        return ClaudeCodeDialect()  # entries written as ``claude mcp add`` writes them
    return dialect_by_name(source.dialect)


class Workspace:
    """The config files of one project and its user, read and edited as one config."""

    def __init__(
        self,
        sources: Sequence[SourceFile],
        *,
        root: Path,
        trust: TrustBook | None,
        add_to: SourceRef,
        claude: ClaudeFiles | None = None,
        routed: Mapping[SourceRef, Path] | None = None,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
        pins: PinStore | None = None,
    ) -> None:
        """``sources`` in precedence order (``sources.workspace_sources``); ``root``: the
        project; ``trust``: the user's trust book (``None`` for one file named by the user,
        which is trusted or not as a whole); ``add_to``: where a new server goes unless the
        caller names a file (our user file); ``claude``: where Claude Code keeps its switches
        for this project (``None`` when its files are not read); ``routed``: the sources that
        are a connected host's stash, each with the host's own file; ``cwd``: the folder the user
        is in (default: ``root``); ``env``: the environment the hosts' own rules read (Gemini
        CLI's ``GEMINI_CLI_TRUST_WORKSPACE``, ...); ``pins``: where agentty keeps the pins of
        the servers of files that cannot hold them (``config.pins``; ``None``: such a server
        cannot be pinned)."""
        self.sources = tuple(sources)
        """Every source considered, present or not, in precedence order."""
        self.root = root
        """The project's root folder (for one file: its folder)."""
        self.cwd = root if cwd is None else cwd
        """The folder the user is in (a host may judge it, not the root: Gemini CLI does)."""
        self._env: Mapping[str, str] = {} if env is None else env
        self.path = root if trust is not None else Path(self.sources[0].path)
        """What log names and messages call this config: the project root, or the one file."""
        self.add_to = add_to
        """The file a new server goes to by default."""
        self.claude = claude
        """Where Claude Code keeps the switches it obeys for this project, or ``None``."""
        self.routed: Mapping[SourceRef, Path] = routed or {}
        """The sources that are a connected host's stash, read in place of its user file
        (``routing.routed_sources``), each with that file."""
        self._claude_switches: ClaudeSwitches | None = None
        # Claude Code's managed MCP file as the last load found it (``None``: not read).
        self._claude_managed: ManagedServers | None = None
        # Why Codex does not read the project's file, and Gemini CLI runs no server here
        # (``None``: it does), and every Gemini settings file it reads: as the last load found.
        self._codex_untrusted: str | None = None
        self._gemini_untrusted: str | None = None
        self._gemini_settings: GeminiSettings = ()
        # Gemini CLI's system settings and defaults (``None``: its files are not read).
        self._gemini_system: GeminiSystem | None = None
        # The lines of moved Claude Code switches said so far: each is said once.
        self._said: set[str] = set()
        self.single = trust is None
        """One file the user named (``--config``): read as the file says (see the module)."""
        self._trust = trust
        self._stores = {
            s.ref: ConfigStore(s.path, dialect=source_dialect(s, root)) for s in sources
        }
        self._good: dict[SourceRef, PluginConfig] = {}
        self.pins = pins
        """The pin store of the servers whose files cannot hold pins, or ``None``."""
        # The pin store's book as last read well (kept while the file does not read).
        self._pin_book = PinBook()
        # The config of the last load: who owns an entry, as the caller last saw it.
        self._layered: PluginConfig | None = None
        self.reports: tuple[SourceReport, ...] = ()
        """Each source as the last ``load`` found it."""

    @classmethod
    def of_file(cls, path: Path, dialect: Dialect | None = None) -> Workspace:
        """The workspace of one config file (``--config``), in ``dialect`` (detected from the
        file when ``None``). The file need not exist: an edit creates it."""
        return cls.of_store(ConfigStore(path, dialect=dialect))

    @classmethod
    def of_store(cls, store: ConfigStore) -> Workspace:
        """The workspace of the one file ``store`` reads (``of_file``), in its dialect."""
        path = store.path
        ref = SourceRef(path=str(path), scope="user", host="agentty")
        source = SourceFile(ref, store.dialect.name)
        root = Path(path).absolute().parent
        # A file of a host's format keeps its pins in the user's pin store, as in a workspace.
        pins = None if holds_pins(store) else PinStore.of_user(Path.home(), os.environ)
        workspace = cls((source,), root=root, trust=None, add_to=ref, pins=pins)
        workspace._stores[ref] = store  # the caller's store: its dialect, its seams
        return workspace

    def leaving_out(self, hosts: Collection[str]) -> Workspace:
        """This workspace without the files of ``hosts`` (and, without ``claude``, without
        Claude Code's switches): the picker's first frame while a large file of theirs is still
        being read (``bridge/starting.py``). A view to load, not to edit: its load changes
        nothing in this workspace, and this workspace's own load is the config."""
        kept = [source for source in self.sources if source.ref.host not in hosts]
        return Workspace(
            kept,
            root=self.root,
            trust=self._trust,
            add_to=self.add_to,
            claude=None if "claude" in hosts else self.claude,
            routed={ref: path for ref, path in self.routed.items() if ref.host not in hosts},
            cwd=self.cwd,
            env=self._env,
        )

    def __repr__(self) -> str:
        if self.single:
            return f"Workspace.of_file({str(self.path)!r})"
        return f"Workspace({str(self.root)!r}, {len(self.sources)} sources)"

    def store(self, ref: SourceRef) -> ConfigStore:
        """The store of one source file (a ``ConfigError`` for a file that is not one, an
        ``OperationError`` for a Claude Code plugin's, which ``claude plugin`` manages)."""
        store = self._stores.get(ref)
        if store is None and ref.plugin is not None and ref.host == "gemini":
            raise OperationError(
                f"{ref.path} is Gemini CLI's extension {ref.plugin}: its servers are managed "
                f"with `gemini extensions` (disable, uninstall or update {ref.plugin}), not "
                "edited here; a server of it is switched off in mcp.excluded"
            )
        if store is None and ref.host == "gemini" and ref.admin is not None:
            raise OperationError(
                f"{ref.path} is Gemini CLI's {ref.admin} file, kept by this machine's "
                "administrator (Gemini itself only reads it): its servers are not edited here; "
                "one of them is switched off in mcp.excluded of the user's settings"
            )
        if store is None and ref.admin == "managed":
            raise OperationError(
                f"{ref.path} is Claude Code's managed MCP file, kept by this machine's "
                "administrator: its servers are not edited here; one of them is switched off "
                "for this project in disabledMcpServers (agentty-tui disable), a tool with a "
                "deny rule"
            )
        if store is None and ref.plugin is not None:
            raise OperationError(
                f"{ref.path} is Claude Code's plugin {ref.plugin}: its servers are managed "
                f"with `claude plugin` (disable, uninstall or update {ref.plugin}), not edited here"
            )
        if store is None:
            raise ConfigError(f"{ref.path} ({ref.scope}) is not a source of this workspace")
        return store

    def watched_paths(self) -> tuple[Path, ...]:
        """Every source file, present or not, and the trust file: an outside edit of any of
        them is a reload (``agentty-tui trust`` in another terminal starts the server here)."""
        trust = () if self._trust is None else (self._trust.path,)
        claude = () if self.claude is None else self.claude.watched()
        pins = () if self.pins is None else (self.pins.path,)
        every = [
            *(source.path for source in self.sources),
            *trust,
            *claude,
            *self._host_rules(),
            *pins,
        ]
        return tuple(dict.fromkeys(every))

    def version(self) -> tuple[FileVersion | None, ...]:
        """A fingerprint of every source file, of the trust file and of Claude Code's
        settings files (one ``stat`` each)."""
        files = tuple(self._stores[source.ref].version() for source in self.sources)
        if self.pins is not None:
            files = (*files, self.pins.version())
        if self._trust is None:
            return files
        claude = () if self.claude is None else tuple(map(_version, self.claude.watched()))
        rules = tuple(map(_version, self._host_rules()))
        return (*files, self._trust.version(), *claude, *rules)

    def _host_rules(self) -> tuple[Path, ...]:
        """The hosts' own files that decide what they run here (Gemini CLI's trusted folders,
        its extensions' enablement and the extensions' files the last load read): an edit of
        one is a reload."""
        if self._trust is None:
            return ()
        from agentty_tui.config.hosts.gemini_extensions import ENABLEMENT, EXTENSION_DIALECT

        settings = [
            self.routed.get(s.ref, s.path)
            for s in self.sources
            if s.ref.host == "gemini" and s.ref.scope == "user"
        ]
        user = self._gemini_user()
        enablement = () if user is None else (user.parent / "extensions" / ENABLEMENT,)
        extensions = (
            Path(r.source.ref.path) for r in self.reports if r.source.dialect == EXTENSION_DIALECT
        )
        system = self._gemini_system
        admin = () if system is None else (system.system.path, system.defaults.path)
        return (
            *(self._gemini_folders(path) for path in settings),
            *enablement,
            *extensions,
            *admin,
        )

    def exists(self) -> bool:
        """Whether any source file is there (a ``--config`` naming no file is a typo to say)."""
        return any(self._stores[source.ref].version() is not None for source in self.sources)

    def load(self) -> PluginConfig:
        """Read every source afresh and layer them into one config; the one file of
        ``of_file`` as it is (its ``ConfigError`` raised: there is nothing to keep it for)."""
        if self._trust is None:
            source = self.sources[0]
            config = self._with_kept_pins(without_gateway(self._stores[source.ref].load()))
            self.reports = (SourceReport(source, self.exists(), len(config.servers)),)
            self._layered = config
            return config
        from agentty_tui.config.hosts.claude.managed import read_managed_servers
        from agentty_tui.config.hosts.claude.plugins import read_plugin_servers
        from agentty_tui.config.hosts.claude.switches import read_switches
        from agentty_tui.config.hosts.gemini_extensions import read_extension_servers

        parts: list[Layer] = []
        # Each problem once, by its text: ``~/.claude.json`` is two sources (its user and its
        # local scope), and what is wrong with the file (too big, half-saved, not JSON) is
        # said by both stores in the same words.
        problems: dict[str, str] = {}
        reports: list[SourceReport] = []
        settings = PluginConfig()
        trust = self._trust.project(self.root)  # one read of the trust file a load
        if trust.problem is not None:
            problems.setdefault(trust.problem, trust.problem)
        self._read_host_trust()
        for unread in () if self._gemini_system is None else self._gemini_system.problems:
            problems.setdefault(unread, unread)
        if self.claude is not None:
            self._claude_switches = read_switches(self.claude)
            for unread in self._claude_switches.problems:
                problems.setdefault(unread, f"{unread} (Claude Code's switches there unread)")
            self._claude_managed = read_managed_servers(self.claude)
            if self._claude_managed.problem is not None:
                problems.setdefault(self._claude_managed.problem, self._claude_managed.problem)
        configs: dict[SourceRef, PluginConfig] = {}
        with parses_shared():  # ~/.claude.json, two sources, is parsed once
            for source in self.sources:
                ref, problem = source.ref, None
                store = self._stores[ref]
                try:
                    config = without_gateway(store.load())
                    self._good[ref] = config
                except ConfigError as error:
                    kept = ref in self._good
                    config = self._good.get(ref, PluginConfig())
                    problem = str(error)
                    shown = "kept as last read" if kept else "not shown"
                    problems.setdefault(problem, f"{problem} (its servers are {shown})")
                if ref == self.add_to:
                    settings = config
                exists = store.version() is not None
                reports.append(SourceReport(source, exists, len(config.servers), problem))
                configs[ref] = config
        self._merge_codex_tables(configs)
        for source in self.sources:
            ref, config = source.ref, configs[source.ref]
            waiting = self._untrusted(source, config, trust)
            facts = self._facts(config, waiting)
            views = {server.name: self._view(server, ref) for server in config.servers}
            parts.append(Layer(ref, config, waiting, views, facts))
        system = self._gemini_system
        managed = self._claude_managed
        # Where each host ranks the files its machine's administrator keeps: Gemini CLI's
        # system settings over its every other file, its system defaults under all of them
        # (its own merge); Claude Code's managed servers before its every other entry (under
        # their exclusive control they are the ones it runs, whatever else holds their names).
        for admin, first in (
            (None if system is None else system.system.part, True),
            (None if system is None else system.defaults.part, False),
            (None if managed is None else managed.part, True),
        ):
            if admin is not None:
                part = self._read_only_layer(*admin, trust)
                parts.insert(0 if first else len(parts), part)
                reports.append(SourceReport(admin[0], True, len(admin[1].servers)))
        extras: list[
            tuple[SourceFile, PluginConfig]
        ] = []  # Claude Code's plugins' and Gemini CLI's extensions' servers: read-only
        if self._claude_switches is not None:
            plugins = read_plugin_servers(self._claude_switches)
            problems.update((unread, unread) for unread in plugins.problems)
            extras.extend(plugins.parts)
        gemini_user = self._gemini_user()
        if gemini_user is not None:
            extensions = read_extension_servers(gemini_user.parent, self.cwd)
            problems.update((unread, unread) for unread in extensions.problems)
            extras.extend(extensions.parts)
        for source, config in extras:
            parts.append(self._read_only_layer(source, config, trust))
            reports.append(SourceReport(source, True, len(config.servers)))
        self.reports = tuple(reports)
        moved = self._move_old_claude_switches(parts)
        if moved:  # Claude Code's files were rewritten: what they say now
            again = self.load()
            self._layered = again.model_copy(update={"warnings": (*again.warnings, *moved)})
            return self._layered
        layered = layer(parts, settings=settings, warnings=tuple(problems.values()))
        self._layered = self._with_kept_pins(layered)
        return self._layered

    def keeps_own_pins(self, ref: SourceRef) -> bool:
        """Whether the file ``ref`` holds its servers' pins itself (agentty's own files);
        the others' are kept in the pin store (``config.pins``)."""
        store = self._stores.get(ref)
        return ref.host == "agentty" and store is not None and holds_pins(store)

    def pin_place(self, ref: SourceRef) -> PinPlace:
        """Where the pin store keys the pins of ``ref``'s servers: the file (a connected host's
        own, not its stash, so its pins outlive connecting and disconnecting), and for Claude
        Code's local scope the project. The path is absolute (``--config x.toml`` given from
        another folder is the same file, with the same pins)."""
        file = os.path.abspath(self.routed.get(ref, Path(ref.path)))
        return PinPlace(file, str(self.root) if ref.scope == "local" else None)

    def _with_kept_pins(self, config: PluginConfig) -> PluginConfig:
        """``config`` with the pins the pin store keeps for its servers, read in as a file's
        ``tools.pin`` and ``priority`` are: a server's tool pins from every file holding it,
        its priority from the file whose entry it is. A pin store that does not read is said
        in a warning line and its pins as last read are kept."""
        if self.pins is None:
            return config
        kept = [
            server
            for server in config.servers
            if not all(map(self.keeps_own_pins, self._holding(server)))
        ]
        if not kept:
            return config
        warnings = config.warnings
        try:
            self._pin_book = self.pins.read()
        except ConfigError as error:
            warnings = (*warnings, f"{error} (its pins as last read are kept)")
        book = self._pin_book
        pinned = {server.name: self._pinned(server, book) for server in kept}
        servers = tuple(pinned.get(server.name, server) for server in config.servers)
        return config.model_copy(update={"servers": servers, "warnings": warnings})

    def _holding(self, server: ServerConfig) -> tuple[SourceRef, ...]:
        """Every file holding ``server``, the one whose entry it is first."""
        return (server.source or self.add_to, *server.also_in)

    def _pinned(self, server: ServerConfig, book: PinBook) -> ServerConfig:
        """``server`` with what ``book`` pins of it (itself when nothing)."""
        owner, *others = self._holding(server)
        found = [
            (ref, book.get(self.pin_place(ref), server.entry_name))
            for ref in (owner, *others)
            if not self.keeps_own_pins(ref)
        ]
        tools = [pin for _, pins in found if pins is not None for pin in pins.tools]
        stored = next((pins.priority for ref, pins in found if ref == owner and pins), 0)
        update: dict[str, Any] = {}
        if found and found[0][0] == owner and self.pins is not None:
            update["pins_kept_in"] = str(self.pins.path)
        if tools:
            pin = tuple(dict.fromkeys([*server.tools.pin, *tools]))
            update["tools"] = server.tools.model_copy(update={"pin": pin})
        if stored and not server.priority:
            update["priority"] = stored
        return server.model_copy(update=update) if update else server

    def _read_only_layer(
        self, source: SourceFile, config: PluginConfig, trust: ProjectTrust
    ) -> Layer:
        """The layer of a file read and never written (a plugin's, an extension's, one the
        administrator keeps)."""
        waiting = self._untrusted(source, config, trust)
        views = {server.name: self._view(server, source.ref) for server in config.servers}
        return Layer(source.ref, config, waiting, views, self._facts(config, waiting))

    def _merge_codex_tables(self, configs: dict[SourceRef, PluginConfig]) -> None:
        """Codex's own precedence: in a project it trusts, a server's table in a
        ``.codex/config.toml`` of the project (one a folder, from the top down to where it
        runs) is merged into the one above it of the same name key by key, the user's first
        (``codex_trust.merge_codex_tables``): the deepest file's entry in ``configs`` becomes
        what Codex runs (a table of ``enabled = false`` alone turns the user's server off)."""
        if self._codex_untrusted is not None:
            return
        from agentty_tui.config.hosts.codex_trust import merge_codex_tables

        # Deepest first in the sources: the merge goes the other way, the user's table first.
        layers = [s for s in reversed(self.sources) if s.ref.host == "codex"]
        if len(layers) < 2 or any(s.ref in self.routed for s in layers):
            return  # a connected Codex no longer holds the user's tables: nothing merges
        names = [{server.name for server in configs[s.ref].servers} for s in layers]
        shared = {name for name in set().union(*names) if sum(name in n for n in names) > 1}
        dialect = self._stores[layers[0].ref].dialect
        if not shared or not isinstance(dialect, Adapter):
            return
        try:
            tables = [dialect.plain_entries(read_text(s.path) or "", str(s.path)) for s in layers]
        except ConfigError:
            return  # the file's own problem is said by its load
        for name in shared:
            merged: dict[str, Any] | None = None
            deepest = None
            for source, table in zip(layers, tables, strict=True):
                if name in table:
                    merged = (
                        table[name] if merged is None else merge_codex_tables(merged, table[name])
                    )
                    deepest = source
            if merged is None or deepest is None:
                continue
            runs = dialect.validate({dialect.servers_key: {name: merged}}, str(deepest.path))
            config = configs[deepest.ref]
            servers = tuple(runs.servers[0] if s.name == name else s for s in config.servers)
            configs[deepest.ref] = config.model_copy(update={"servers": servers})

    def _move_old_claude_switches(self, parts: Sequence[Layer]) -> tuple[str, ...]:
        """Move the switches our earlier versions wrote into Claude Code's entries (which it
        ignores: ``tools``, ``disabled``) to the ones it obeys, once; a line for each server
        not said before in this process (none: nothing was due)."""
        if self.claude is None:
            return ()
        due = any(
            server.tools.include is not None or server.tools.exclude or server.disabled
            for part in parts
            if part.ref.host == "claude"
            for server in part.config.servers
        )
        if not due:
            return ()
        from agentty_tui.config.hosts.claude.migration import migrate_old_switches

        lines = [
            f"Claude Code ignores tools and disabled in its entries: {line}"
            for line in migrate_old_switches(self.claude)
        ]
        new = tuple(line for line in lines if line not in self._said)
        self._said.update(new)
        return new

    def _untrusted(
        self, source: SourceFile, config: PluginConfig, trusted: ProjectTrust
    ) -> dict[str, str]:
        """The entries of one file that wait for trust, each with why (``trusted``: the
        project's trusted entries, ``TrustBook.project``)."""
        waiting: dict[str, str] = {}
        for server in config.servers:
            if server.spec is None:
                # An invalid entry (a VS Code ${input:...} it cannot prompt for) runs nothing:
                # its problem is the one reason it does not start, trust would change nothing.
                continue
            if config.insecure is not None and isinstance(server.spec, StdioSpec):
                waiting[server.name] = config.insecure
            elif source.ref.scope == "project":
                stamped = server.model_copy(update={"source": source.ref})
                if not trusted.trusts(stamped):
                    waiting[server.name] = trust_prompt(server)
        return waiting

    def _gemini_user(self) -> Path | None:
        """Gemini CLI's user settings file (where its extensions are found), or ``None``."""
        found = (s.path for s in self.sources if s.ref.host == "gemini" and s.ref.scope == "user")
        return next(found, None)

    def _gemini_folders(self, settings: Path) -> Path:
        """Gemini CLI's trust rules: beside its user settings, or where its environment says."""
        named = self._env.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
        return Path(named) if named else settings.parent / "trustedFolders.json"

    def _read_host_trust(self) -> None:
        """Read what Codex and Gemini CLI trust here: whether Codex reads the project's
        ``.codex/config.toml`` (``hosts.codex_trust``), whether Gemini CLI runs any server in
        this folder and which of its settings files it reads (``hosts.gemini_trust``). Their
        user files are found among the sources (where ``$CODEX_HOME`` already led)."""
        from agentty_tui.config.hosts.codex_trust import codex_untrusted
        from agentty_tui.config.hosts.gemini_system import read_gemini_system
        from agentty_tui.config.hosts.gemini_trust import gemini_folder_untrusted, gemini_settings

        # A connected host's trust is still in its own file, not in the stash read for it.
        user = {
            s.ref.host: self.routed.get(s.ref, s.path)
            for s in self.sources
            if s.ref.scope == "user"
        }
        project = {s.ref.host: s.path for s in self.sources if s.ref.scope == "project"}
        self._codex_untrusted = None
        if "codex" in user and "codex" in project:
            self._codex_untrusted = codex_untrusted(user["codex"], self.root)
        self._gemini_untrusted, self._gemini_settings = None, ()
        self._gemini_system = None
        if "gemini" in user:
            system = self._gemini_system = read_gemini_system(self._env)
            folders = self._gemini_folders(user["gemini"])
            self._gemini_untrusted = gemini_folder_untrusted(
                folders,
                user["gemini"],
                self.cwd,
                self._env,
                system=system.system.settings,
                defaults=system.defaults.settings,
            )
            read = [user["gemini"]]
            if "gemini" in project and self._gemini_untrusted is None:
                read.append(project["gemini"])
            self._gemini_settings = (*self._gemini_admin_settings(), *gemini_settings(read))

    def _gemini_admin_settings(self) -> GeminiSettings:
        """The settings of Gemini CLI's system files it reads (none when it skips them)."""
        system = self._gemini_system
        files = () if system is None else (system.system, system.defaults)
        return tuple((str(f.path), f.settings) for f in files if f.settings is not None)

    def _view(self, server: ServerConfig, ref: SourceRef) -> HostView:
        """What the host of ``ref`` does with its entry ``server`` (``hosts.switches``), its
        own trust included: Codex reads a project's file only in a trusted project, Gemini CLI
        runs no server in a folder it does not trust and blocks a server any of its settings
        files excludes. An entry of a connected host's stash is reached through the gateway
        (``routing``)."""
        view = self._host_view(server, ref)
        return routed_view(view, server) if ref in self.routed else view

    def _host_view(self, server: ServerConfig, ref: SourceRef) -> HostView:
        if ref.host in NO_SWITCH:
            return no_switch_view(ref)
        if ref.host == "claude" and self._claude_switches is not None:
            view = self._claude_switches.host_view(server.name, ref)
            lockdown = self.claude_lockdown
            if lockdown is not None and ref.admin is None:  # only the managed file's servers run
                return view.model_copy(update={"off": True, "off_by": lockdown})
            blocked = self._claude_switches.policy.blocks(server.name, server.spec)
            if blocked is not None and not view.off:  # its policy: never started
                view = view.model_copy(update={"off": True, "off_by": blocked})
            return view
        project = ref.scope == "project"
        if ref.host == "codex" and project:
            return untrusted_view(entry_view(server, ref), self._codex_untrusted)
        if ref.host == "gemini":
            from agentty_tui.config.hosts.gemini_trust import gemini_mcp_block

            view = entry_view(server, ref)
            # Another of its files may exclude it: every one counts. A connected host's
            # stash carries its own exclusions (the gateway serves it, not Gemini CLI).
            blocked = (
                None if ref in self.routed else gemini_mcp_block(server.name, self._gemini_settings)
            )
            if blocked is not None:
                view = view.model_copy(update={"off": True, "off_by": blocked})
            return untrusted_view(view, self._gemini_untrusted, project=project)
        return entry_view(server, ref)

    @property
    def claude_lockdown(self) -> str | None:
        """Why Claude Code runs none of its entries but its managed MCP file's, as the last
        load found that file (``hosts/claude/managed``: it takes exclusive control), or
        ``None`` when it does not."""
        managed = self._claude_managed
        return managed.lockdown if managed is not None and managed.exclusive else None

    def _facts(
        self, config: PluginConfig, waiting: Collection[str]
    ) -> dict[str, tuple[EntryFact, ...]]:
        """What trusting each waiting entry of one file runs or sends (an executable inside
        the project folder flagged)."""
        return {
            server.name: entry_facts(server.spec, env_file=server.env_file, project=self.root)
            for server in config.servers
            if server.name in waiting and server.spec is not None
        }

    def trust(self, config: PluginConfig, names: Collection[str] | None = None) -> int:
        """Remember the user's trust in the project entries of ``config`` that wait for it
        (``names`` of them, or all); returns how many were trusted. One file keeps no trust
        book (it is trusted as a whole, for one run): nothing is remembered."""
        if self._trust is None:
            return 0
        chosen = [
            server
            for server in config.servers
            if server.untrusted is not None
            and server.spec is not None  # an invalid entry runs nothing: nothing to trust
            and server.source is not None
            and server.source.scope == "project"
            and (names is None or server.name in names)
        ]
        if chosen:
            # Trusted as its file names it: the key of the workspace may change as other
            # hosts' files do.
            as_written = [_as_in_file(server) for server in chosen]
            self._trust.trust(self.root, as_written)
        return len(chosen)

    def owner(self, config: PluginConfig, name: str) -> SourceRef:
        """The file that owns the entry ``name`` of ``config`` (``UnknownServerError`` when no
        file has it)."""
        server = config.server(name)
        if server is not None and server.source is not None:
            return server.source
        for hidden in config.shadowed:
            if hidden.name == name and hidden.source is not None:
                return hidden.source
        if server is not None and self.single:  # one file's entries are not stamped
            return self.add_to
        raise UnknownServerError(name, [server.name for server in config.servers])

    def holders(self, config: PluginConfig, name: str) -> tuple[SourceRef, ...]:
        """Every file with an entry called ``name``, in precedence order."""
        refs: list[SourceRef] = []
        server = config.server(name)
        if server is not None and self.single:
            return (self.add_to,)
        if server is not None and server.source is not None:
            refs += [server.source, *server.also_in]
        refs += [s.source for s in config.shadowed if s.name == name and s.source is not None]
        order = {source.ref: index for index, source in enumerate(self.sources)}
        return tuple(sorted(refs, key=lambda ref: order.get(ref, len(order))))

    def holders_in(
        self,
        config: PluginConfig,
        name: str,
        *,
        source: SourceRef | None = None,
        scope: str | None = None,
    ) -> tuple[SourceRef, ...]:
        """The files with an entry ``name`` among those the user named: ``source`` and/or
        ``scope`` (none: every file), in precedence order, never empty.

        A named file or scope without the entry is an ``OperationError`` that says where the
        entry is: an edit meant for one file never falls back to another file's entry (the one
        that wins, say), which the user did not name. ``UnknownServerError`` when no file has it.
        """
        every = self.holders(config, name)
        if not every:
            raise UnknownServerError(name, [server.name for server in config.servers])
        found = tuple(
            ref
            for ref in every
            if (source is None or ref == source) and (scope is None or ref.scope == scope)
        )
        if found:
            return found
        named = f"the {scope} scope" if source is None else f"{source.path} ({source.label})"
        listed = ", ".join(f"{ref.path} ({ref.label})" for ref in every)
        raise OperationError(f"{name!r} is not in {named}; it is in: {listed}")

    def source_by_path(self, path: str, scope: str | None = None) -> SourceRef:
        """The source at ``path`` (``~/.claude.json`` is two: its ``scope`` tells them apart);
        a ``ConfigError`` that lists the sources when none or several match."""
        wanted = Path(path).expanduser().absolute()
        found = [
            source.ref
            for source in self.sources
            if source.path.absolute() == wanted and (scope is None or source.ref.scope == scope)
        ]
        if len(found) == 1:
            return found[0]
        known = ", ".join(f"{s.ref.path} ({s.ref.scope})" for s in self.sources)
        if found:
            raise ConfigError(f"{path} is {len(found)} sources; say which with --scope")
        raise ConfigError(f"{path} is not a source of this workspace; the sources: {known}")

    def apply(
        self,
        edit: ConfigEdit | Sequence[ConfigEdit],
        *,
        source: SourceRef | None = None,
        host: str | None = None,
    ) -> PluginConfig:
        """Write ``edit`` into the file that owns its entry (or into ``source``; a new server
        goes to ``add_to`` unless ``source`` says otherwise); return the workspace's config
        afterwards. Several edits go to one file, as one write. A tool or server switch goes
        to every host holding the server (``host``: that one alone), each where it reads it.
        Running bridges hear of it once, when every file is written (``announce``)."""
        with one_announcement():
            return self._apply(edit, source, host)

    def _apply(
        self,
        edit: ConfigEdit | Sequence[ConfigEdit],
        source: SourceRef | None,
        host: str | None,
    ) -> PluginConfig:
        edits = tuple(edit) if isinstance(edit, Sequence) else (edit,)
        if source is None and all(isinstance(e, SWITCHES) for e in edits):
            server = (self._layered or self.load()).server(_server_of(edits[0]))
            if server is not None and server.hosts:
                return self._switch(server, edits, host)
        if source is None:
            source = self._target(edits)
        if any(isinstance(e, PINS) for e in edits) and not self.keeps_own_pins(source):
            return self._keep_pins(edits, source)
        if source.host == "claude" and any(isinstance(e, AddServer) for e in edits):
            self.refuse_in_lockdown("add a server to Claude Code's files")
        written = self._as_written(edits)
        self.store(source).apply(written)
        self._drop_pins(written, source)
        return self.load()

    def _keep_pins(self, edits: tuple[ConfigEdit, ...], source: SourceRef) -> PluginConfig:
        """Pins of a server whose file cannot hold them, written to the pin store (the file
        itself is never written for a pin); ``OperationError`` without a pin store, or for
        edits that are not all pins."""
        name = _server_of(edits[0])
        if self.pins is None or not all(isinstance(e, PINS) for e in edits):
            raise OperationError(
                f"{name!r} is in {HOST_NAMES.get(source.host, source.host)}'s file, which has "
                "no pins or priorities: only agentty's own files hold them"
            )
        place = self.pin_place(source)
        kept: list[PinEdit] = []
        for edit in self._as_written(edits):
            if isinstance(edit, SetToolPinned):
                kept.append(PinTool(place, edit.server, edit.tool, edit.pinned))
            elif isinstance(edit, SetServerPriority):
                kept.append(PinServer(place, edit.server, edit.priority))
        self.pins.apply(kept)
        return self.load()

    def _drop_pins(self, edits: Sequence[ConfigEdit], source: SourceRef) -> None:
        """Forget the kept pins of the servers ``edits`` removed from ``source``. A pin store
        that does not read keeps them (the next load says what is wrong with it)."""
        removed = [edit.name for edit in edits if isinstance(edit, RemoveServer)]
        if not removed or self.pins is None or self.keeps_own_pins(source):
            return
        place = self.pin_place(source)
        with contextlib.suppress(ConfigError):
            book = self.pins.read()  # read again only when the file changed
            if any(book.get(place, name) for name in removed):
                self.pins.apply([DropPins(place, name) for name in removed])

    def refuse_in_lockdown(self, what: str) -> None:
        """``OperationError`` when Claude Code's managed MCP file has exclusive control (what
        ``claude mcp add`` refuses too), as the last ``load`` found it: ``what`` would change
        nothing it runs."""
        lockdown = self.claude_lockdown
        if lockdown is not None:
            raise OperationError(f"cannot {what}: {lockdown} (the administrator's choice)")

    def _as_written(self, edits: Sequence[ConfigEdit]) -> tuple[ConfigEdit, ...]:
        """``edits`` naming each server as its file does (``time`` for ``time@codex``), as the
        caller last saw the workspace (``load``)."""
        if self._layered is None:
            return tuple(edits)
        return tuple(_renamed(edit, self._layered) for edit in edits)

    def _switch(
        self, server: ServerConfig, edits: tuple[ConfigEdit, ...], host: str | None
    ) -> PluginConfig:
        """Write a tool or server switch for every host that holds ``server`` (``host`` alone,
        when given), each where that host reads it; a host whose files have no switch is left
        as it is (its row and the command line say so). ``OperationError`` when no host
        holding it can be switched, or ``host`` does not hold it."""
        # A switch of a host's other entry would reach further than asked (a user deny rule is
        # every project's): only the entry each host runs.
        views = [view for view in hosts_in_use(server.hosts) if host in (None, view.source.host)]
        if not views:
            holding = ", ".join(dict.fromkeys(view.source.host for view in server.hosts))
            raise OperationError(f"{host} does not hold {server.name!r}; it is held by {holding}")
        turns_on = any(
            (isinstance(edit, SetServerDisabled) and not edit.disabled)
            or (isinstance(edit, SetToolEnabled) and edit.enabled)
            for edit in edits
        )
        # Under the exclusive control of Claude Code's managed MCP file its other entries do
        # not run: turning one on would change nothing, so it is left as it is (its row says
        # why); turning one off is still written, for the day that control ends.
        locked = turns_on and self.claude_lockdown is not None
        if turns_on and any(v.source.host == "gemini" and not v.routed for v in views):
            from agentty_tui.config.hosts.gemini_trust import gemini_mcp_block

            # Gemini CLI's system files may exclude it too, which only their keeper changes:
            # refused before any file is written.
            blocked = gemini_mcp_block(server.entry_name, self._gemini_admin_settings())
            if blocked is not None:
                raise OperationError(
                    f"{server.entry_name!r} stays off for Gemini CLI: {blocked}, a file this "
                    "machine's administrator keeps"
                )
        written, skipped = False, False
        for view in views:
            if view.source.host in NO_SWITCH and not view.routed:
                continue
            if locked and view.source.host == "claude" and view.source.admin is None:
                skipped = True
                continue
            if view.source.host == "claude" and self.claude is not None:
                switch_claude(self.claude, server.entry_name, view.source.scope, edits)
            elif view.source.host == "gemini" and (
                view.source.plugin is not None or view.source.admin is not None
            ):
                self._switch_extension(server.entry_name, view.source, edits)
            else:
                self.store(view.source).apply(self._as_written(edits))
            written = True
        if any(v.source.host == "gemini" for v in views) and any(
            isinstance(edit, SetServerDisabled) and not edit.disabled for edit in edits
        ):
            self._allow_in_gemini(server.entry_name)
        if not written and skipped:
            self.refuse_in_lockdown(f"turn {server.name!r} on for Claude Code")
        if not written:
            what = "tool" if isinstance(edits[0], SetToolEnabled) else "server"
            hosts = dict.fromkeys(view.source.host for view in views)
            raise OperationError("; ".join(no_switch(host, what) for host in hosts))
        return self.load()

    def _switch_extension(self, name: str, ref: SourceRef, edits: tuple[ConfigEdit, ...]) -> None:
        """A server of a Gemini CLI extension or system file switched where Gemini obeys it:
        off is its name in ``mcp.excluded`` of the user settings (on: ``_allow_in_gemini``); a
        tool switch would be in the extension's own file, which ``gemini extensions update``
        replaces, or the administrator's."""
        if any(not isinstance(edit, SetServerDisabled) for edit in edits):
            owner = (
                f"of Gemini CLI's extension {ref.plugin} ({ref.path})"
                if ref.plugin is not None
                else f"of Gemini CLI's {ref.admin} file {ref.path}"
            )
            kept = (
                "`gemini extensions` manages"
                if ref.plugin is not None
                else "the administrator keeps"
            )
            raise OperationError(
                f"{name!r} is a server {owner}: Gemini CLI has no tool switch for it outside "
                f"that file, which {kept}; switch the whole server, or route Gemini CLI "
                "through agentty: agentty-tui connect gemini"
            )
        user = next(s.ref for s in self.sources if s.ref.host == "gemini" and s.ref.scope == "user")
        for edit in edits:
            if isinstance(edit, SetServerDisabled) and edit.disabled:
                self.store(user).apply(AllowServer(name, allowed=False))

    def _allow_in_gemini(self, name: str) -> None:
        """A server Gemini CLI is to start again taken out of ``mcp.excluded`` (and put into
        ``mcp.allowed``) of each of its settings files that reads: any of them keeps it off."""
        readable = {r.source.ref for r in self.reports if r.exists and r.problem is None}
        for source in self.sources:
            if source.ref.host == "gemini" and source.ref in readable:
                self.store(source.ref).apply(AllowServer(name))

    def _target(self, edits: tuple[ConfigEdit, ...]) -> SourceRef:
        first = edits[0]
        if isinstance(first, AddServer):
            return self.add_to
        name = _server_of(first)
        # The entry the caller saw (a bridge, a command: each loads before it edits); reading
        # every file again here would double an edit's cost.
        return self.owner(self._layered or self.load(), name)


def _version(path: Path) -> FileVersion | None:
    """One ``stat`` of ``path`` (``None``: not there, or not to be read)."""
    try:
        return FileVersion.of(path.stat())
    except OSError:
        return None


SWITCHES = (SetToolEnabled, SetServerDisabled)
"""The edits that are a host's switch: written for every host that holds the server."""

PINS = (SetToolPinned, SetServerPriority)
"""The edits of agentty's own fields, which no host's file holds."""


def _renamed(edit: ConfigEdit, config: PluginConfig) -> ConfigEdit:
    """``edit`` naming the server as its entry in its files is named (``ServerConfig.entry``);
    a new server's name is its own."""
    if isinstance(edit, (AddServer, RestoreEntry, AllowServer)):
        return edit
    key = _server_of(edit)
    server = config.server(key) or next((s for s in config.shadowed if s.name == key), None)
    if server is None or server.entry is None:
        return edit
    if isinstance(edit, RemoveServer):
        return replace(edit, name=server.entry)
    return replace(edit, server=server.entry)


def _server_of(edit: ConfigEdit) -> str:
    """The name of the server ``edit`` changes (an ``AddServer``'s new one)."""
    named = (AddServer, RemoveServer, RestoreEntry, AllowServer)
    return edit.name if isinstance(edit, named) else edit.server


@dataclass(frozen=True, slots=True)
class Layer:
    """One source file's part of a workspace, ready to be layered."""

    ref: SourceRef
    """The file."""
    config: PluginConfig
    """What it holds (an empty config for a file that is absent)."""
    untrusted: dict[str, str]
    """Entries of this file that wait for the user's trust, by name, each with why."""
    views: Mapping[str, HostView]
    """What this file's host does with each of its entries, by name."""
    facts: Mapping[str, tuple[EntryFact, ...]] = field(default_factory=dict)
    """What trusting each of those entries runs or sends (``entry_facts``), by name."""


def _stamped(server: ServerConfig, part: Layer) -> ServerConfig:
    name = server.name
    view = part.views[name]
    return server.model_copy(
        update={
            "source": part.ref,
            "untrusted": part.untrusted.get(name),
            "trust_facts": part.facts.get(name, ()) if name in part.untrusted else (),
            "hosts": (view,),
            # What the host does, not what the entry holds (a host may ignore its keys).
            "tools": view.tools,
            "disabled": view.off,
        }
    )


def layer(
    parts: Sequence[Layer], *, settings: PluginConfig, warnings: Sequence[str] = ()
) -> PluginConfig:
    """The workspace's config: ``parts`` in precedence order, the catalog settings of
    ``settings`` (our user file's), the warnings of every part and ``warnings`` (one line
    each, for the files that could not be read)."""
    servers: dict[str, ServerConfig] = {}
    # (host, entry name) -> the key of the server that host runs under that name.
    runs: dict[tuple[str, str], str] = {}
    shadowed: list[ServerConfig] = []
    for part in parts:
        host = part.ref.host
        for entry in part.config.servers:
            server = _stamped(entry, part)
            name = server.name
            key = runs.get((host, name))
            if key is not None and _same_process(servers[key], server):
                servers[key] = _joined(servers[key], server, part.ref)
            elif key is not None:
                # The host's own precedence hides it: never started, nothing to trust it to run.
                winner = next(v for v in servers[key].hosts if v.source.host == host)
                update = {"shadowed_by": winner.source, "trust_facts": ()}
                shadowed.append(_named(server, key).model_copy(update=update))
            else:
                # No host reads another host's files: another host's entry of this name is
                # this server only when it is the same process.
                same = next(
                    (
                        k
                        for k, s in servers.items()
                        if s.entry_name == name and _same_process(s, server)
                    ),
                    None,
                )
                if same is not None:
                    servers[same] = _joined(servers[same], server, part.ref)
                    runs[host, name] = same
                else:
                    key = _free_key(name, host, servers)
                    servers[key] = _named(server, key)
                    runs[host, name] = key
    every_warning = [warning for part in parts for warning in part.config.warnings]
    return PluginConfig(
        servers=tuple(servers.values()),
        tool_budget=settings.tool_budget,
        tool_token_budget=settings.tool_token_budget,
        native_tools=settings.native_tools,
        warnings=(*every_warning, *warnings),
        shadowed=tuple(shadowed),
    )


def _same_process(first: ServerConfig, other: ServerConfig) -> bool:
    """Whether ``other`` runs as the very process ``first`` does (a usable, equal connection)."""
    return first.spec is not None and first.connection_key() == other.connection_key()


def _joined(first: ServerConfig, other: ServerConfig, ref: SourceRef) -> ServerConfig:
    """``first`` also held by ``other``'s file ``ref``: one process for every host that holds
    it, a tool on while any host sends it, the server off only when every host leaves it off,
    trusted when any copy is (the user already runs it)."""
    # A host runs its first entry: its later one of the same process changes nothing it does.
    again = any(view.source.host == ref.host for view in first.hosts)
    return first.model_copy(
        update={
            "also_in": (*first.also_in, ref),
            "untrusted": first.untrusted if other.untrusted else None,
            "trust_facts": first.trust_facts if other.untrusted else (),
            "hosts": (*first.hosts, *other.hosts),
            "tools": first.tools if again else first.tools.either(other.tools),
            "disabled": first.disabled if again else first.disabled and other.disabled,
        }
    )


def _free_key(name: str, host: str, taken: Collection[str]) -> str:
    """The key of a server called ``name`` in ``host``'s files: ``name`` itself unless another
    host runs a different server of that name, then ``name@host`` (numbered past a taken
    one)."""
    if name not in taken:
        return name
    key, number = f"{name}@{host}", 2
    while key in taken:
        key, number = f"{name}@{host}-{number}", number + 1
    return key


def _as_in_file(server: ServerConfig) -> ServerConfig:
    """``server`` under the name its file gives it (``_named`` undone)."""
    if server.entry is None:
        return server
    return server.model_copy(update={"name": server.entry, "entry": None})


def _named(server: ServerConfig, key: str) -> ServerConfig:
    """``server`` under the workspace's ``key`` for it, its entry's own name kept."""
    if key == server.name:
        return server
    return server.model_copy(update={"name": key, "entry": server.name})


def _always(ref: SourceRef) -> bool:
    return ref.host == "claude" and ref.scope in ("project", "local")


def add_targets(workspace: Workspace) -> tuple[SourceRef, ...]:
    """The files a new server may go to: the default first, then the others in precedence
    order (local, project, user)."""
    readable = {
        report.source.ref
        for report in workspace.reports
        if report.exists and report.problem is None
    }
    if not workspace.reports:  # not loaded yet: what is on disk
        readable = {source.ref for source in workspace.sources if source.path.is_file()}
    # Claude Code adds nothing under its managed file's exclusive control: not offered.
    locked = workspace.claude_lockdown is not None
    others = [
        source.ref
        for source in workspace.sources
        if source.ref != workspace.add_to
        and (_always(source.ref) or source.ref in readable)
        and not (locked and source.ref.host == "claude")
    ]
    return (workspace.add_to, *others)


def parse_hosts(names: Collection[str], where: str) -> tuple[str, ...]:
    """``names`` checked against ``HOSTS``; a ``ConfigError`` naming ``where`` for one that is
    not a host we read."""
    wanted = tuple(name.strip().lower() for name in names if name.strip())
    unknown = [name for name in wanted if name not in HOSTS]
    if unknown:
        raise ConfigError(
            f"unknown host {unknown[0]!r}; the hosts are {', '.join(HOSTS)}", path=where
        )
    return wanted


def hosts_setting(path: Path) -> tuple[str, ...] | None:
    """The ``hosts`` list of our user file, or ``None`` when it says nothing (all hosts).

    A file that does not parse says nothing here: the workspace reports its problem."""
    try:
        text = read_text(path)
        value = json.loads(text) if text and text.strip() else None
    except (ConfigError, ValueError):
        return None
    hosts = value.get("hosts") if isinstance(value, dict) else None
    if hosts is None:
        return None
    if not isinstance(hosts, list) or not all(isinstance(name, str) for name in hosts):
        raise ConfigError("must be an array of host names", path=str(path), field="hosts")
    return parse_hosts(hosts, str(path))


def open_workspace(
    cwd: Path,
    *,
    home: Path,
    env: Mapping[str, str],
    hosts: Collection[str] | None = None,
    claude_managed: Path | None = None,
) -> Workspace:
    """The workspace of the project that holds ``cwd``; ``hosts`` (``--hosts``) overrides the
    ``hosts`` setting; ``claude_managed``: the folder of Claude Code's managed settings and
    MCP file (default ``claude.switches.MANAGED_DIR``, ``/etc/claude-code``; a test names
    another, Claude Code itself has no way to)."""
    from agentty_tui.config.hosts.claude.switches import MANAGED_DIR, ClaudeFiles

    root = find_project_root(cwd)
    ours = our_user_file(home, env)
    chosen = parse_hosts(hosts, "--hosts") if hosts is not None else hosts_setting(ours)
    here = cwd.absolute()
    listed = workspace_sources(home, env, root, hosts=chosen, cwd=here)
    sources, routed = routed_sources(listed, home, env)
    add_to = next(source.ref for source in sources if source.path == ours)
    trust = TrustBook(default_trust_file(home, env))
    reads_claude = any(source.ref.host == "claude" for source in sources)
    managed = MANAGED_DIR if claude_managed is None else claude_managed
    claude = ClaudeFiles.of(home, root, env, managed_dir=managed) if reads_claude else None
    return Workspace(
        sources,
        root=root,
        trust=trust,
        add_to=add_to,
        claude=claude,
        routed=routed,
        cwd=here,
        env=env,
        pins=PinStore.of_user(home, env),
    )
