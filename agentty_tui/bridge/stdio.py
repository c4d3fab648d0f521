"""The stdio transport of one server process, owned end to end.

The SDK's own stdio client hides the process; a supervisor needs it: its PID for diagnostics,
its exit status and stderr tail for error text, the moment its stdout ends (a server killed
from outside must be noticed at once, not at the next request), and its process group, so that
grandchildren it forked are gone with it.

The child runs in a session of its own (its own process group), with stderr appended to a
per-server log file, never to the terminal. No shell is involved: argv goes to exec verbatim.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import AsyncIterator

import anyio
import anyio.abc
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.client.stdio import get_default_environment
from mcp.shared.message import SessionMessage

from agentty_tui.bridge.logs import ServerLog
from agentty_tui.bridge.reaper import ProcessTree
from agentty_tui.bridge.transport import ManagedTransport
from agentty_tui.model import StdioSpec

__all__ = ["StdioTransport"]

Streams = tuple[
    MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]
]
"""What an mcp ``Transport`` yields: messages from the server, messages to it."""

STDIN_CLOSE_GRACE = 2.0
"""Seconds a server gets to exit by itself once its stdin is closed (the MCP shutdown rule)."""

SILENT_GRACE = 0.2
"""The same for a server that has not written a message yet: still starting, it has nothing to
save and may not read its stdin for seconds (quitting while it starts must not wait for it)."""

TERM_GRACE = 2.0
"""Seconds between SIGTERM and SIGKILL to the process group."""

MAX_LINE = 64 * 1024 * 1024
"""A stdout line longer than this is treated as a broken server, not buffered forever."""


class StdioTransport(ManagedTransport):
    """An MCP ``Transport`` that runs ``spec`` as a child process in its own process group.

    Enter it (the mcp ``Client`` does) to spawn; exit it to stop the process with the
    escalation stdin close → SIGTERM → SIGKILL, always finishing with a kill of whatever is
    left in the group.
    """

    def __init__(self, spec: StdioSpec, log: ServerLog, *, shown: StdioSpec | None = None) -> None:
        self.spec = spec
        self.shown = shown or spec
        """The spec as the config writes it, before ``${VAR}`` expansion: what the log shows."""
        self.log = log
        self.process: anyio.abc.Process | None = None
        self.ended = anyio.Event()
        """Set when the server's stdout reached end of file: it exited or closed the pipe."""
        self.gone_by_itself = False
        """True when stdout ended before we began to stop the server (it crashed or quit)."""
        self._stopping = False
        self._spoke = False

    @property
    def pid(self) -> int | None:
        """The child's process id once spawned."""
        return self.process.pid if self.process is not None else None

    @property
    def returncode(self) -> int | None:
        """The child's exit status once it has exited."""
        return self.process.returncode if self.process is not None else None

    @contextlib.asynccontextmanager
    async def _connect(self) -> AsyncIterator[Streams]:
        stderr = self.log.open_for_child(self.shown)
        try:
            self.process = await anyio.open_process(
                [self.spec.command, *self.spec.args],
                env=get_default_environment() | dict(self.spec.env),
                cwd=self.spec.cwd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                start_new_session=True,
            )
        finally:
            stderr.close()  # the child holds its own copy of the descriptor
        self.log.note(f"started pid {self.process.pid}")
        read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](0)
        async with anyio.create_task_group() as group:
            group.start_soon(self._read_stdout, read_send)
            group.start_soon(self._write_stdin, write_recv)
            try:
                yield read_recv, write_send
            finally:
                # Shielded: a cancelled caller must not leave the process behind.
                with anyio.CancelScope(shield=True):
                    await self._stop_process()
                    for stream in (read_send, read_recv, write_send, write_recv):
                        await stream.aclose()
                group.cancel_scope.cancel()

    async def _read_stdout(self, sink: MemoryObjectSendStream[SessionMessage | Exception]) -> None:
        assert self.process is not None and self.process.stdout is not None
        buffer = b""
        try:
            async with sink:
                async for chunk in self.process.stdout:
                    buffer += chunk
                    if len(buffer) > MAX_LINE and b"\n" not in buffer:
                        self.log.note("stdout line over the size limit; closing the connection")
                        return
                    *lines, buffer = buffer.split(b"\n")
                    for line in lines:
                        message = self._parse(line)
                        if message is not None:
                            self._spoke = True
                            await sink.send(message)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass
        finally:
            self.gone_by_itself = not self._stopping
            self.ended.set()

    def _parse(self, line: bytes) -> SessionMessage | None:
        """One stdout line as a message; anything that is not JSON-RPC is logged and skipped."""
        text = line.strip()
        if not text:
            return None
        try:
            message = types.jsonrpc_message_adapter.validate_json(text, by_name=False)
        except ValueError:
            self.log.note(f"ignored a stdout line that is not JSON-RPC: {text[:200]!r}")
            return None
        return SessionMessage(message)

    async def _write_stdin(self, source: MemoryObjectReceiveStream[SessionMessage]) -> None:
        assert self.process is not None and self.process.stdin is not None
        try:
            async with source:
                async for item in source:
                    data = item.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await self.process.stdin.send(data.encode() + b"\n")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass

    async def _stop_process(self) -> None:
        self._stopping = True
        process = self.process
        if process is None:
            return
        # Read the tree while the server still runs: once it exits, its children are
        # re-parented and only the record says they were its (a setsid one left the group).
        tree = ProcessTree(process.pid)
        await tree.record()
        if process.stdin is not None:
            with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                await process.stdin.aclose()
        grace = STDIN_CLOSE_GRACE if self._spoke else SILENT_GRACE
        if not await _exited_within(process, grace):
            self.log.note(f"still running {grace:g} s after its input was closed: SIGTERM")
            await tree.record()
            _signal_group(process.pid, signal.SIGTERM)
            tree.send(signal.SIGTERM)
            if not await _exited_within(process, TERM_GRACE):
                _signal_group(process.pid, signal.SIGKILL)
                await _exited_within(process, TERM_GRACE)
        # Grandchildren outlive their parent in the group; nothing of the server may stay.
        _signal_group(process.pid, signal.SIGKILL)
        await tree.record()  # those re-parented meanwhile are still found by their session
        await tree.kill()
        self.log.note(f"stopped pid {process.pid} (exit status {process.returncode})")
        with contextlib.suppress(Exception):
            await process.aclose()


async def _exited_within(process: anyio.abc.Process, seconds: float) -> bool:
    """Poll the exit status: ``wait()`` would also wait for pipes a grandchild holds open."""
    with anyio.move_on_after(seconds):
        while process.returncode is None:  # noqa: ASYNC110 - no event fires on exit
            await anyio.sleep(0.01)
    return process.returncode is not None


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)
