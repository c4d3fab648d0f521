"""Routing a host through agentty's gateway: its own servers moved aside, one entry that runs
``agentty-tui serve`` in their place, and back.

``agentty-tui connect HOST`` makes a host run one MCP server, agentty's gateway, instead of its
own: the entries of the host's user file move, as they are, into a file of ours in the host's
own dialect (the route's ``stash``), and the host's file gets one entry that runs
``agentty-tui serve --shared --host HOST`` (attached to the user's gateway daemon, which runs
each server once for every connected host). The workspace then reads the stash in place of the
host's file (``routed_sources``): the same servers, the same host, now reached through the
gateway, which obeys the host's switches and ours (``HostView.routed``). What connect moves and
what it leaves:

- the user file moves (it is the host's own, in every project); project files stay as they are
  (they belong to a repository): the host still starts their servers itself, and the plan says
  which;
- the file as it was is kept (``backup``, and the stash), and a record says what was written
  (``route.json``);
- a gateway entry is never started by agentty (``is_gateway_entry``): a workspace that reads a
  connected host's file, or a project file holding one, would otherwise start itself.

``agentty-tui disconnect HOST`` gives the host its entries back. When neither the host's file
nor the stash changed since connect, the file is written back byte for byte from the backup.
Otherwise the gateway entry is taken out of the file as it is now and each stashed entry put
back as the stash holds it (with the switches set while connected, in the host's own keys),
so an edit the host made meanwhile stays; a host without switches of its own (Cursor, VS Code,
Claude Desktop) gets its entries back without ours, and the plan says which switches it loses.
A server the host added meanwhile under a stashed name refuses the disconnect before anything
is written.

Every file is written through a store (lock, re-read, atomic replace, no clobbering).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentty_tui.config.announce import one_announcement, written
from agentty_tui.config.engine import (
    Adapter,
    AddServer,
    ConfigEdit,
    RemoveServer,
    RestoreEntry,
    SetServerDisabled,
)
from agentty_tui.config.files import read_text
from agentty_tui.config.hosts.switches import HOST_NAMES, NO_SWITCH
from agentty_tui.config.sources import SourceFile
from agentty_tui.config.store import ConfigStore, DocumentStore
from agentty_tui.errors import ConfigError
from agentty_tui.specs import HostView, PluginConfig, ServerConfig, ServerSpec, SourceRef, StdioSpec

__all__ = [
    "GATEWAY_NAME",
    "GATEWAY_PROBLEM",
    "HOST_START",
    "ConnectPlan",
    "DisconnectPlan",
    "HostStart",
    "Route",
    "connect",
    "disconnect",
    "gateway_spec",
    "is_gateway_entry",
    "passed_variables",
    "plan_connect",
    "plan_disconnect",
    "route_of",
    "routed_sources",
    "routed_view",
    "without_gateway",
]

GATEWAY_NAME = "agentty"
"""The name of the one entry a connected host's file holds."""

_PROGRAMS = frozenset({"agentty-tui", "agentty_tui"})


def is_gateway_entry(spec: ServerSpec | None) -> bool:
    """Whether ``spec`` runs agentty's gateway (``agentty-tui serve``, or ``python -m
    agentty_tui serve``): never started by agentty itself."""
    if not isinstance(spec, StdioSpec) or "serve" not in spec.args:
        return False
    program = os.path.basename(spec.command)
    return program in _PROGRAMS or "agentty_tui" in spec.args[: spec.args.index("serve")]


GATEWAY_PROBLEM = (
    "agentty's own gateway (agentty-tui serve): a host runs it, agentty never starts itself"
)
"""Why a gateway entry found in a file is not started."""


def without_gateway(config: PluginConfig) -> PluginConfig:
    """``config`` with every gateway entry marked as never to be started (``GATEWAY_PROBLEM``)."""
    if not any(is_gateway_entry(server.spec) for server in config.servers):
        return config
    servers = tuple(
        server.model_copy(update={"problem": GATEWAY_PROBLEM})
        if is_gateway_entry(server.spec)
        else server
        for server in config.servers
    )
    return config.model_copy(update={"servers": servers})


