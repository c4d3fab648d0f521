"""``agentty-tui serve --http --shared``: the HTTP gateway served by the user's daemon.

The process the user (or a host) runs binds the port itself (``http.loopback.listen_socket``: a
taken port is said before a daemon is even looked for) and reads or makes the bearer token
(``http.token``), then attaches to the daemon as ``serve --shared`` does
(``attach.attach_to_daemon``, which starts one if none answers) with an ``Attachment`` that
carries the token, and hands the daemon the listening socket (``daemon.http_handover``). The daemon
serves the hosts' requests itself, over the bridge its stdio hosts and the picker share: no
byte of MCP passes through this process, which imports neither the SDK nor uvicorn.

It says where the gateway is once the daemon listens, then holds the attachment until a
signal: it then tells the daemon (its end of the connection shut), which ends the sessions and
closes its copy of the socket, and waits for that (at most ``STOP_WAIT`` seconds) before it
leaves, so that the port is free once the process is gone. A daemon that goes away meanwhile
(killed, crashed) is replaced at once: a new one is started and handed the same socket (this
process kept it bound: the kernel queues the hosts' new connections meanwhile), so hosts find
the same port and token. The old daemon's open streams are lost, but not its 2025-era
sessions: the daemon says each one it opens and ends on the attachment's connection, this
process keeps them (``http.kept_sessions``) and hands them to the new daemon in its
``Attachment``, which takes each up when its host's next request names it. It keeps them in
the port's sessions file too, which it reads when it starts: a ``serve --http --shared`` (or
``serve --http``) restarted on the same port hands its first daemon the sessions of the one
before.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import socket
import sys
from collections.abc import Mapping
from typing import TextIO

import anyio
import anyio.abc
from anyio.streams.buffered import BufferedByteReceiveStream

from agentty_tui.errors import AgenttyError
from agentty_tui.gateway.attachment import Attachment
from agentty_tui.gateway.http.kept_sessions import MAX_LINE, KeptSessions, sessions_path
from agentty_tui.gateway.http.loopback import HANDOVER, LISTENING
from agentty_tui.gateway.rendezvous import Rendezvous
from agentty_tui.gateway.stdio.shared import ATTEMPTS, attach_to_daemon

__all__ = ["STOP_SIGNALS", "STOP_WAIT", "attach_http"]

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
"""The signals that end ``serve --http --shared`` in order (as ``shutdown`` ends the app)."""

STOP_WAIT = 10.0
"""Seconds a stopping ``serve --http --shared`` waits for the daemon to close the listener."""


async def attach_http(
    attachment: Attachment,
    place: Rendezvous,
    listener: socket.socket,
    announcement: str,
    out: TextIO | None = None,
    env: Mapping[str, str] | None = None,
) -> int:
    """Have the daemon at ``place`` serve ``listener`` for ``attachment`` until a signal; say
    ``announcement`` on ``out`` (stdout) once it listens. The exit status: 128 + the signal's
    number (an ``AgenttyError`` when the daemon refuses). ``env``: where the sessions file is
    (``os.environ``)."""
    port = int(listener.getsockname()[1])
    sessions = KeptSessions(sessions_path(os.environ if env is None else env, port))
    stopped: list[signal.Signals] = []
    stop = anyio.Event()
    failure: AgenttyError | None = None
    async with anyio.create_task_group() as group:
        await group.start(_signals, stopped, stop)
        try:
            said = sys.stdout if out is None else out
            await _hold(attachment, place, listener, stop, said, announcement, sessions)
        except AgenttyError as error:  # raised below, not wrapped in the group's exceptions
            failure = error
        group.cancel_scope.cancel()
    if failure is not None:
        raise failure
    received = stopped[0]
    if received != signal.SIGINT:
        with contextlib.suppress(OSError):
            print(f"agentty-tui: stopped by {received.name}", file=sys.stderr, flush=True)
    return 128 + int(received)


async def _hold(
    attachment: Attachment,
    place: Rendezvous,
    listener: socket.socket,
    stop: anyio.Event,
    out: TextIO,
    announcement: str,
    sessions: KeptSessions,
) -> None:
    """Have a daemon serve ``listener`` until ``stop``, a new one whenever one goes away (handed
    the ``sessions`` the one before had open, and each daemon's kept in them)."""
    announced = False
    failures = 0
    while not stop.is_set():
        kept = dataclasses.replace(attachment, http_sessions=sessions.table() or None)
        stream = await attach_to_daemon(kept, place)
        async with stream:
            replies = BufferedByteReceiveStream(stream)
            if not await _hand_over(stream, replies, listener):
                failures += 1  # the daemon went away as it was handed the socket
                if failures >= ATTEMPTS:
                    raise AgenttyError(f"the gateway daemon at {place.socket} went away")
                continue
            failures = 0
            if not announced:
                _say(out, announcement)
                announced = True
            await _until_daemon_ends_or(stop, replies, sessions)
            if stop.is_set():
                await _close_and_wait(stream)


async def _signals(
    stopped: list[signal.Signals],
    stop: anyio.Event,
    *,
    task_status: anyio.abc.TaskStatus[None],
) -> None:
    """Set ``stop`` at the first of ``STOP_SIGNALS`` (kept in ``stopped``); later ones are
    ignored while the way out runs."""
    with anyio.open_signal_receiver(*STOP_SIGNALS) as received:
        task_status.started()
        async for signum in received:
            if not stopped:
                stopped.append(signal.Signals(signum))
                stop.set()


async def _hand_over(
    stream: anyio.abc.UNIXSocketStream,
    replies: BufferedByteReceiveStream,
    listener: socket.socket,
) -> bool:
    """Send ``listener`` to the daemon; whether it listens on it (``False``: the daemon went
    away; an ``AgenttyError`` with its reason when it refused it). ``replies``: what the daemon
    says on ``stream``, read a line at a time (its sessions' lines may follow at once)."""
    try:
        await stream.send_fds(HANDOVER, [listener.fileno()])
        answer = await replies.receive_until(b"\n", 4096) + b"\n"
    except (OSError, anyio.EndOfStream, anyio.IncompleteRead, anyio.BrokenResourceError):
        return False
    except anyio.DelimiterNotFound:
        answer = b"error an answer longer than a line"
    if answer == LISTENING:
        return True
    said = answer.decode("utf-8", "replace").strip().removeprefix("error ")
    raise AgenttyError(f"the gateway daemon refused the listener: {said}")


async def _until_daemon_ends_or(
    stop: anyio.Event, replies: BufferedByteReceiveStream, sessions: KeptSessions
) -> None:
    """Until the daemon's end of the connection (``replies``) closes, or ``stop`` is set; what it
    says meanwhile (the sessions it opens and ends) goes into ``sessions``."""
    async with anyio.create_task_group() as group:

        async def stopping() -> None:
            await stop.wait()
            group.cancel_scope.cancel()

        group.start_soon(stopping)
        ended = (anyio.EndOfStream, anyio.IncompleteRead, anyio.BrokenResourceError, OSError)
        with contextlib.suppress(*ended):
            while True:
                try:
                    sessions.heard(await replies.receive_until(b"\n", MAX_LINE))
                except anyio.DelimiterNotFound:  # not a line of ours: kept no more
                    while True:
                        await replies.receive()
        group.cancel_scope.cancel()


async def _close_and_wait(stream: anyio.abc.SocketStream) -> None:
    """Tell the daemon the listener is done (end of our side), and wait until it closed it
    (its side ends), at most ``STOP_WAIT`` seconds."""
    with anyio.move_on_after(STOP_WAIT, shield=True):
        with contextlib.suppress(OSError, anyio.BrokenResourceError):
            await stream.send_eof()
        with contextlib.suppress(anyio.EndOfStream, anyio.BrokenResourceError, OSError):
            while True:
                await stream.receive()


def _say(out: TextIO, text: str) -> None:
    """``text`` on ``out``, whoever reads it or not (a closed pipe is no reason to stop)."""
    with contextlib.suppress(OSError):
        out.write(text)
        out.flush()
