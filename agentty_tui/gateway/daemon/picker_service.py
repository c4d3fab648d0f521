"""The daemon's side of one attached picker: its workspace's snapshots, hosts and operations.

``serve_picker`` runs for as long as the picker stays (the daemon counts it as an attachment,
so its idle exit waits for it). It sends the bridge's every snapshot, the hosts attached for
the picker's workspace with what each one lists now (computed as their ``HostServer`` lists
it: ``ToolsMaker`` through each host's lens, on the snapshot of the bridge serving it; again
whenever a host comes or goes and at each snapshot of the picker's bridge, so a host on another
bridge of the workspace, one with another environment, is seen at the next of those), and the
reports of reloads an outside edit caused; it carries out each operation the picker asks on the
bridge, each in a task of its own (a long tool call holds up no toggle), and answers with the
result (for a change, the revision of the snapshot it made) or the error (``picker.link``).

The picker's tool call is its own: the server's ``notifications/progress`` for it go to the
picker as ``{"progress": id, ...}``, a form or page the server asks during it is asked of this
picker naming the call's tool (``daemon.picker_asks``), and the picker's ``{"cancel": id}`` cancels
it (the server hears ``notifications/cancelled``; no answer follows). While it stays, the
picker is one ``PickerAsks`` may ask (``{"answer": n, ...}`` are its answers).
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Mapping
from typing import Any

import anyio
import anyio.abc
import mcp_types as types
from mcp.client.session import ClientRequestContext
from pydantic import TypeAdapter

from agentty_tui.bridge import Bridge
from agentty_tui.bridge.auth.vault import default_auth_dir
from agentty_tui.bridge.call_hooks import CallHooks
from agentty_tui.bridge.reload_report import ReloadReport
from agentty_tui.errors import AgenttyError
from agentty_tui.gateway.daemon.picker_asks import PickerAsks, PickerChannel
from agentty_tui.gateway.daemon.registry import HostRegistry
from agentty_tui.gateway.host.tools import ToolsMaker
from agentty_tui.gateway.picker.link import (
    LINK_ENDED,
    OPERATIONS,
    LineReader,
    LineWriter,
    error_json,
    report_json,
)
from agentty_tui.gateway.picker.view import AttachedHost
from agentty_tui.model import PluginModel, ServerState, SourceRef
from agentty_tui.specs import SpecField

__all__ = ["serve_picker"]

_log = logging.getLogger(__name__)

_SPEC: TypeAdapter[Any] = TypeAdapter(SpecField)
"""Reads a server spec the picker sends (as ``ServerSpec`` dumps)."""

_REPORTS_KEPT = 16
"""Reload reports held for a picker that reads slowly; more are dropped (each is a notice)."""


async def serve_picker(
    bridge: Bridge,
    key: tuple[str, str, bool],
    registry: HostRegistry,
    reader: LineReader,
    writer: LineWriter,
    asks: PickerAsks | None = None,
) -> None:
    """Serve one picker attached for the workspace ``key`` on ``bridge`` until it leaves;
    ``asks``: where it may be asked what servers ask (``None``: its own calls' alone)."""
    channel = PickerChannel(writer, key)
    with contextlib.ExitStack() as stack:
        if asks is not None:
            stack.enter_context(asks.attached(channel))
        stack.callback(channel.close)
        await _serve(bridge, key, registry, reader, writer, channel)


async def _serve(
    bridge: Bridge,
    key: tuple[str, str, bool],
    registry: HostRegistry,
    reader: LineReader,
    writer: LineWriter,
    channel: PickerChannel,
) -> None:
    hello = {
        "pid": os.getpid(),
        "add_targets": [ref.model_dump(mode="json") for ref in bridge.add_targets()],
        "import_target": str(bridge.import_target()),
        "config_files": [str(path) for path in bridge.config_files()],
    }
    await writer.send({"hello": hello})
    reports, reported = anyio.create_memory_object_stream[ReloadReport](_REPORTS_KEPT)

    def heard(report: ReloadReport) -> None:
        # A picker that reads this slowly misses a notice, no more.
        with contextlib.suppress(anyio.WouldBlock):
            reports.send_nowait(report)

    forget = bridge.add_reload_listener(heard)
    calls: dict[Any, anyio.CancelScope] = {}  # the operations running, by their id
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(_send_snapshots, bridge, writer)
            group.start_soon(_send_hosts, bridge, key, registry, writer)
            group.start_soon(_send_reports, reported, writer)
            while True:
                try:
                    message = await reader.message()
                except LINK_ENDED:
                    break  # the picker left (or said what is not ours to read)
                if "answer" in message:
                    channel.answered(message)
                elif "cancel" in message:
                    running = calls.get(message["cancel"])
                    if running is not None:
                        running.cancel()
                else:
                    group.start_soon(_answer, bridge, message, writer, channel, calls)
            group.cancel_scope.cancel()
    except* (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        pass  # the picker left while something was sent to it
    finally:
        forget()
        reports.close()


async def _send_snapshots(bridge: Bridge, writer: LineWriter) -> None:
    """Send every snapshot; a server state sent before as it is, by its revision alone
    (``{"same": n}``): a toggle sends the one server it changed."""
    sent: dict[str, int] = {}  # each server's revision as last sent

    def part(state: ServerState) -> str:
        if sent.get(state.name) == state.revision:
            return f'{{"same":{state.revision}}}'
        return state.model_dump_json()

    async for model in bridge.updates():
        servers, shadowed = ",".join(map(part, model.servers)), ",".join(map(part, model.shadowed))
        sent = {state.name: state.revision for state in (*model.servers, *model.shadowed)}
        # ``reading`` is a starting picker's own (a bridge's snapshots never have it): left
        # out, so that a picker of the version before it still reads the snapshot.
        top = model.model_dump_json(exclude={"servers", "shadowed", "reading"})
        text = f'{top[:-1]},"servers":[{servers}],"shadowed":[{shadowed}]}}'
        await writer.send_text(f'{{"snapshot":{text}}}')


async def _send_reports(
    reported: anyio.abc.ObjectReceiveStream[ReloadReport], writer: LineWriter
) -> None:
    async with reported:
        async for report in reported:
            await writer.send({"reloaded": report_json(report)})


async def _send_hosts(
    bridge: Bridge, key: tuple[str, str, bool], registry: HostRegistry, writer: LineWriter
) -> None:
    """Send the workspace's attached hosts whenever they, or what they list, change."""
    dirty = anyio.Event()
    makers: dict[int, ToolsMaker] = {}  # each host's, kept while it stays (its projector)

    async def on_snapshots() -> None:
        nonlocal dirty
        async for _model in bridge.updates():
            dirty.set()

    async def on_hosts() -> None:
        while True:
            await registry.changed()
            dirty.set()

    sent: list[dict[str, Any]] | None = None
    async with anyio.create_task_group() as group:
        group.start_soon(on_snapshots)
        group.start_soon(on_hosts)
        while True:
            await dirty.wait()
            dirty = anyio.Event()
            hosts: list[dict[str, Any]] = []
            entries = registry.hosts(key)
            for entry in entries:
                maker = makers.get(id(entry))
                if maker is None:
                    maker = makers[id(entry)] = ToolsMaker(entry.host)
                listed = maker.of(entry.bridge.snapshot).refs.values()
                tools = frozenset((ref.server, ref.tool) for ref in listed)
                hosts.append(
                    AttachedHost(entry.host, entry.workspace, entry.since, tools).to_json()
                )
            for gone in set(makers) - {id(entry) for entry in entries}:
                del makers[gone]
            if hosts != sent:
                await writer.send({"hosts": hosts})
                sent = hosts


async def _answer(
    bridge: Bridge,
    message: Mapping[str, Any],
    writer: LineWriter,
    channel: PickerChannel,
    calls: dict[Any, anyio.CancelScope],
) -> None:
    """Carry out one operation and answer it (an error as its kind and message); one the
    picker cancelled meanwhile is not answered."""
    ident = message.get("id")
    op, args = str(message.get("op")), message.get("args") or {}
    reply: dict[str, Any] = {"reply": ident}
    with anyio.CancelScope() as scope:
        if isinstance(ident, int) and ident not in calls:
            calls[ident] = scope
        try:
            hooks = _call_hooks(ident, args, writer, channel) if op == "call_tool" else None
            reply["result"] = await _operate(bridge, op, args, hooks)
        except AgenttyError as error:
            reply["error"] = error_json(error)
        except Exception as error:  # a malformed request, or a library's surprise: said
            _log.exception("a picker's operation failed")
            said = f"the gateway daemon could not do it: {type(error).__name__}: {error}"
            reply["error"] = error_json(AgenttyError(said))
        finally:
            if calls.get(ident) is scope:
                del calls[ident]
    if not scope.cancelled_caught:
        await writer.send(reply)


PROGRESS_MESSAGE = 1000
"""Characters of a server's progress message sent on to the picker (it shows fewer)."""


def _call_hooks(
    ident: Any, args: Mapping[str, Any], writer: LineWriter, channel: PickerChannel
) -> CallHooks:
    """The hooks of the picker's call ``ident``: its progress sent to the picker (when it
    asked for it), what its server asks during it asked of the picker, naming the tool."""
    server, tool = str(args.get("server")), str(args.get("tool"))

    async def relay(progress: float, total: float | None, message: str | None) -> None:
        said = {
            "progress": ident,
            "value": progress,
            "total": total,
            "message": None if message is None else message[:PROGRESS_MESSAGE],
        }
        with contextlib.suppress(*LINK_ENDED):  # the picker left: its serving ends anyway
            await writer.send(said)

    async def elicitation(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        return await channel.ask(server, params, {"tool": tool})

    async def completed(elicitation_id: str) -> None:
        await channel.completed(server, elicitation_id)

    return CallHooks(
        progress=relay if args.get("progress") is True else None,
        elicitation=elicitation,
        elicitation_complete=completed,
        owner=channel,
    )


def _text(args: Mapping[str, Any], name: str) -> str:
    value = args.get(name)
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a string")
    return value


def _maybe_text(args: Mapping[str, Any], name: str) -> str | None:
    value = args.get(name)
    return None if value is None else _text(args, name)


def _flag(args: Mapping[str, Any], name: str) -> bool:
    value = args.get(name)
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false")
    return value


def _int(args: Mapping[str, Any], name: str) -> int:
    value = args.get(name)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{name} must be an integer")
    return value


def _source(args: Mapping[str, Any]) -> SourceRef | None:
    value = args.get("source")
    return None if value is None else SourceRef.model_validate(value)


def _model(model: PluginModel) -> dict[str, Any]:
    # The revision alone: the snapshot itself goes out on the snapshot stream (the picker waits
    # for it there), not twice (a workspace of 1,000 tools is about 280 KiB of JSON).
    return {"revision": model.revision}


async def _operate(
    bridge: Bridge, op: str, args: Mapping[str, Any], hooks: CallHooks | None = None
) -> dict[str, Any]:
    """Run operation ``op`` with ``args`` on ``bridge`` (a call with ``hooks``); its result
    as the link sends it."""
    if op not in OPERATIONS:
        raise AgenttyError(f"the gateway daemon has no operation {op!r} for a picker")
    host = _maybe_text(args, "host")
    if op == "tool_set_enabled":
        server, tool = _text(args, "server"), _text(args, "tool")
        return _model(
            await bridge.tool_set_enabled(server, tool, _flag(args, "enabled"), host=host)
        )
    if op == "tools_set_enabled":
        server = _text(args, "server")
        return _model(await bridge.tools_set_enabled(server, _flag(args, "enabled"), host=host))
    if op == "server_set_disabled":
        name = _text(args, "name")
        return _model(await bridge.server_set_disabled(name, _flag(args, "disabled"), host=host))
    if op == "tool_set_pinned":
        server, tool = _text(args, "server"), _text(args, "tool")
        return _model(await bridge.tool_set_pinned(server, tool, _flag(args, "pinned")))
    if op == "server_set_priority":
        return _model(await bridge.server_set_priority(_text(args, "name"), _int(args, "priority")))
    if op == "plugin_add":
        spec = _SPEC.validate_python(args.get("spec"))
        return _model(await bridge.plugin_add(_text(args, "name"), spec, source=_source(args)))
    if op == "plugin_update":
        spec = _SPEC.validate_python(args.get("spec"))
        return _model(await bridge.plugin_update(_text(args, "name"), spec))
    if op == "plugin_remove":
        return _model(await bridge.plugin_remove(_text(args, "name"), source=_source(args)))
    if op == "reload":
        return {"report": report_json(await bridge.reload())}
    if op == "restart":
        return _model(await bridge.restart(_text(args, "name")))
    if op == "trust_config":
        return _model(await bridge.trust_config())
    if op == "trust_servers":
        names, shown = args.get("names"), args.get("shown")
        chosen = None if names is None else [str(name) for name in names]
        seen = None if shown is None else {str(k): str(v) for k, v in dict(shown).items()}
        return _model(await bridge.trust_servers(chosen, shown=seen))
    if op == "login_target":
        # The picker logs in itself (its terminal, its browser) and then has the server
        # restarted here: it needs the URL as this bridge's session expands it, and where the
        # tokens are kept so that the session finds them.
        spec, request_timeout = bridge.login_target(_text(args, "name"))
        return {
            "spec": spec.model_dump(mode="json"),
            "request_timeout": request_timeout,
            "auth_dir": str(default_auth_dir()),
        }
    if op == "logout":
        return _model(await bridge.logout(_text(args, "name")))
    # call_tool
    arguments = args.get("arguments")
    if arguments is not None and not isinstance(arguments, dict):
        raise ValueError("a call's arguments are an object")
    result = await bridge.call_tool(_text(args, "server"), _text(args, "tool"), arguments, hooks)
    return {"call": result.model_dump(mode="json", by_alias=True, exclude_none=True)}