def routed_view(view: HostView, server: ServerConfig) -> HostView:
    """``view`` of an entry a host reaches through the gateway: the gateway obeys the host's
    switches, and for a host without switches of its own, ours in the stash."""
    if view.source.host not in NO_SWITCH:
        return view.model_copy(update={"routed": True})
    where = f"{view.source.path} (via agentty)"
    return HostView(
        source=view.source,
        tools=server.tools,
        off=server.disabled,
        tool_switch=f"tools.exclude in {where}",
        server_switch=f"disabled in {where}",
        off_by=f"disabled in {where}" if server.disabled else None,
        routed=True,
    )


@dataclass(frozen=True, slots=True)
class HostStart:
    """How long a host lets the gateway start, and how long the gateway's first answer waits
    for the servers behind it within that: a host that never refreshes its list in a session
    (Claude Code) keeps what the first ``tools/list`` said, so the wait is as long as the host
    allows, less a margin for the gateway's own start."""

    wait: float
    """Seconds the gateway's first answer waits for servers still connecting (``--wait``)."""
    timeout: float | None = None
    """Seconds written into the entry as the host's start limit (``connect_timeout``, e.g.
    Codex's ``startup_timeout_sec``); ``None``: the host's own default is left alone."""


HOST_START: Mapping[str, HostStart] = {
    # MCP_TIMEOUT, an environment variable only: 30 s unless set.
    "claude": HostStart(wait=25.0),
    # startup_timeout_sec, 10 s unless the entry says: ours says 60.
    "codex": HostStart(wait=50.0, timeout=60.0),
    # The entry's timeout, 10 minutes unless it says.
    "gemini": HostStart(wait=30.0),
}
"""Each measured host's start limit; a host not listed gets ``serve``'s default wait."""


def passed_variables(host: str, entries: Mapping[str, Any]) -> tuple[str, ...]:
    """The environment variables ``host`` hands only to the servers whose entries name them,
    for ``entries`` moved behind the gateway: Codex passes a server just ``HOME``, ``LANG``,
    ``PATH``, ``PWD`` and ``TERM`` besides those its ``env_vars`` list (and an HTTP entry's
    ``bearer_token_env_var`` and ``env_http_headers`` name), so the gateway's entry must name
    every one of them; other hosts pass their whole environment (none needed)."""
    if host != "codex":
        return ()
    names: set[str] = set()
    for entry in entries.values():
        if not isinstance(entry, Mapping):
            continue
        listed = entry.get("env_vars")
        if isinstance(listed, list):
            names.update(name for name in listed if isinstance(name, str) and name)
        token = entry.get("bearer_token_env_var")
        if isinstance(token, str) and token:
            names.add(token)
        headers = entry.get("env_http_headers")
        if isinstance(headers, Mapping):
            names.update(name for name in headers.values() if isinstance(name, str) and name)
    return tuple(sorted(names))


def gateway_spec(host: str, program: Sequence[str]) -> StdioSpec:
    """The entry that runs the gateway for ``host``: through the user's gateway daemon
    (``serve --shared``), so that every connected host shares one process per server;
    ``program`` is how agentty is started (its executable, or the interpreter and
    ``-m agentty_tui``)."""
    args = (*program[1:], "serve", "--shared", "--host", host)
    start = HOST_START.get(host)
    if start is not None:
        args += ("--wait", f"{start.wait:g}")
    return StdioSpec(command=program[0], args=args)


@dataclass(frozen=True, slots=True)
class Route:
    """Where one host's route keeps its files (under ``$XDG_CONFIG_HOME/agentty/connected``)."""

    host: str
    """The host routed."""
    folder: Path
    """Its folder."""
    extension: str
    """The extension of the host's dialect (``json``, ``toml``)."""

    @property
    def stash(self) -> Path:
        """The host's entries while it is connected, in its own dialect."""
        return self.folder / f"servers.{self.extension}"

    @property
    def backup(self) -> Path:
        """The host's file as it was before connect."""
        return self.folder / f"original.{self.extension}"

    @property
    def before_disconnect(self) -> Path:
        """The host's file as it was when disconnect last rewrote it (kept after; the next
        disconnect replaces it)."""
        return self.folder / f"before-disconnect.{self.extension}"

    @property
    def record(self) -> Path:
        """What connect wrote (``route.json``): its presence means connected."""
        return self.folder / "route.json"

    def connected(self) -> bool:
        """Whether the host is routed through the gateway."""
        return self.record.is_file()


