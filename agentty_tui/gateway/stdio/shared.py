"""``agentty-tui serve --shared``: a host's pipe joined to the user's gateway daemon.

``ensure_daemon`` finds the daemon at the user's socket (``rendezvous``), or starts it: under
the rendezvous lock, so that of two hosts starting at once one starts it and the other waits
for it, and detached from the host (its own session, no terminal, no inherited pipe, nobody's
child). ``attach_stdio`` then connects,
sends its ``Attachment``, waits for the daemon's ``ok`` (or prints what is wrong and ends),
then copies bytes both ways until either side ends: the host's stdin to the daemon, the
daemon's answers to the host's stdout (claimed as in-process ``serve`` claims it). The
process holds no server of its own: the daemon runs them, once for every host.

When the daemon's side of the connection ends (the daemon killed or gone, or the daemon ending
this attachment: its bridge failed, or another bridge is to serve the host), ``serve`` attaches
again (starting a daemon if none answers) and tells it the host's session (``attach_stdio``).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

import anyio
import anyio.abc
import anyio.to_thread
from anyio.abc import SocketAttribute

from agentty_tui.errors import AgenttyError
from agentty_tui.gateway.attachment import Attachment, json_object
from agentty_tui.gateway.rendezvous import Rendezvous
from agentty_tui.gateway.stdio.descriptors import MAX_LINE, host_descriptors, read_chunks, write_all
from agentty_tui.runtime_folder import made_private

__all__ = ["START_TIMEOUT", "attach_stdio", "attach_to_daemon", "daemon_argv", "ensure_daemon"]

START_TIMEOUT = 30.0
"""Seconds a new daemon may take to listen (its interpreter and imports, on a loaded machine)."""

_DETACH = (
    "import subprocess, sys; subprocess.Popen(sys.argv[1:], start_new_session=True, "
    "stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)"
)
"""The go-between's program: start the daemon in a session of its own, and exit."""


def daemon_argv() -> list[str]:
    """How a daemon is started: this interpreter, this package."""
    return [sys.executable, "-m", "agentty_tui", "gateway-daemon"]


def ensure_daemon(place: Rendezvous, argv: Sequence[str] | None = None) -> None:
    """Start the user's daemon unless one answers, holding the rendezvous lock, and return
    once it listens (blocking; called before the app's own machinery starts, so that the
    daemon is never one of its children)."""
    argv = daemon_argv() if argv is None else argv
    made_private(place.folder)  # the folder may have been taken since it was found
    with open(place.lock, "a+b") as lock:
        os.fchmod(lock.fileno(), 0o600)
        fcntl.flock(lock, fcntl.LOCK_EX)
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(str(place.socket))
            return  # another host started it meanwhile
        except OSError:
            pass
        finally:
            probe.close()
        # Through a go-between that exits at once: the daemon is nobody's child here, so no
        # app's way out (which ends its own children) ends it with the first host's serve.
        subprocess.run(
            [sys.executable, "-c", _DETACH, *argv],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=True,
            check=True,
            timeout=START_TIMEOUT,
        )
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                probe.connect(str(place.socket))
                return
            except OSError:
                time.sleep(0.02)
            finally:
                probe.close()
        raise AgenttyError(f"the gateway daemon did not listen at {place.socket} in time")


async def _lines(descriptor: int) -> AsyncIterator[bytes]:
    """Each line (its newline kept) the non-blocking ``descriptor`` gives, until its end; a
    line longer than ``MAX_LINE`` is dropped whole."""
    line = bytearray()
    async for chunk in read_chunks(descriptor):
        start = 0
        while (end := chunk.find(b"\n", start)) != -1:
            line += chunk[start : end + 1]
            if len(line) <= MAX_LINE + 1:
                yield bytes(line)
            line.clear()
            start = end + 1
        line += chunk[start:]
    if line.strip() and len(line) <= MAX_LINE:
        yield bytes(line) + b"\n"


