"""The gateway daemon: one process a user that owns the bridges, shared by every attached host.

``run_daemon`` listens on the user's socket (``rendezvous``). Each ``agentty-tui serve
--shared`` a host starts attaches over it (``attach``): it sends one line, its ``Attachment``
(the folder it runs in or the file it names, the host, trust, wait, its environment), the
daemon answers one line (``ok``, or what is wrong), and from then on the connection carries
the host's MCP messages, served by a ``HostServer`` as in-process ``serve`` does. Hosts
attached for the same workspace (the same project, or the same file) whose servers would see
the same of their environments (``daemon.sharing``) share one ``Bridge``, which starts its servers
as the first of them would have: each server connection runs once for all of them.

A picker attaches the same way, its attachment saying ``picker``; from the ``ok`` on, the
connection carries the picker's link (``picker.link``, served by ``daemon.picker_service``): the
snapshots of a bridge of its workspace (one already open, whichever host opened it: the
picker starts no process of its own), the hosts attached for that workspace and what each
lists, and the operations the picker asks. ``registry`` lists every host and picker attached
(``status``); ``asks`` asks the newest picker of a workspace what its servers ask that no
call owns, or that a host's call cannot answer (``daemon.picker_asks``). A ``serve --http --shared``
attaching (its attachment carries a bearer token) hands over its listening socket, which the
daemon serves over the workspace's bridge for as long as the attachment stays
(``daemon.http_handover``).

**A bridge's hosts follow its config.** A bridge runs its servers from the environment of the
host that opened it; when its config changes (the picker, the CLI, an outside edit), the keys
are computed again on the new config: the bridge's from its opener's environment, each host's
from its attachment, and a host whose key now differs (a server added whose ``${VAR}`` has
another value for it) has its connection ended at a moment none of its requests is in flight,
so that its ``serve`` attaches again, to the bridge of its key (``_Daemon._moved``). A picker
stays. **A bridge's failure is its own**: logged by its kind, the bridge dropped (its servers
stopped as it closed), its attachments ended so that they attach again to a new one; the
daemon and its other bridges go on (``_Daemon._kept``).

**Its servers start before the SDK is imported.** The daemon is started by the first host's
``serve --shared``, and what its servers need (the host's environment and folder, its
workspace) comes with that host's attachment; starting their processes needs nothing of the
SDK (``bridge/early.py``). So the daemon imports only what listens and reads attachments; for
a workspace's first attachment it reads the config, starts its stdio servers, and only then
imports the bridge (and with it the SDK) and the host server, which take those processes:
the servers boot while the SDK loads.

The daemon exits, closing every bridge (and so every server), when no host nor picker has
been attached for ``idle`` seconds (``AGENTTY_GATEWAY_IDLE``, default 30), and at once when its
socket's path is gone or another daemon's (``daemon.lifetime``). A peer that runs as another
user is refused before a byte is read from it.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import anyio.abc
from anyio.abc import SocketAttribute

from agentty_tui.bridge.early import EarlyStarts, loaded_with_version
from agentty_tui.bridge.inherited import Inherited
from agentty_tui.config.sources import HOSTS
from agentty_tui.config.trust import TrustGate
from agentty_tui.config.workspace import Workspace
from agentty_tui.errors import AgenttyError, ConfigError
from agentty_tui.gateway.attachment import Attachment, json_object
from agentty_tui.gateway.daemon.lifetime import Lifetime, until_either, until_hung_up
from agentty_tui.gateway.daemon.sharing import sharing_key
from agentty_tui.gateway.picker.link import LineReader, LineWriter
from agentty_tui.gateway.rendezvous import Rendezvous, peer_credentials, peer_uid
from agentty_tui.model import PluginConfig

# What imports the SDK is imported once a workspace's servers are started (the module
# docstring): the bridge, the host server and its streams, the registry, the picker's service.
if TYPE_CHECKING:
    from agentty_tui.bridge import Bridge
    from agentty_tui.gateway.daemon.picker_asks import HostAsks, PickerAsks
    from agentty_tui.gateway.daemon.registry import Attached, HostRegistry

__all__ = [
    "DEFAULT_IDLE",
    "MAX_HEADER",
    "Attachment",
    "daemon_status",
    "idle_setting",
    "run_daemon",
]

_log = logging.getLogger(__name__)

DEFAULT_IDLE = 30.0
"""Seconds the daemon stays with no host attached."""

MAX_HEADER = 1024 * 1024
"""The longest attachment line the daemon reads (it carries the host's environment)."""

HEADER_TIMEOUT = 10.0
"""Seconds a connection may take to say what it wants (its attachment line)."""


def idle_setting(env: Mapping[str, str]) -> float:
    """``AGENTTY_GATEWAY_IDLE`` in seconds (``DEFAULT_IDLE`` when unset or not a number)."""
    try:
        return max(0.0, float(env.get("AGENTTY_GATEWAY_IDLE", DEFAULT_IDLE)))
    except ValueError:
        return DEFAULT_IDLE


_BridgeKey = tuple[str, str, bool, str]
"""Which hosts a bridge serves: their ``Attachment.key`` and their ``sharing_key``."""


@dataclass
class _Opened:
    """One open bridge of the daemon: the key it is found by, what its servers start from
    (the environment and folder of the host that opened it, as the bridge keeps them), and
    how many attachments hold it."""

    key: _BridgeKey
    environ: Mapping[str, str]
    folder: Path
    holders: int = 0
    changed: anyio.Event = field(default_factory=anyio.Event)

    def hold(self, by: int) -> None:
        """Count ``by`` more (or fewer) attachments holding the bridge."""
        self.holders += by
        self.changed.set()
        self.changed = anyio.Event()


class _Daemon:
    """The bridges and the attachments of one daemon."""

    def __init__(self, group: anyio.abc.TaskGroup, lifetime: Lifetime) -> None:
        self._group = group
        # Two bridges may come to have one key (a reload made their environments' views
        # equal): the older one is found by it, the other keeps serving its hosts.
        self._bridges: dict[Bridge, _Opened] = {}
        self._opening = anyio.Lock()
        self.lifetime = lifetime
        """Its connections and attachments, counted for its idle exit."""

    @functools.cached_property
    def registry(self) -> HostRegistry:
        """The attached hosts and pickers (``status``, and what a picker shows); made on first
        use (its module imports the SDK)."""
        from agentty_tui.gateway.daemon.registry import HostRegistry

        return HostRegistry()

    @functools.cached_property
    def asks(self) -> PickerAsks:
        """The attached pickers, asked what servers ask that nobody else answers; made on first
        use (its module imports the SDK)."""
        from agentty_tui.gateway.daemon.picker_asks import PickerAsks

        return PickerAsks()

    async def bridge(self, attachment: Attachment, *, any_view: bool = False) -> Bridge:
        """The bridge of ``attachment``'s workspace, opened on first use; an ``AgenttyError``
        for an attachment from another home. ``any_view`` (a picker): a bridge already open
        for the workspace serves it, whatever its hosts' environments, so that the picker
        shares their servers' processes rather than starting its own."""
        if attachment.home is not None and Path(attachment.home) != Path.home():
            raise AgenttyError(f"this daemon serves the home {Path.home()}, not {attachment.home}")
        if attachment.host is not None and attachment.host not in HOSTS:
            raise AgenttyError(
                f"unknown host {attachment.host!r}; the hosts are {', '.join(HOSTS)}"
            )
        if any_view and (shared := self._open_for(attachment)) is not None:
            return self._held(shared)
        workspace = attachment.workspace()
        environ, folder = attachment.environ(), attachment.folder()
        try:
            version, config = await anyio.to_thread.run_sync(loaded_with_version, workspace)
        except ConfigError:  # the bridge says what is wrong with it
            version, config = None, PluginConfig()
        # One bridge (one process per server) for every host whose servers would see the same.
        key = (*attachment.key(), sharing_key(config, environ, folder, Path.home()))
        async with self._opening:
            # A host may have opened the workspace's bridge while this one waited for the lock
            # (its servers' start and the SDK's import take a while): a picker takes that one.
            if any_view and (shared := self._open_for(attachment)) is not None:
                return self._held(shared)
            known = next((b for b, opened in self._bridges.items() if opened.key == key), None)
            if known is None:
                # Its stdio servers first (the daemon's first bridge: before the SDK is
                # imported), then the bridge, which takes them and owns what it does not take.
                early = EarlyStarts(Inherited(environ, folder))
                if version is not None:
                    early.keep_loaded(version, config)  # the bridge reads the files once
                try:
                    await early.start(config, TrustGate(everything=attachment.trust))
                    known = await self._group.start(self._kept, workspace, attachment.trust, early)
                except BaseException:
                    await early.aclose()
                    raise
                known.set_elicitation(*self.asks.for_bridge(attachment.key()))
                self._bridges[known] = _Opened(key, environ, folder)
            return self._held(known)

    def _held(self, bridge: Bridge) -> Bridge:
        """``bridge``, counted as held by one more attachment until ``_let_go``. Counted with
        no wait between the look-up and the count: a bridge closing for want of holders is
        taken out of ``_bridges`` in one step too (``_until_unheld``), so it is never handed
        out as it closes."""
        self._bridges[bridge].hold(1)
        return bridge

    def _let_go(self, bridge: Bridge) -> None:
        """One attachment less holds ``bridge`` (gone already when it failed: nothing)."""
        if (opened := self._bridges.get(bridge)) is not None:
            opened.hold(-1)

    async def _until_unheld(self, bridge: Bridge) -> None:
        """Return once ``bridge`` has been held by no attachment for the idle time, taken out
        of ``_bridges`` (the caller closes it, stopping its servers): a workspace whose hosts
        all left, or a bridge its hosts were moved off, stops its servers as the daemon itself
        would, while the daemon serves other workspaces."""
        async with self._opening:  # the bridge's opener counts itself first
            opened = self._bridges[bridge]
        while True:
            changed = opened.changed
            if opened.holders > 0:
                await changed.wait()
                continue
            with anyio.move_on_after(self.lifetime.idle):
                await changed.wait()
                continue
            async with self._opening:  # no attachment is handed it meanwhile
                if opened.holders == 0 and opened.changed is changed:
                    del self._bridges[bridge]
                    return

    def _open_for(self, attachment: Attachment) -> Bridge | None:
        """A bridge already open for ``attachment``'s workspace, whatever its environment."""
        wanted = attachment.key()
        return next((b for b, opened in self._bridges.items() if opened.key[:3] == wanted), None)

    async def _kept(
        self,
        workspace: Workspace,
        trust: bool,
        early: EarlyStarts,
        *,
        task_status: anyio.abc.TaskStatus[Bridge] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        """A bridge on ``workspace``, live, until no attachment has held it for the idle time
        (``_until_unheld``) or the daemon ends (opened and closed in this one
        task, as its servers' task groups require), taking the processes ``early`` started (and
        stopping, as it closes, those it did not take); its hosts follow each change of its
        config (``_follow``).

        A failure of the bridge once open ends it alone, not the daemon (this task runs in the
        daemon's task group): it is logged by its kind only (its text may hold what a server
        or the config said), its servers are stopped as it closes, and it is dropped, its hosts
        and pickers ended: their ``serve`` (or picker) attaches again, to a bridge opened anew.
        """
        from agentty_tui.bridge import Bridge  # the SDK, once the servers are started

        bridge = Bridge(workspace, trust=trust, early=early)
        opened = False
        try:
            async with bridge, anyio.create_task_group() as group:
                await group.start(bridge.watch)
                group.start_soon(self._follow, bridge)
                task_status.started(bridge)
                opened = True
                await self._until_unheld(bridge)
                group.cancel_scope.cancel()  # its watch and its hosts' checks end with it
        except Exception as error:
            if not opened:
                raise  # the attachment that opens it is told, as of any bridge that fails to open
            known = self._bridges.get(bridge)
            where = known.key[1] if known is not None else "?"
            _log.error(
                "the bridge of %s failed (%s): its servers are stopped, its hosts attach again",
                where,
                _failure_kinds(error),
            )
        finally:
            if opened:
                self._drop(bridge)

    def _drop(self, bridge: Bridge) -> None:
        """Forget ``bridge`` (closed) and end its attachments at once: each attaches again."""
        self._bridges.pop(bridge, None)
        for entry in self.registry.of_bridge(bridge):
            entry.end()

    async def _follow(self, bridge: Bridge) -> None:
        """Check the bridge's hosts after each change of its config (``_moved``)."""
        seen: PluginConfig | None = None
        async for _snapshot in bridge.updates():
            if bridge.config is not seen:
                seen = bridge.config
                await self._moved(bridge, seen)

    async def _moved(
        self, bridge: Bridge, config: PluginConfig, only: Attached | None = None
    ) -> None:
        """Key ``bridge`` anew on ``config``, and move its hosts whose servers would now see
        otherwise of their environment (a server added with a ``${VAR}`` of theirs).

        The bridge starts every server from the environment of the host that opened it (kept
        with the bridge, whether that host is still attached or not): its key is that one's,
        on the new config. A host whose key on it differs has its connection ended at a
        moment none of its requests is in flight (``Attached.end``), so its ``serve``
        attaches again, to the bridge of its key (opened for it if none is). A picker stays:
        it is served any bridge of its workspace. ``only``: that host alone (one listed
        after the bridge's config changed since the host was given it)."""
        async with self._opening:  # no bridge is opened or looked up meanwhile
            opened = self._bridges.get(bridge)
            if opened is None:
                return  # dropped meanwhile
            entries = [
                entry
                for entry in self.registry.of_bridge(bridge)
                if not entry.picker and only in (None, entry)
            ]
            home = Path.home()

            def keys() -> tuple[str, list[str]]:  # in a thread: it looks for each command
                own = sharing_key(config, opened.environ, opened.folder, home)
                return own, [
                    sharing_key(config, e.attachment.environ(), e.attachment.folder(), home)
                    for e in entries
                ]

            own, theirs = await anyio.to_thread.run_sync(keys)
            opened.key = (*opened.key[:3], own)
            for entry, key in zip(entries, theirs, strict=True):
                if key != own:
                    entry.end(at_once=False)

    def status(self) -> dict[str, Any]:
        """What ``agentty-tui status`` shows: this daemon, its workspaces' servers, its hosts."""
        workspaces = [
            {
                "workspace": opened.key[1],
                "servers": [
                    {
                        "name": server.name,
                        "status": server.status,
                        "pid": server.pid,
                        "tools": len(server.tools),
                    }
                    for server in bridge.snapshot.servers
                ],
            }
            for bridge, opened in self._bridges.items()
        ]
        return {
            "pid": os.getpid(),
            "hosts": [entry.status() for entry in self.registry.hosts()],
            "pickers": [entry.status() for entry in self.registry.pickers()],
            "workspaces": workspaces,
        }

    async def handle(self, stream: anyio.abc.SocketStream) -> None:
        """Serve one attaching host over ``stream``; whatever goes wrong with one attachment
        ends it alone, never the daemon (a probe that connects and leaves at once, too)."""
        try:
            await self._serve(stream)
        except Exception:  # one host's trouble: logged, the others go on
            _log.exception("an attachment ended with an error")

    async def _serve(self, stream: anyio.abc.SocketStream) -> None:
        async with stream:
            connection = stream.extra(SocketAttribute.raw_socket)
            uid = peer_uid(connection)
            if uid is not None and uid != os.getuid():
                return  # another user's process: not a byte read, not a byte said
            # Counted from the moment it connects: a host that started this daemon is not
            # left alone for ``idle`` seconds before it is served (a loaded machine), nor
            # while its bridge opens; one that says nothing is dropped after a while. Only
            # an attachment's end restarts the idle time (``daemon.lifetime``).
            with self.lifetime.visit() as visit:
                try:
                    with anyio.fail_after(HEADER_TIMEOUT):
                        line = await _line(stream)
                except (anyio.EndOfStream, anyio.BrokenResourceError, ValueError, OSError):
                    return  # left before it said what it wants (a probe): nothing to answer
                except TimeoutError:
                    return
                if json_object(line).get("query") == "status":
                    await stream.send((json.dumps(self.status()) + "\n").encode())
                    return
                try:
                    attachment = Attachment.of_line(line)
                    picker = attachment.picker
                    bridge = await self.bridge(attachment, any_view=picker)
                    given_on = bridge.config  # the bridge's config as the host is given it
                except (ValueError, OSError, AgenttyError) as error:
                    with contextlib.suppress(OSError, anyio.BrokenResourceError):
                        await stream.send(f"error {error}\n".encode())
                    return
                try:
                    visit.attach()
                    await stream.send(b"ok\n")
                    from agentty_tui.gateway.daemon.registry import Attached, InFlight

                    stdio_host = not picker and attachment.http_token is None
                    entry = Attached(
                        attachment,
                        attachment.key(),
                        bridge,
                        _peer_pid(connection),
                        in_flight=InFlight() if stdio_host else None,
                    )
                    # Until the daemon ends it (``Attached.end``: its bridge failed, or
                    # another bridge is to serve it), or it ends itself.
                    with self.registry.listed(entry):
                        # A change of the config the bridge took meanwhile may have been
                        # checked before this host was listed: it is checked now.
                        if not picker and bridge.config is not given_on:
                            await self._moved(bridge, bridge.config, only=entry)
                        await until_either(
                            self._served(stream, connection, attachment, entry), entry.until_ended()
                        )
                finally:
                    self._let_go(bridge)  # its bridge may close once none holds it

    async def _served(
        self,
        stream: anyio.abc.SocketStream,
        connection: Any,
        attachment: Attachment,
        entry: Attached,
    ) -> None:
        """Serve an accepted attachment, ``entry``, over ``stream`` until it ends: a picker's
        link, a ``serve --http --shared``'s listener, or a stdio host's MCP messages."""
        bridge = entry.bridge
        if entry.picker:
            from agentty_tui.gateway.daemon.picker_service import serve_picker

            reader, writer = LineReader(stream), LineWriter(stream)
            await serve_picker(bridge, entry.key, self.registry, reader, writer, self.asks)
            return
        elsewhere = self.asks.for_host(entry.key, entry.host, entry.workspace)
        if attachment.http_token is not None:  # serve --http --shared
            await _serve_http(stream, bridge, attachment, elsewhere)
            return
        from agentty_tui.gateway.host.server import HostServer
        from agentty_tui.gateway.stdio.pipe import message_streams

        descriptor = connection.fileno()
        async with message_streams(descriptor, descriptor) as (read, write):
            if entry.in_flight is not None:  # counted: it is moved when none is in flight
                read, write = entry.in_flight.counted(read, write)
            server = HostServer(
                bridge,
                attachment.host,
                wait=attachment.wait,
                offers=bridge,
                elsewhere=elsewhere,
            )
            await until_either(server.serve(read, write), until_hung_up(connection))


async def _serve_http(
    stream: anyio.abc.SocketStream,
    bridge: Bridge,
    attachment: Attachment,
    elsewhere: HostAsks,
) -> None:
    """Serve the HTTP listener a ``serve --http --shared`` hands over (``daemon.http_handover``);
    its hosts' calls ask the workspace's attached picker what they cannot answer
    (``elsewhere``), as a stdio host's do."""
    # Imported here: uvicorn is loaded only by a daemon that serves HTTP.
    from agentty_tui.gateway.daemon.http_handover import serve_handed_listener

    await serve_handed_listener(stream, bridge, attachment, elsewhere)


def _peer_pid(connection: Any) -> int | None:
    """The attaching process's id, as the kernel says (``None`` where it cannot)."""
    return peer_credentials(connection)[0]


def _failure_kinds(error: BaseException) -> str:
    """The kinds of the exceptions ``error`` is made of (a task group's are grouped), without
    their text: what a bridge's failure is logged as."""
    if isinstance(error, BaseExceptionGroup):
        return ", ".join(sorted({_failure_kinds(inner) for inner in error.exceptions}))
    return type(error).__name__


async def _line(stream: anyio.abc.SocketStream) -> bytes:
    """The first line ``stream`` sends (the peer sends nothing else before the answer)."""
    data = b""
    while not data.endswith(b"\n"):
        chunk = await stream.receive(MAX_HEADER)
        data += chunk
        if len(data) > MAX_HEADER:
            raise ValueError(f"an attachment line longer than {MAX_HEADER} bytes")
    return data


async def run_daemon(place: Rendezvous, idle: float = DEFAULT_IDLE) -> int:
    """Listen at ``place`` until no host has been attached for ``idle`` seconds; the exit
    status (0; 0 too when another daemon already listens there)."""
    if await _answers(place.socket):
        return 0
    place.socket.unlink(missing_ok=True)  # a daemon that died left it: nobody listens
    listener = await anyio.create_unix_listener(place.socket)
    lifetime = Lifetime(idle, place.socket)
    place.pid.write_text(f"{os.getpid()}\n")
    try:
        async with anyio.create_task_group() as group:
            daemon = _Daemon(group, lifetime)
            group.start_soon(listener.serve, daemon.handle, group)
            why = await lifetime.until_leaving()
            _log.info("the gateway daemon leaves: %s", why)
            _leave(place, lifetime)  # first: a host that comes now starts a new daemon
            # Every attachment ends with it (their serve finds the daemon at the socket, or
            # starts one), then every bridge closes, stopping its servers.
            group.cancel_scope.cancel()
    finally:
        _leave(place, lifetime)  # on a signal too: no host finds the socket of a dead daemon
    return 0


def _leave(place: Rendezvous, lifetime: Lifetime) -> None:
    """Take this daemon's socket and pid file away, unless they are already another's (a
    daemon started once this one could no longer be reached, or stopped listening)."""
    with contextlib.suppress(OSError, ValueError):
        if lifetime.reachable():
            place.socket.unlink(missing_ok=True)
        if int(place.pid.read_text()) == os.getpid():
            place.pid.unlink(missing_ok=True)


async def _answers(path: Path) -> bool:
    """Whether a daemon listens at ``path``."""
    try:
        stream = await anyio.connect_unix(path)
    except OSError:
        return False
    await stream.aclose()
    return True


async def daemon_status(place: Rendezvous) -> dict[str, Any] | None:
    """What the user's daemon says of itself (``_Daemon.status``), or ``None`` when none
    answers at ``place``."""
    try:
        stream = await anyio.connect_unix(place.socket)
    except OSError:
        return None
    async with stream:
        await stream.send(b'{"query": "status"}\n')
        data = b""
        with contextlib.suppress(anyio.EndOfStream):
            while not data.endswith(b"\n"):
                data += await stream.receive()
    answer = json_object(data)
    return answer or None