def route_of(home: Path, env: Mapping[str, str], host: str, dialect: str) -> Route:
    """The route of ``host``, whose user file is in ``dialect``."""
    config_home = Path(env["XDG_CONFIG_HOME"]) if env.get("XDG_CONFIG_HOME") else home / ".config"
    extension = "toml" if dialect == "codex" else "json"
    return Route(host, config_home / "agentty" / "connected" / host, extension)


def routed_sources(
    sources: Sequence[SourceFile], home: Path, env: Mapping[str, str]
) -> tuple[tuple[SourceFile, ...], dict[SourceRef, Path]]:
    """``sources`` with each connected host's user file replaced by its stash, and the refs
    of those stashes, each with the host's own file."""
    found: list[SourceFile] = []
    routed: dict[SourceRef, Path] = {}
    for source in sources:
        ref = source.ref
        if ref.scope == "user" and ref.host != "agentty":
            route = route_of(home, env, ref.host, source.dialect)
            if route.connected():
                own = source.path
                ref = SourceRef(path=str(route.stash), scope="user", host=ref.host)
                source = SourceFile(ref, source.dialect)
                routed[ref] = own
        found.append(source)
    return tuple(found), routed


@dataclass(frozen=True, slots=True)
class _TextSwap:
    """Replace a file's whole text, if it still holds ``expected`` (``None``: nothing)."""

    expected: str | None
    new: str


class _WholeText:
    """A file seen as its text: the view of our own files here (backup, record)."""

    def parse(self, text: str, path: str | None) -> tuple[str, str]:
        return text, text

    def apply(self, document: str, edit: _TextSwap, path: str | None) -> str:
        if document != (edit.expected or ""):
            raise ConfigError("changed since it was read; nothing written", path=path)
        return edit.new

    def dump(self, document: str, like: str | None) -> str:
        return document


