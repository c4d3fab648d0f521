"""``agentty-tui serve --shared``: a host's pipe joined to the user's gateway daemon.

``ensure_daemon`` finds the daemon at the user's socket (``rendezvous``), or starts it: under
the rendezvous lock, so that of two hosts starting at once one starts it and the other waits
for it, and detached from the host (its own session, no terminal, no inherited pipe, nobody's
child). ``attach_stdio`` then connects,
sends its ``Attachment``, waits for the daemon's ``ok`` (or prints what is wrong and ends),
then copies bytes both ways until either side ends: the host's stdin to the daemon, the
daemon's answers to the host's stdout (claimed as in-process ``serve`` claims it). The
process holds no server of its own: the daemon runs them, once for every host.

When the daemon goes away, the copy ends and so does ``serve``; the host sees its server end.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import subprocess
import sys
import time
from collections.abc import Sequence

import anyio
import anyio.abc
from anyio.abc import SocketAttribute

from agentty_tui.errors import AgenttyError
from agentty_tui.gateway.daemon import Attachment
from agentty_tui.gateway.rendezvous import Rendezvous
from agentty_tui.gateway.stdio import host_descriptors, read_chunks, write_all

__all__ = ["START_TIMEOUT", "attach_stdio", "daemon_argv", "ensure_daemon"]

START_TIMEOUT = 15.0
"""Seconds a new daemon may take to listen."""

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


async def _copy(source: int, target: int) -> None:
    """Bytes from the non-blocking ``source`` to ``target`` until ``source`` ends or
    ``target`` is closed."""
    async for chunk in read_chunks(source):
        if not await write_all(target, chunk):
            return


async def attach_stdio(attachment: Attachment, place: Rendezvous) -> int:
    """Join the process's stdin and stdout to the daemon for ``attachment``; the exit status
    (0 when the host or the daemon ended; an ``AgenttyError`` for a refused attachment)."""
    try:
        stream = await anyio.connect_unix(place.socket)
    except OSError as error:
        raise AgenttyError(f"no gateway daemon answers at {place.socket}: {error}") from None
    async with stream:
        await stream.send(attachment.line())
        answer = b""
        while not answer.endswith(b"\n") and len(answer) < 4096:
            chunk = await stream.receive(4096)
            answer += chunk
        if answer.strip() != b"ok":
            said = answer.decode("utf-8", "replace").strip().removeprefix("error ")
            raise AgenttyError(f"the gateway daemon refused: {said}")
        connection = stream.extra(SocketAttribute.raw_socket)
        descriptor = connection.fileno()
        with host_descriptors() as (wire_in, wire_out):
            async with anyio.create_task_group() as group:

                async def upstream() -> None:
                    await _copy(wire_in, descriptor)
                    with contextlib.suppress(OSError):
                        connection.shutdown(socket.SHUT_WR)  # the host is done: so is its end

                group.start_soon(upstream)
                await _copy(descriptor, wire_out)
                group.cancel_scope.cancel()
    return 0
