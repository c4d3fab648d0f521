"""Stdio servers started before the mcp SDK is imported, each waiting for its session to take it.

Importing the SDK takes about half a second of CPU (its client imports its server, every
protocol version's types, HTTP and SSE); starting a server's process needs nothing of it. So a
command that connects (``list``, ``catalog``, ``call``, the picker, the gateway daemon) reads
its config, starts here the stdio servers its bridge is going to start, and only then imports
the SDK and builds the bridge: the servers boot while the SDK loads.

Each process waits here, its pipes unread (a pipe's buffer holds what it writes meanwhile),
until the transport of the session that would have spawned the very same process takes it
(``take``: the same server, the same spec after ``${VAR}`` expansion and placement, the same
environment), so no server is started twice and the process a session supervises is the one
it would have spawned. One that no session takes (the entry changed in between, the bridge
holds it back after all) is stopped by ``aclose`` as a session stops its own (stdin closed,
then the escalation), in parallel: the registry owns what it started until a session takes
it, so it is entered around the bridge (``async with EarlyStarts() as early``).

Nothing here imports the SDK (``tests/test_layers.py`` checks).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING

import anyio
import anyio.abc

from agentty_tui.bridge.child import spawn, stop
from agentty_tui.bridge.expand import ExpansionError, expand_spec
from agentty_tui.bridge.inherited import Inherited
from agentty_tui.bridge.reaper import session_token
from agentty_tui.config.trust import TrustGate
from agentty_tui.model import PluginConfig, ServerConfig, StdioSpec

if TYPE_CHECKING:
    from agentty_tui.config.workspace import Workspace

__all__ = ["EarlyStart", "EarlyStarts", "loaded_with_version", "wanted_servers"]


def loaded_with_version(workspace: Workspace) -> tuple[object | None, PluginConfig]:
    """``workspace.load()`` (blocking) with the fingerprint its files had
    (``Workspace.version()``); ``None`` for the fingerprint when it moved while they were
    read (an edit meanwhile, or files the load found to watch): the config is then not kept
    for a bridge, which reads the files itself."""
    before = workspace.version()
    config = workspace.load()
    return (before if workspace.version() == before else None), config


def wanted_servers(config: PluginConfig, gated: Mapping[str, bool]) -> dict[str, ServerConfig]:
    """The servers of ``config`` that should run: enabled, valid, and not held back."""
    return {
        server.name: server
        for server in config.servers
        if not server.disabled and server.problem is None and not gated[server.name]
    }


@dataclass(frozen=True, slots=True)
class EarlyStart:
    """One process started ahead of its session."""

    name: str
    """The server's config key."""
    spec: StdioSpec
    """What was started: the entry's spec expanded and placed, as the session makes it."""
    environment: Mapping[str, str]
    """The inherited variables it was started with (the entry's own come on top)."""
    process: anyio.abc.Process
    """The running process, its three pipes unread so far."""
    token: str
    """Its spawn's ``SESSION_VARIABLE`` token (what the reaper finds its descendants by)."""


class EarlyStarts:
    """The processes started before their sessions, by server name, until taken or stopped."""

    def __init__(self, inherited: Inherited | None = None) -> None:
        """``inherited``: the environment and folder the servers start from (default: this
        process's), the bridge's own."""
        self.inherited = inherited or Inherited()
        """What the servers are started from: the bridge that takes them must use the same."""
        self._waiting: dict[str, EarlyStart] = {}
        self._closed = False
        self._loaded: tuple[object, PluginConfig] | None = None

    def keep_loaded(self, version: object, config: PluginConfig) -> None:
        """Keep the config these starts were made from, with the fingerprint its files had
        (``Workspace.version()``), for the bridge that takes them: it reads the files again
        only when the fingerprint moved (a large ``~/.claude.json`` is parsed once)."""
        self._loaded = (version, config)

    def take_loaded(self, version: object) -> PluginConfig | None:
        """The kept config, once, when ``version`` is still its files' fingerprint; else
        ``None`` (the caller loads them)."""
        kept, self._loaded = self._loaded, None
        if kept is None or kept[0] != version:
            return None
        return kept[1]

    @property
    def waiting(self) -> tuple[str, ...]:
        """The servers whose process is started and not taken yet."""
        return tuple(self._waiting)

    def process(self, name: str) -> anyio.abc.Process | None:
        """The process started for server ``name`` while no session has taken it."""
        found = self._waiting.get(name)
        return None if found is None else found.process

    async def start(self, config: PluginConfig, trust: TrustGate) -> tuple[str, ...]:
        """Start each stdio server ``config`` would run under ``trust``; returns their names.

        A server that cannot be started here (an unset variable, a missing folder or command)
        is left to its session, which fails the same way and says why.
        """
        gated = {server.name: trust.gated(config, server) for server in config.servers}
        started = []
        for server in wanted_servers(config, gated).values():
            if await self.start_one(server):
                started.append(server.name)
        return tuple(started)

    async def start_one(self, server: ServerConfig) -> bool:
        """Start ``server``'s process if it is a stdio server that can start; whether it did."""
        if self._closed or not isinstance(server.spec, StdioSpec) or server.name in self._waiting:
            return False
        try:
            expanded = expand_spec(server.spec, self.inherited.environ)
        except ExpansionError:
            return False
        assert isinstance(expanded, StdioSpec)
        spec = self.inherited.placed(expanded)
        if spec.cwd is not None and not await anyio.Path(spec.cwd).is_dir():
            return False
        environment = self.inherited.server_environment()
        token = session_token()
        try:
            process = await spawn(spec, token, environment)
        except OSError:
            return False
        self._waiting[server.name] = EarlyStart(server.name, spec, environment, process, token)
        return True

    def take(self, name: str, spec: StdioSpec, environment: Mapping[str, str]) -> EarlyStart | None:
        """The process started for ``name`` if it is what ``spec`` and ``environment`` would
        start (then it is the caller's to stop); ``None`` when there is none, or it differs."""
        found = self._waiting.get(name)
        if found is None or found.spec != spec or dict(found.environment) != dict(environment):
            return None
        del self._waiting[name]
        return found

    async def aclose(self) -> None:
        """Stop every process no session took, all at once (shielded: a cancelled caller
        still leaves none behind); nothing is started or taken afterwards."""
        self._closed = True
        left, self._waiting = list(self._waiting.values()), {}
        with anyio.CancelScope(shield=True):
            async with anyio.create_task_group() as group:
                for early in left:
                    group.start_soon(_stop_untaken, early)

    async def __aenter__(self) -> EarlyStarts:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


async def _stop_untaken(early: EarlyStart) -> None:
    """Stop a process no session took (it never spoke to us: the short grace)."""
    await stop(early.process, early.token, None, spoke=False)