def _write_text(path: Path, new: str, expected: str | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    DocumentStore(path, _WholeText()).apply(_TextSwap(expected, new))


def _digest(text: str | None) -> str | None:
    return None if text is None else hashlib.sha256(text.encode("utf-8")).hexdigest()


def _adapter(store: ConfigStore) -> Adapter:
    dialect = store.dialect
    if not isinstance(dialect, Adapter):
        raise ConfigError(f"a {dialect.name} file cannot be routed", path=str(store.path))
    return dialect


def _raw_entries(store: ConfigStore, text: str) -> dict[str, Any]:
    """Each server entry of ``text`` (the file of ``store``) as a plain value, in file order."""
    return _adapter(store).plain_entries(text, str(store.path))


@dataclass(frozen=True, slots=True)
class ConnectPlan:
    """What ``connect`` will do for one host, to show before it is done."""

    host: str
    """The host."""
    source: SourceFile
    """Its user file."""
    route: Route
    """Where its entries go."""
    text: str | None
    """The file's text as planned on (``None``: absent)."""
    entries: Mapping[str, Any]
    """The entries that move to the stash, by name, as the file holds them."""
    config: PluginConfig
    """The file's config as read (which of them are off)."""
    gateway: StdioSpec
    """The entry written in their place."""
    direct: tuple[str, ...] = ()
    """Servers of the host's project files that it still starts itself, one line each."""

    def describe(self) -> str:
        """The plan, for a person."""
        name = HOST_NAMES.get(self.host, self.host)
        lines = [f"connect {name} through agentty's gateway:"]
        moved = ", ".join(self.entries) or "none"
        lines.append(f"  move {len(self.entries)} server(s) of {self.source.path}: {moved}")
        lines.append(f"    to {self.route.stash} (agentty serves them to {name})")
        run = " ".join((self.gateway.command, *self.gateway.args))
        lines.append(f"  write one server {GATEWAY_NAME!r} in their place: {run}")
        if passed := passed_variables(self.host, self.entries):
            lines.append(f"    which {name} hands the variables they use: {', '.join(passed)}")
        lines.append(f"  keep the file as it was at {self.route.backup}")
        lines += [f"  still started by {name} itself: {line}" for line in self.direct]
        lines.append(f"  undo: agentty-tui disconnect {self.host}")
        return "\n".join(lines)


def plan_connect(
    source: SourceFile,
    store: ConfigStore,
    route: Route,
    program: Sequence[str],
    direct: Sequence[str] = (),
) -> ConnectPlan:
    """The plan of routing ``source``'s host (``store`` reads its file); a ``ConfigError`` when
    it is connected already or the file cannot be read."""
    host = source.ref.host
    if route.connected():
        raise ConfigError(
            f"{HOST_NAMES.get(host, host)} is connected already (agentty-tui disconnect "
            f"{host} gives it its servers back)",
            path=str(route.record),
        )
    text = read_text(source.path)
    config = store.load()
    raw = _raw_entries(store, text) if text and text.strip() else {}
    entries = {
        server.name: raw[server.name]
        for server in config.servers
        if server.name in raw and not is_gateway_entry(server.spec)
    }
    return ConnectPlan(
        host, source, route, text, entries, config, gateway_spec(host, program), tuple(direct)
    )


def connect(plan: ConnectPlan, store: ConfigStore) -> None:
    """Carry out ``plan``: backup, stash and record first, the host's file last (a file that
    changed since the plan refuses it, and nothing of the host's is lost). Running bridges
    hear of it once, at the end (``announce``)."""
    with one_announcement():
        _connect(plan, store)


def _connect(plan: ConnectPlan, store: ConfigStore) -> None:
    route = plan.route
    _write_text(route.backup, plan.text or "")
    stash = ConfigStore(route.stash, dialect=store.dialect)
    edits: list[ConfigEdit] = [RestoreEntry(name, entry) for name, entry in plan.entries.items()]
    if plan.host == "gemini":  # its server switch is outside the entry: carried over
        edits += [
            SetServerDisabled(server.name, True)
            for server in plan.config.servers
            if server.disabled and server.name in plan.entries
        ]
    if edits:
        stash.apply(edits)
    record: dict[str, Any] = {
        "version": 1,
        "host": plan.host,
        "file": str(plan.source.path),
        "dialect": plan.source.dialect,
        "connected_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "absent": plan.text is None,
        "moved": list(plan.entries),
        "stash": _digest(read_text(route.stash)),
        "written": None,
    }
    _write_text(route.record, json.dumps(record, indent=2) + "\n")
    gateway_held = any(is_gateway_entry(s.spec) for s in plan.config.servers)
    host_edits: list[ConfigEdit] = [RemoveServer(name) for name in plan.entries]
    if not gateway_held:
        start = HOST_START.get(plan.host)
        timeout = start.timeout if start is not None else None
        passed = passed_variables(plan.host, plan.entries)
        if passed:  # Codex: the entry must name them, or Codex hands the gateway none
            entry: dict[str, Any] = {
                "command": plan.gateway.command,
                "args": list(plan.gateway.args),
                "env_vars": list(passed),
            }
            if timeout is not None:
                entry["startup_timeout_sec"] = int(timeout) if timeout.is_integer() else timeout
            host_edits.append(RestoreEntry(GATEWAY_NAME, entry))
        else:
            host_edits.append(AddServer(GATEWAY_NAME, plan.gateway, connect_timeout=timeout))
    try:
        if read_text(plan.source.path) != plan.text:
            raise ConfigError(
                "changed since the plan was made; nothing written", path=str(plan.source.path)
            )
        store.apply(host_edits)
    except BaseException:
        for path in (route.record, route.stash, route.backup):
            path.unlink(missing_ok=True)
        raise
    done = {**record, "written": _digest(read_text(plan.source.path))}
    _write_text(
        route.record,
        json.dumps(done, indent=2) + "\n",
        expected=json.dumps(record, indent=2) + "\n",
    )


@dataclass(frozen=True, slots=True)
class DisconnectPlan:
    """What ``disconnect`` will do for one host, to show before it is done."""

    host: str
    """The host."""
    source: SourceFile
    """Its user file."""
    route: Route
    """Where its entries are."""
    text: str | None
    """The host's file as planned on."""
    exact: str | None
    """The backup's text, when the file goes back byte for byte; ``None``: entry by entry."""
    entries: Mapping[str, Any]
    """The entries put back (entry by entry), by name, as the stash holds them."""
    switched: Mapping[str, bool]
    """Of those, whether each is off, for a host whose server switch is outside the entry
    (Gemini CLI's ``mcp.excluded``): set again as the stash says."""
    lost: tuple[str, ...] = ()
    """Switches set while connected that the host has no place for, one line each."""
    absent: bool = False
    """The file was not there before connect (going back exactly removes it)."""

    def describe(self) -> str:
        """The plan, for a person."""
        name = HOST_NAMES.get(self.host, self.host)
        lines = [f"disconnect {name} from agentty's gateway:"]
        if self.exact is not None:
            lines.append(f"  write {self.source.path} back as it was before connect")
        else:
            back = ", ".join(self.entries) or "none"
            lines.append(f"  take {GATEWAY_NAME!r} out of {self.source.path} and put back: {back}")
        lines += [f"  {name} has no switch for it: {line}" for line in self.lost]
        if self.text is not None:
            lines.append(f"  keep the file as it is now at {self.route.before_disconnect}")
        return "\n".join(lines)


def plan_disconnect(source: SourceFile, store: ConfigStore, route: Route) -> DisconnectPlan:
    """The plan of giving ``source``'s host its entries back; a ``ConfigError`` when it is not
    connected, or when the host added a server under a stashed name meanwhile."""
    host = source.ref.host
    if not route.connected():
        raise ConfigError(f"{HOST_NAMES.get(host, host)} is not connected", path=str(route.record))
    record = json.loads(read_text(route.record) or "{}")
    text = read_text(source.path)
    stash_text = read_text(route.stash) or ""
    stash = ConfigStore(route.stash, dialect=store.dialect)
    stashed = stash.load()
    untouched = _digest(text) == record.get("written") and _digest(
        stash_text or None
    ) == record.get("stash")
    if untouched:
        exact = read_text(route.backup) or ""
        absent = bool(record.get("absent"))
        return DisconnectPlan(host, source, route, text, exact, {}, {}, absent=absent)
    entries = _raw_entries(stash, stash_text) if stash_text.strip() else {}
    now = store.load()
    clashes = [s.name for s in now.servers if s.name in entries and not is_gateway_entry(s.spec)]
    if clashes:
        raise ConfigError(
            f"{', '.join(clashes)} is in the file again: rename or remove it, then disconnect",
            path=str(source.path),
        )
    adapter = _adapter(store)
    lost: list[str] = []
    if host in NO_SWITCH:
        keys = (adapter.tools_key or "", adapter.disabled_key)
        for server in stashed.servers:
            if server.disabled:
                lost.append(f"{server.name} was off: it starts again")
            off = server.tools.exclude or ()
            if off or server.tools.include is not None:
                lost.append(f"{server.name}'s tools switched off are sent again")
        entries = {
            name: {k: v for k, v in entry.items() if k not in keys}
            for name, entry in entries.items()
        }
    # Gemini CLI's server switch is outside the entry: what the stash says is set again.
    switched = {s.name: s.disabled for s in stashed.servers} if host == "gemini" else {}
    return DisconnectPlan(host, source, route, text, None, entries, switched, tuple(lost))


def disconnect(plan: DisconnectPlan, store: ConfigStore) -> None:
    """Carry out ``plan``; the route's files are removed once the host's file is written.
    Running bridges hear of it once, at the end (``announce``)."""
    with one_announcement():
        _disconnect(plan, store)


def _disconnect(plan: DisconnectPlan, store: ConfigStore) -> None:
    if plan.text is not None:  # first: a write that fails after it leaves the copy
        _write_text(plan.route.before_disconnect, plan.text)
    if plan.exact is not None and plan.absent:
        if read_text(plan.source.path) != plan.text:
            raise ConfigError(
                "changed since the plan was made; nothing written", path=str(plan.source.path)
            )
        plan.source.path.unlink()  # it was not there before connect
        written()
    elif plan.exact is not None:
        _write_text(plan.source.path, plan.exact, expected=plan.text)
    else:
        config = store.load()
        edits: list[ConfigEdit] = [
            RemoveServer(s.name) for s in config.servers if is_gateway_entry(s.spec)
        ]
        edits += [RestoreEntry(name, entry) for name, entry in plan.entries.items()]
        edits += [SetServerDisabled(name, off) for name, off in plan.switched.items()]
        if read_text(plan.source.path) != plan.text:
            raise ConfigError(
                "changed since the plan was made; nothing written", path=str(plan.source.path)
            )
        if edits:
            store.apply(edits)
    for path in (plan.route.record, plan.route.stash, plan.route.backup):
        path.unlink(missing_ok=True)