class _Session:
    """What the host said that a new daemon must hear again, and what it still waits for."""

    def __init__(self) -> None:
        self.initialize: bytes | None = None
        """The host's ``initialize`` request, as it sent it (2025-era handshake)."""
        self.initialized: bytes | None = None
        """Its ``notifications/initialized``."""
        self.pending: dict[str, Any] = {}
        """The ids of its requests not answered yet (by their JSON text), but its listens."""
        self.listens: dict[str, bytes] = {}
        """Its open ``subscriptions/listen`` requests (2026-07-28), by their id's JSON text:
        a stream whose answer is its end, so one still open is asked again of a new daemon,
        not answered as lost."""
        self.subscribed: dict[str, bytes] = {}
        """Its ``resources/subscribe`` requests the daemon took (2025 era), by URI: asked
        again of a new daemon (under ids of ours, their answers not passed on)."""
        self._subscribing: dict[str, tuple[str, bytes]] = {}
        """Its ``resources/subscribe`` requests not answered yet: (URI, request), by id."""

    def from_host(self, line: bytes) -> None:
        message = json_object(line)
        method = message.get("method")
        if method == "initialize":
            self.initialize = line
        elif method == "notifications/initialized":
            self.initialized = line
        if "id" in message and isinstance(method, str):
            key = json.dumps(message["id"])
            if method == "subscriptions/listen":
                self.listens[key] = line
            else:
                self.pending[key] = message["id"]
            uri = _uri_of(message)
            if method == "resources/subscribe" and uri is not None:
                self._subscribing[key] = (uri, line)
            elif method == "resources/unsubscribe" and uri is not None:
                self.subscribed.pop(uri, None)

    def from_daemon(self, line: bytes) -> None:
        message = json_object(line)
        if "id" in message and "method" not in message:
            key = json.dumps(message["id"])
            self.pending.pop(key, None)
            self.listens.pop(key, None)  # the stream ended (closed, or refused)
            subscribing = self._subscribing.pop(key, None)
            if subscribing is not None and "error" not in message:
                self.subscribed[subscribing[0]] = subscribing[1]

    def lost(self) -> list[bytes]:
        """An error answer for each request the dead daemon took with it."""
        lost = [
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": request,
                    "error": {"code": -32603, "message": RESTARTED},
                }
            ).encode()
            + b"\n"
            for request in self.pending.values()
        ]
        self.pending.clear()
        self._subscribing.clear()  # answered as lost: not subscribed
        return lost

    def changed(self) -> list[bytes]:
        """``tools/list_changed`` as the host hears it: on its connection after a 2025-era
        handshake, and on each listen stream of its that asked for tool changes (2026-07-28:
        stamped with the stream's id, as a server's own notice on it is)."""
        notices = [_CHANGED] if self.initialize is not None else []
        for line in self.listens.values():
            request = json_object(line)
            params = request.get("params")
            wanted = params.get("notifications") if isinstance(params, dict) else None
            if isinstance(wanted, dict) and wanted.get("toolsListChanged") is True:
                meta = {SUBSCRIPTION_ID: request["id"]}
                notice = {"jsonrpc": "2.0", "method": _TOOLS_CHANGED, "params": {"_meta": meta}}
                notices.append(json.dumps(notice).encode() + b"\n")
        return notices


def _uri_of(message: dict[str, Any]) -> str | None:
    params = message.get("params")
    uri = params.get("uri") if isinstance(params, dict) else None
    return uri if isinstance(uri, str) else None


RESTARTED = "agentty's gateway was restarted under this request: ask again"
"""What a request the daemon's connection ended without answering gets (the daemon died, the
host's bridge failed, or the host was moved to another bridge)."""

SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
"""Where a notice on a listen stream names the stream (its request's id), in ``_meta``."""

_TOOLS_CHANGED = "notifications/tools/list_changed"
_CHANGED = b'{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n'


ATTEMPTS = 3
"""How many daemons an attachment tries: one that leaves (idle) as it attaches is replaced."""


async def attach_to_daemon(attachment: Attachment, place: Rendezvous) -> anyio.abc.UNIXSocketStream:
    """A connection to the daemon (started if none answers) that accepted ``attachment``.

    A daemon whose idle time ran out just as the connection came (the connection ended or was
    reset before its answer) is gone: another is started, up to ``ATTEMPTS`` times."""
    for _attempt in range(ATTEMPTS):
        await anyio.to_thread.run_sync(ensure_daemon, place)
        try:
            stream = await anyio.connect_unix(place.socket)
        except OSError:
            continue
        answer = b""
        try:
            await stream.send(attachment.line())
            while not answer.endswith(b"\n") and len(answer) < 4096:
                answer += await stream.receive(4096)
        except (OSError, anyio.EndOfStream, anyio.BrokenResourceError):
            await stream.aclose()
            continue
        if answer.strip() == b"ok":
            return stream
        await stream.aclose()
        said = answer.decode("utf-8", "replace").strip().removeprefix("error ")
        raise AgenttyError(f"the gateway daemon refused: {said}")
    raise AgenttyError(f"the gateway daemon at {place.socket} went away {ATTEMPTS} times")


