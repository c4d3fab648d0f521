"""The picker's ``PluginSource`` when the user's gateway daemon runs: the daemon's bridge, remote.

``RemoteSource.attached`` connects to the daemon's socket (``rendezvous``; the daemon checks
the peer's uid) and attaches as a picker (``Attachment.picker``): from then on the snapshots
it shows are the daemon's bridge's, for the picker's workspace, and its operations are carried
out there (``picker.link``, ``daemon.picker_service``), so the picker starts no server process
of its own and every attached host hears its toggles. It also follows the hosts attached for the
workspace and what each one lists (``picker.view``).

Snapshots arrive as JSON and are made ``PluginModel`` again. Revisions are the daemon's, made
the picker's: a server state the daemon did not change keeps the same local object (the
picker's row and projection caches key on ``(name, revision)``), and a new daemon's revisions
start above the old one's.

When the daemon goes away (killed, crashed), the view says so, every operation waiting for an
answer and every new one fails saying so, and the source tries to attach again every
``RETRY`` seconds: a host's ``serve --shared`` starts a new daemon at its next request, and the
picker then follows it. The picker does not start one itself (it would be the picker's child,
and end with it). A login and an import run here, not in the daemon: a login needs this
terminal and this user's browser (the daemon says which URL its session connects to, and where
it reads tokens; the server is then restarted there), and an import is a write of the config
file the daemon reads (announced: it reloads, and then the picker has it reload once more to
have its report).

What the daemon's servers ask of the picker (``daemon.picker_asks``: a form or page no call owns, a
host's call that cannot answer it, the picker's own call) comes as ``{"ask": n, ...}`` and is
handed to the ``DaemonAsk`` the picker set (``set_daemon_asks``) with who asks; its answer goes
back (a decline without one, or for what does not read as a request); ``{"withdrawn": n}``
takes it away again, and ``{"completed": id}`` of a page accepted here is told to the
completion the picker set. The picker's own call gets its server's progress
(``{"progress": id, ...}``, to the call's ``CallHooks.progress``), and cancelling it sends
``{"cancel": id}``: the daemon cancels the server's request.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import anyio
import anyio.abc
from anyio.streams.memory import MemoryObjectSendStream

from agentty_tui.bridge.reload_report import ReloadReport
from agentty_tui.config.announce import one_announcement
from agentty_tui.config.discover import HostFile
from agentty_tui.config.importing import (
    ImportPlan,
    ImportResult,
    PreparedImport,
    apply_import,
    prepare_import,
)
from agentty_tui.config.store import ConfigStore
from agentty_tui.errors import AgenttyError, OperationError
from agentty_tui.gateway.attachment import Attachment
from agentty_tui.gateway.picker.link import (
    LINK_ENDED,
    LineReader,
    LineWriter,
    error_of,
    report_of,
)
from agentty_tui.gateway.picker.view import AskedBy, AttachedHost, DaemonAsk, DaemonView
from agentty_tui.gateway.rendezvous import Rendezvous
from agentty_tui.model import (
    HttpSpec,
    PluginModel,
    ServerSpec,
    ServerState,
    SourceRef,
    next_revision,
)

if TYPE_CHECKING:  # the picker's first frame comes before the SDK is imported
    import mcp_types as types
    from mcp.shared.dispatcher import ProgressFnT

    from agentty_tui.bridge.auth import LoginUI
    from agentty_tui.bridge.call_hooks import CallHooks
    from agentty_tui.bridge.elicit import ServerElicitation, ServerElicitationComplete

__all__ = ["ATTACH_TIMEOUT", "RETRY", "RemoteSource"]

ATTACH_TIMEOUT = 30.0
"""Seconds the daemon may take to answer an attachment and send the first snapshot (it may
open the workspace's bridge for it)."""

RETRY = 0.5
"""Seconds between two attempts to attach again once the daemon went away."""

GONE = (
    "the gateway daemon went away: the picker shows its last snapshot and attaches again as "
    "soon as a new daemon runs (a host starts one at its next request); q, then agentty-tui "
    "--no-daemon, runs the picker alone"
)
"""What the picker says, and every operation answers, while no daemon is attached."""

LOST_DURING = "the gateway daemon went away before it answered: the change may not have been made"
"""An operation's failure when the daemon went away while it waited."""

T = TypeVar("T")


def _write_import(plan: ImportPlan, store: ConfigStore) -> ImportResult:
    # One announcement for the whole import: the daemon's bridge reloads once, not per server.
    with one_announcement():
        return apply_import(plan, store)


class _Latest(Generic[T]):
    """A value and its changes: a reader that falls behind skips to the latest."""

    def __init__(self, value: T) -> None:
        self.value = value
        self._changed = anyio.Event()

    def set(self, value: T) -> None:
        self.value = value
        self.poke()

    def poke(self) -> None:
        """Wake whoever waits in ``changed`` (the value may be the same)."""
        self._changed.set()
        self._changed = anyio.Event()

    async def changed(self) -> None:
        """Return at the next ``set`` or ``poke``."""
        await self._changed.wait()

    async def follow(self) -> AsyncIterator[T]:
        last: T | None = None
        while True:
            changed = self._changed
            if self.value is not last:
                last = self.value
                yield last
            await changed.wait()


@dataclass(frozen=True, slots=True)
class _Hello:
    """What the daemon says first: itself and the workspace's files."""

    pid: int | None
    add_targets: tuple[SourceRef, ...]
    import_target: Path
    config_files: tuple[Path, ...]

    @classmethod
    def of(cls, value: Mapping[str, Any]) -> _Hello:
        pid = value.get("pid")
        return cls(
            pid=pid if isinstance(pid, int) else None,
            add_targets=tuple(
                SourceRef.model_validate(ref) for ref in value.get("add_targets") or ()
            ),
            import_target=Path(str(value.get("import_target"))),
            config_files=tuple(Path(str(path)) for path in value.get("config_files") or ()),
        )


@dataclass(frozen=True, slots=True)
class _Link:
    """One attachment to one daemon."""

    stream: anyio.abc.SocketStream
    reader: LineReader
    writer: LineWriter
    hello: _Hello


class RemoteSource:
    """A ``PluginSource`` (and a ``DaemonSource``) over the gateway daemon's socket."""

    def __init__(self, attachment: Attachment, place: Rendezvous) -> None:
        """Attach as ``attachment`` (a picker's) at ``place``; ``attached`` does."""
        self._attachment = replace(attachment, picker=True)
        self._place = place
        self._link: _Link | None = None
        self._hello: _Hello | None = None
        self._model = _Latest(PluginModel())
        self._view = _Latest(DaemonView(pid=None, attached=False))
        self._listeners: list[Callable[[ReloadReport], None]] = []
        self._pending: dict[int, MemoryObjectSendStream[dict[str, Any]]] = {}
        self._ids = itertools.count(1)
        self._states: dict[int, ServerState] = {}  # the daemon's revision -> our state
        self._base = 0  # added to the daemon's snapshot revisions (a new daemon starts low)
        self._seen = -1  # the daemon's revision of the newest snapshot taken from this link
        self._group: anyio.abc.TaskGroup | None = None  # where the daemon's asks are answered
        self._asks: DaemonAsk | None = None
        self._asks_done: ServerElicitationComplete | None = None
        self._asking: dict[int, anyio.CancelScope] = {}  # the daemon's asks being answered
        self._progress: dict[int, ProgressFnT] = {}  # the running calls' progress, by op id

    @classmethod
    @asynccontextmanager
    async def attached(
        cls, attachment: Attachment, place: Rendezvous
    ) -> AsyncIterator[RemoteSource | None]:
        """The source, attached with its first snapshot, for as long as the block runs;
        ``None`` when no daemon answers at ``place``; an ``AgenttyError`` when the daemon
        refuses the attachment (saying why)."""
        source = cls(attachment, place)
        link = await source._open_link()
        if link is None:
            yield None
            return
        try:
            async with anyio.create_task_group() as group:
                source._group = group
                group.start_soon(source._keep, link)
                try:
                    yield source
                finally:
                    group.cancel_scope.cancel()
        finally:
            # Outside the cancelled group, shielded: an await in there would be cancelled,
            # and its cancellation would take the place of the block's own exception.
            with anyio.CancelScope(shield=True):
                await source._close()

    # --- the link ------------------------------------------------------------------------

    async def _open_link(self) -> _Link | None:
        """Attach and read up to the first snapshot; ``None`` when no daemon answers."""
        try:
            stream = await anyio.connect_unix(self._place.socket)
        except OSError:
            return None
        try:
            with anyio.fail_after(ATTACH_TIMEOUT):
                await stream.send(self._attachment.line())
                reader = LineReader(stream)
                answer = await reader.line()
                if answer != b"ok":
                    said = answer.decode(errors="replace").removeprefix("error ")
                    raise AgenttyError(
                        f"the gateway daemon refused the picker: {said} "
                        "(agentty-tui --no-daemon runs the picker alone)"
                    )
                hello = _Hello.of((await reader.message()).get("hello") or {})
                self._hello = hello
                link = _Link(stream, reader, LineWriter(stream), hello)
                self._states = {}  # the revisions of another daemon (or none)
                self._base = self._model.value.revision + 1
                self._seen = -1
                self._view.set(DaemonView(pid=hello.pid, hosts=self._view.value.hosts))
                while True:  # until the first snapshot: the picker then shows the daemon's
                    if "snapshot" in await self._take(await reader.message()):
                        break
        except LINK_ENDED as error:
            await stream.aclose()
            raise AgenttyError(f"the gateway daemon did not attach the picker: {error}") from error
        except BaseException:
            await stream.aclose()
            raise
        self._link = link
        return link

    async def _keep(self, link: _Link) -> None:
        """Read the link until it ends; then say so and attach again once a daemon runs."""
        while True:
            try:
                while True:
                    await self._take(await link.reader.message())
            except LINK_ENDED:
                pass  # the daemon went away (or said what is not ours to read): attach again
            await self._lose(link)
            while True:
                await anyio.sleep(RETRY)
                try:
                    found = await self._open_link()
                except AgenttyError as error:  # one that refuses: said, and tried again
                    self._view.set(replace(self._view.value, note=f"{GONE} ({error})"))
                    continue
                if found is not None:
                    link = found
                    break

    async def _lose(self, link: _Link) -> None:
        self._link = None
        await link.stream.aclose()
        for waiting in list(self._pending.values()):
            waiting.close()  # its operation fails saying the daemon went away
        self._pending.clear()
        for asking in self._asking.values():
            asking.cancel()  # that daemon waits for no answer any more
        self._view.set(DaemonView(pid=None, attached=False, note=GONE))
        self._model.poke()  # whoever waits for a snapshot of that daemon waits no more

    async def _close(self) -> None:
        link, self._link = self._link, None
        if link is not None:
            await link.stream.aclose()

    async def _take(self, message: Mapping[str, Any]) -> Mapping[str, Any]:
        """Take in one message of the daemon; the message."""
        if "snapshot" in message:
            model, revision = self._decode(message["snapshot"], stream=True)
            self._seen = max(self._seen, revision)  # before a waiter wakes
            self._show(model)
        elif "hosts" in message:
            hosts = tuple(AttachedHost.of_json(host) for host in message["hosts"])
            self._view.set(replace(self._view.value, hosts=hosts))
        elif "reloaded" in message:
            report = message["reloaded"]
            snapshot, _revision = self._decode(report.get("snapshot"))
            for listener in list(self._listeners):
                listener(report_of(report, snapshot))
        elif isinstance(ident := message.get("reply"), int):
            waiting = self._pending.pop(ident, None)
            if waiting is not None:
                waiting.send_nowait(dict(message))
        elif isinstance(ident := message.get("progress"), int):
            await self._progressed(ident, message)
        elif isinstance(ident := message.get("ask"), int):
            if self._group is not None and self._link is not None:
                self._group.start_soon(self._answer_ask, self._link, ident, message)
        elif isinstance(ident := message.get("withdrawn"), int):
            asking = self._asking.get(ident)
            if asking is not None:
                asking.cancel()
        elif isinstance(done := message.get("completed"), str):
            server, told = message.get("server"), self._asks_done
            if told is not None and isinstance(server, str):
                await told(server, done)
        return message

    async def _progressed(self, ident: int, message: Mapping[str, Any]) -> None:
        """The daemon's ``{"progress": id, ...}`` for the picker's call ``id``: to its hooks."""
        heard = self._progress.get(ident)
        value, total, said = message.get("value"), message.get("total"), message.get("message")
        if heard is None or not isinstance(value, int | float):
            return
        await heard(
            float(value),
            float(total) if isinstance(total, int | float) else None,
            said if isinstance(said, str) else None,
        )

    async def _answer_ask(self, link: _Link, ident: int, message: Mapping[str, Any]) -> None:
        """Answer the daemon's ask ``ident`` with the picker's answer (a decline without a
        handler, or for what is not a request); nothing once it was withdrawn."""
        import mcp_types as types  # the SDK: imported by the first ask, not the first frame
        from pydantic import TypeAdapter, ValidationError

        answer = types.ElicitResult(action="decline")
        handler, server = self._asks, message.get("server")
        with anyio.CancelScope() as scope:
            self._asking[ident] = scope
            try:
                if handler is not None and isinstance(server, str):
                    adapter: TypeAdapter[types.ElicitRequestParams] = TypeAdapter(
                        types.ElicitRequestParams
                    )
                    params = adapter.validate_python(message.get("params"))
                    answer = await handler(AskedBy.of_json(server, message.get("by")), params)
            except ValidationError:
                pass  # not a request we can show: declined
            finally:
                self._asking.pop(ident, None)
        if scope.cancelled_caught or self._link is not link:
            return  # withdrawn, or the daemon that asked went away
        said = answer.model_dump(mode="json", by_alias=True, exclude_none=True)
        with contextlib.suppress(*LINK_ENDED):
            await link.writer.send({"answer": ident, "result": said})

    def _decode(self, value: Any, *, stream: bool = False) -> tuple[PluginModel, int]:
        """The snapshot the link said, with our revisions, and the daemon's revision of it.

        A server state the daemon did not change since it sent it on the snapshot stream
        comes as ``{"same": revision}``, and is the same local object as then (the picker's
        caches key on its revision); a new one gets a revision of this process. ``stream``:
        this is the snapshot stream's, whose states the next one may name as the same."""
        if not isinstance(value, dict):
            raise ValueError("a snapshot is an object")
        known, states = self._states, {}

        def local(entry: Any) -> ServerState:
            if isinstance(entry, dict) and entry.keys() == {"same"}:
                same: ServerState = known[entry["same"]]  # a KeyError ends the link
                states[entry["same"]] = same
                return same
            remote = ServerState.model_validate(entry)
            mine = known.get(remote.revision)
            if mine is None:
                mine = remote.model_copy(update={"revision": next_revision()})
            states[remote.revision] = mine
            return mine

        servers = tuple(map(local, value.get("servers") or ()))
        shadowed = tuple(map(local, value.get("shadowed") or ()))
        top = {key: item for key, item in value.items() if key not in ("servers", "shadowed")}
        remote = PluginModel.model_validate({**top, "servers": (), "shadowed": ()})
        if stream:
            self._states = states  # what the next snapshot of the stream may name
        update = {
            "servers": servers,
            "shadowed": shadowed,
            "revision": self._base + remote.revision,
        }
        return remote.model_copy(update=update), remote.revision

    def _show(self, model: PluginModel) -> PluginModel:
        """Make ``model`` the snapshot unless a newer one is there; the newest."""
        if model.revision > self._model.value.revision:
            self._model.set(model)
        return self._model.value

    async def _ask(
        self, op: str, *, heard: ProgressFnT | None = None, **args: Any
    ) -> dict[str, Any]:
        """Have the daemon carry out ``op``; its result (its error raised as its kind).
        ``heard`` hears the progress the daemon sends for it; cancelling the caller has the
        daemon cancel it."""
        link = self._link
        if link is None:
            raise AgenttyError(GONE)
        ident = next(self._ids)
        answer, answered = anyio.create_memory_object_stream[dict[str, Any]](1)
        self._pending[ident] = answer
        if heard is not None:
            self._progress[ident] = heard
        try:
            await link.writer.send({"id": ident, "op": op, "args": args})
            async with answered:
                reply = await answered.receive()
        except (OSError, anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError):
            raise AgenttyError(LOST_DURING) from None
        except anyio.get_cancelled_exc_class():
            if ident in self._pending:  # no answer yet: the daemon stops it (the server hears)
                with anyio.CancelScope(shield=True), contextlib.suppress(*LINK_ENDED):
                    await link.writer.send({"cancel": ident})
            raise
        finally:
            self._pending.pop(ident, None)
            self._progress.pop(ident, None)
        if "error" in reply:
            raise error_of(reply["error"] or {})
        result = reply.get("result")
        if not isinstance(result, dict):
            raise AgenttyError("the gateway daemon's answer was not understood")
        return result

    async def _changed(self, op: str, **args: Any) -> PluginModel:
        """Have the daemon make a change; the snapshot it made (or a later one), once the
        snapshot stream brought it."""
        link = self._link
        revision = (await self._ask(op, **args)).get("revision")
        if not isinstance(revision, int):
            raise AgenttyError("the gateway daemon's answer was not understood")
        while self._seen < revision:
            if self._link is not link:
                raise AgenttyError(LOST_DURING)
            await self._model.changed()
        return self._model.value

    # --- DaemonSource --------------------------------------------------------------------

    @property
    def daemon(self) -> DaemonView:
        """The daemon as the picker sees it now."""
        return self._view.value

    def daemon_views(self) -> AsyncIterator[DaemonView]:
        """The daemon's view now, then every newer one."""
        return self._view.follow()

    # --- PluginSource --------------------------------------------------------------------

    @property
    def snapshot(self) -> PluginModel:
        """The daemon's latest snapshot of the workspace (the last one, once it went away)."""
        return self._model.value

    def updates(self) -> AsyncIterator[PluginModel]:
        """The current snapshot, then every newer one (a slow reader skips to the latest)."""
        return self._model.follow()

    def add_targets(self) -> tuple[SourceRef, ...]:
        """The files a new server may go to, as the daemon's bridge says."""
        return () if self._hello is None else self._hello.add_targets

    def import_target(self) -> Path:
        """The file an import would write."""
        return Path() if self._hello is None else self._hello.import_target

    def config_files(self) -> tuple[Path, ...]:
        """Every file the workspace's config is read from."""
        return () if self._hello is None else self._hello.config_files

    def add_reload_listener(self, listener: Callable[[ReloadReport], None]) -> Callable[[], None]:
        """Call ``listener`` with the report of every reload an outside edit caused."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    async def plugin_add(
        self, name: str, spec: ServerSpec, *, source: SourceRef | None = None
    ) -> PluginModel:
        """Add a server (the daemon writes it and starts it)."""
        where = None if source is None else source.model_dump(mode="json")
        return await self._changed(
            "plugin_add", name=name, spec=spec.model_dump(mode="json"), source=where
        )

    async def plugin_update(self, name: str, spec: ServerSpec) -> PluginModel:
        """Change how a server is reached."""
        return await self._changed("plugin_update", name=name, spec=spec.model_dump(mode="json"))

    async def plugin_remove(self, name: str, *, source: SourceRef | None = None) -> PluginModel:
        """Remove a server."""
        where = None if source is None else source.model_dump(mode="json")
        return await self._changed("plugin_remove", name=name, source=where)

    async def tool_set_enabled(
        self, server: str, tool: str, enabled: bool, *, host: str | None = None
    ) -> PluginModel:
        """Turn one tool on or off: every attached host hears it."""
        return await self._changed(
            "tool_set_enabled", server=server, tool=tool, enabled=enabled, host=host
        )

    async def tools_set_enabled(
        self, server: str, enabled: bool, *, host: str | None = None
    ) -> PluginModel:
        """Turn every tool of a server on or off."""
        return await self._changed("tools_set_enabled", server=server, enabled=enabled, host=host)

    async def server_set_disabled(
        self, name: str, disabled: bool, *, host: str | None = None
    ) -> PluginModel:
        """Park a server or bring it back."""
        return await self._changed("server_set_disabled", name=name, disabled=disabled, host=host)

    async def tool_set_pinned(self, server: str, tool: str, pinned: bool) -> PluginModel:
        """Pin one tool or unpin it."""
        return await self._changed("tool_set_pinned", server=server, tool=tool, pinned=pinned)

    async def server_set_priority(self, name: str, priority: int) -> PluginModel:
        """Set a server's priority."""
        return await self._changed("server_set_priority", name=name, priority=priority)

    async def reload(self) -> ReloadReport:
        """Have the daemon re-read the config."""
        report = (await self._ask("reload")).get("report") or {}
        snapshot = self._show(self._decode(report.get("snapshot"))[0])
        return report_of(report, snapshot)

    async def restart(self, name: str) -> PluginModel:
        """Start one server again, in the daemon."""
        return await self._changed("restart", name=name)

    async def trust_config(self) -> PluginModel:
        """Trust the config file for the daemon's run."""
        return await self._changed("trust_config")

    async def trust_servers(
        self, names: Sequence[str] | None = None, *, shown: Mapping[str, str] | None = None
    ) -> PluginModel:
        """Trust waiting project servers, on disk."""
        return await self._changed(
            "trust_servers",
            names=None if names is None else list(names),
            shown=None if shown is None else dict(shown),
        )

    async def import_plan(self, source: HostFile) -> PreparedImport:
        """What importing ``source`` into the daemon's import target would do, planned here
        (reading files needs no daemon); nothing is written."""
        store = self._import_store()
        return await anyio.to_thread.run_sync(prepare_import, source, store)

    async def import_servers(self, prepared: PreparedImport) -> tuple[ImportResult, ReloadReport]:
        """Write ``prepared``'s additions here, as the daemon's bridge would (the same store's
        lock and atomic writes, announced to the bridges that read the file), then have the
        daemon reload: its servers start, and the snapshots show them."""
        store = self._import_store()
        if store.path != prepared.target:
            raise OperationError(f"the import was planned for {prepared.target}, not this config")
        result = await anyio.to_thread.run_sync(_write_import, prepared.plan, store)
        return result, await self.reload()

    def _import_store(self) -> ConfigStore:
        if self._hello is None:
            raise AgenttyError(GONE)
        return ConfigStore(self._hello.import_target)

    async def login(self, name: str, ui: LoginUI) -> PluginModel:
        """Log in here (this terminal shows the URL, this user's browser opens it) to the URL
        the daemon's session of ``name`` connects to, keep the tokens where that session reads
        them, then have the daemon restart the server."""
        target = await self._ask("login_target", name=name)
        from agentty_tui.bridge.auth import login  # the SDK's OAuth client: first login only
        from agentty_tui.bridge.auth.vault import FileVault, default_vault

        spec = HttpSpec.model_validate(target.get("spec"))
        timeout = target.get("request_timeout")
        vault = default_vault()
        where = Path(str(target.get("auth_dir") or ""))
        # A daemon started with another XDG_STATE_HOME keeps its files elsewhere: the tokens go
        # where its session looks (a keyring is the same for both).
        if isinstance(vault, FileVault) and where.is_absolute() and where != vault.directory:
            vault = FileVault(where)
        await login(
            spec,
            ui,
            request_timeout=float(timeout) if isinstance(timeout, int | float) else 60.0,
            vault=vault,
        )
        return await self.restart(name)

    async def logout(self, name: str) -> PluginModel:
        """Forget a URL server's tokens, in the daemon, and reconnect it."""
        return await self._changed("logout", name=name)

    async def call_tool(
        self,
        server: str,
        tool: str,
        arguments: dict[str, Any] | None = None,
        hooks: CallHooks | None = None,
    ) -> types.CallToolResult:
        """Call one tool on the daemon's server process: its progress goes to ``hooks``;
        cancelling the caller cancels the daemon's call. What the server asks during it is
        asked through ``set_daemon_asks``' handler (which the daemon tells the call's tool)."""
        progress = hooks.progress if hooks is not None else None
        result = await self._ask(
            "call_tool",
            heard=progress,
            server=server,
            tool=tool,
            arguments=arguments,
            progress=progress is not None,
        )
        import mcp_types  # the SDK's types: imported by the first call, not by the first frame

        return mcp_types.CallToolResult.model_validate(result.get("call"))

    def set_elicitation(
        self,
        handler: ServerElicitation | None,
        completed: ServerElicitationComplete | None = None,
    ) -> None:
        """Nothing: what the daemon's servers ask is asked of the picker through
        ``set_daemon_asks``, told who asks (a host's call, the picker's own, none)."""

    def set_daemon_asks(
        self, ask: DaemonAsk | None, completed: ServerElicitationComplete | None = None
    ) -> None:
        """From now on ``ask`` answers what the daemon asks of this picker (``None``: a
        decline), and ``completed`` hears that a page accepted here is done."""
        self._asks, self._asks_done = ask, completed