async def _resume(session: _Session, descriptor: int, replies: AsyncIterator[bytes]) -> None:
    """Tell a new daemon what the host told the old one: its ``initialize`` (whose answer the
    host has had: it is not passed on), its ``notifications/initialized``, and its listen
    streams still open (the new daemon's second acknowledgment of one reaches the host, whose
    client keeps the first), and its resource subscriptions (2025 era: under ids of ours,
    whose answers it does not get)."""
    if session.initialize is not None:
        await _ask(descriptor, replies, session.initialize)
        if session.initialized is not None:
            await write_all(descriptor, session.initialized)
    for number, subscribe in enumerate(session.subscribed.values()):
        request = {**json_object(subscribe), "id": f"agentty-resumed-{number}"}
        await _ask(descriptor, replies, json.dumps(request).encode() + b"\n")
    for listen in session.listens.values():
        await write_all(descriptor, listen)


async def _ask(descriptor: int, replies: AsyncIterator[bytes], request: bytes) -> None:
    """Send ``request`` to the daemon and wait for its answer, which is not passed on."""
    wanted = json.dumps(json_object(request).get("id"))
    await write_all(descriptor, request)
    async for line in replies:
        if json.dumps(json_object(line).get("id")) == wanted:
            break


async def attach_stdio(attachment: Attachment, place: Rendezvous) -> int:
    """Join the process's stdin and stdout to the daemon for ``attachment`` until the host
    ends; the exit status (0; an ``AgenttyError`` for a refused attachment).

    A daemon that goes away meanwhile (killed, crashed) is replaced, and one that ends the
    connection (the host's bridge failed, or another is to serve it) is attached again: the
    host's session is told to the new connection (``_resume``; a new daemon started if none
    answers), each request the old one took with it is answered with an error
    (``RESTARTED``), and the host gets ``tools/list_changed``, in its protocol era
    (``_Session.changed``)."""
    session = _Session()
    stream = await attach_to_daemon(
        attachment, place
    )  # a refusal is said before the host is served
    with host_descriptors() as (wire_in, wire_out):
        to_daemon, from_host = anyio.create_memory_object_stream[bytes](0)
        async with anyio.create_task_group() as group:

            async def read_host() -> None:
                async with to_daemon:
                    async for line in _lines(wire_in):
                        await to_daemon.send(line)  # noted by the relay that sends it on

            group.start_soon(read_host)
            resumed = False
            while not await _relay(session, stream, from_host, wire_out, resumed):
                stream, resumed = await attach_to_daemon(attachment, place), True
            group.cancel_scope.cancel()
    return 0


async def _relay(
    session: _Session,
    stream: anyio.abc.SocketStream,
    from_host: anyio.abc.ObjectReceiveStream[bytes],
    wire_out: int,
    resumed: bool,
) -> bool:
    """Relay between the host and one daemon connection until either ends; whether the host
    did (``False``: the daemon went away, and the host waits for another)."""
    host_done = anyio.Event()
    async with stream:
        connection = stream.extra(SocketAttribute.raw_socket)
        descriptor = connection.fileno()
        replies = _lines(descriptor)
        if resumed:
            await _resume(session, descriptor, replies)
            for line in [*session.lost(), *session.changed()]:
                await write_all(wire_out, line)

        async def upstream() -> None:
            async for line in from_host:
                # Noted as sent only now: a request the host made while no daemon was attached
                # reaches the next one, and is not answered as lost by the one before.
                session.from_host(line)
                if not await write_all(descriptor, line):
                    return
            host_done.set()
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_WR)  # the host is done: so is this connection

        async with anyio.create_task_group() as relay:
            relay.start_soon(upstream)
            async for line in replies:
                session.from_daemon(line)
                if not await write_all(wire_out, line):
                    host_done.set()  # nobody reads the host's pipe any more
                    break
            relay.cancel_scope.cancel()
    return host_done.is_set()
