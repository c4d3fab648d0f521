"""The stdio transport of one server process, owned end to end.

The SDK's own stdio client hides the process; a supervisor needs it: its PID for diagnostics,
its exit status and stderr tail for error text, the moment its stdout ends (a server killed
from outside must be noticed at once, not at the next request), and its process group, so that
grandchildren it forked are gone with it.

The child runs in a session of its own (its own process group), with stderr appended to a
per-server log file, never to the terminal. No shell is involved: argv goes to exec verbatim.

Here: the transport itself, which reads the pipes and turns lines into messages, and the line
splitting and byte budgets it reads them with. Spawning and stopping the process are in
``child`` (which imports no SDK), the cutting of JSON nested too deep in ``json_depth`` (both
re-exported here, where callers import them). A process started before the SDK was imported
(``early``) is taken over here instead of spawned: the same process, its pipes now read.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import AsyncIterator, Mapping

import anyio
import anyio.abc
import anyio.lowlevel
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from agentty_tui.bridge.child import (
    SILENT_GRACE,
    STDIN_CLOSE_GRACE,
    TERM_GRACE,
    death_signal_argv,
    spawn,
    stop,
)
from agentty_tui.bridge.early import EarlyStart, EarlyStarts
from agentty_tui.bridge.inherited import Inherited
from agentty_tui.bridge.json_depth import MAX_DEPTH, TOO_DEEP, cut_deep_json
from agentty_tui.bridge.logs import ServerLog
from agentty_tui.bridge.notice_rate import NoticeRate
from agentty_tui.bridge.reaper import session_token
from agentty_tui.bridge.transport import ManagedTransport
from agentty_tui.model import StdioSpec
from agentty_tui.secrets import Redactor

__all__ = [
    "MAX_DEPTH",
    "MAX_LINE",
    "SILENT_GRACE",
    "STDIN_CLOSE_GRACE",
    "TERM_GRACE",
    "TOO_DEEP",
    "LineSplitter",
    "RateBudget",
    "StdioTransport",
    "cut_deep_json",
    "death_signal_argv",
    "receive",
    "size_text",
    "spawn",
    "stop",
]


Streams = tuple[
    MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]
]
"""What an mcp ``Transport`` yields: messages from the server, messages to it."""

MAX_LINE = 64 * 1024 * 1024
"""A stdout line longer than this is treated as a broken server, not buffered forever."""

STDERR_DRAIN_WAIT = 0.2
"""After the server stopped, how long its last stderr bytes may take to reach the log."""

NOTICE_WINDOW = 0.1
"""The same ``list_changed`` notice repeated within this many seconds is passed on once, at
the window's end: a server that sends it in a tight loop costs a compare per line, not a
parse and a dispatch."""

STDERR_BUDGET = 4 * 1024 * 1024
"""Bytes of stderr a second read at full speed; a server that writes more is read slower
(its writes wait on the pipe), so a flood costs us a bounded share of a CPU."""

GARBAGE_BUDGET = 256 * 1024
"""The same for stdout lines that are not JSON-RPC, or repeat a change notice just passed
on: garbage is not worth our CPU."""


class StdioTransport(ManagedTransport):
    """An MCP ``Transport`` that runs ``spec`` as a child process in its own process group.

    Enter it (the mcp ``Client`` does) to spawn; exit it to stop the process with the
    escalation stdin close → SIGTERM → SIGKILL, always finishing with a kill of whatever is
    left in the group.
    """

    def __init__(
        self,
        spec: StdioSpec,
        log: ServerLog,
        *,
        shown: StdioSpec | None = None,
        redactor: Redactor | None = None,
        notices: NoticeRate | None = None,
        environment: Mapping[str, str] | None = None,
        early: EarlyStarts | None = None,
        name: str = "",
    ) -> None:
        self.spec = spec
        self.early = early
        """Where a process started before the SDK was imported may wait for this transport:
        the first connection takes the one of server ``name`` if it is what it would spawn."""
        self.name = name
        """The server's config key (what ``early`` knows its processes by)."""
        self.environment = environment
        """The variables the server inherits (``None``: this process's, as the SDK picks)."""
        self.shown = shown or spec
        """The spec as the config writes it, before ``${VAR}`` expansion: what the log shows."""
        self.redactor = redactor
        """What expansion put into ``spec``, removed from the log (the server's stderr too)."""
        self.notices = notices
        """Counts the change notices this transport holds back as repeats (the session's)."""
        self.log = log
        self.process: anyio.abc.Process | None = None
        self.ended = anyio.Event()
        """Set when the server's stdout reached end of file: it exited or closed the pipe."""
        self.gone_by_itself = False
        """True when stdout ended before we began to stop the server (it crashed or quit)."""
        self.stderr_done = anyio.Event()
        """Set when the server's stderr reached end of file (every writer of it is gone)."""
        self.line_too_long = False
        """True when the server sent a stdout line over ``MAX_LINE`` (the connection closed)."""
        self.deep_cuts = 0
        """How many messages had parts nested too deep cut out (see ``cut_deep_json``)."""
        self.token = session_token()
        """Marks every process of this spawn (``SESSION_VARIABLE``): see ``reaper.carriers``."""
        self._stopping = False
        self._spoke = False
        self._notice = b""
        self._notice_at = -math.inf
        self._held: SessionMessage | None = None
        self._stderr_budget = RateBudget(STDERR_BUDGET)
        self._garbage_budget = RateBudget(GARBAGE_BUDGET)

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
        self.log.open_for_child(self.shown, self.redactor)
        self.token = session_token()
        try:
            early, self.early = self._early_start(), None
            if early is not None:
                self.token, self.process = early.token, early.process
            else:
                self.process = await spawn(self.spec, self.token, self.environment)
            self.log.note(f"started pid {self.process.pid}")
            if early is not None:
                self.log.note("(it was started before the SDK was imported, and taken over)")
            read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](0)
            write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](0)
            async with anyio.create_task_group() as group:
                group.start_soon(self._drain_stderr)
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
                        # The last stderr lines belong in the log and the tail; a grandchild that
                        # holds the pipe open must not keep us waiting for them, though.
                        with anyio.move_on_after(STDERR_DRAIN_WAIT):
                            await self.stderr_done.wait()
                    group.cancel_scope.cancel()
        finally:
            self.log.close()  # sums up skipped notes; later notes reopen the file

    def _early_start(self) -> EarlyStart | None:
        """The process ``early`` started for this very spawn, if any (only ever once)."""
        if self.early is None:
            return None
        environment = self.environment
        if environment is None:
            environment = Inherited().server_environment()
        return self.early.take(self.name, self.spec, environment)

    async def _drain_stderr(self) -> None:
        assert self.process is not None and self.process.stderr is not None
        try:
            async for chunk in self.process.stderr:
                self.log.write_stderr(chunk)
                if await self._stderr_budget.spend(len(chunk)):
                    self.log.note_limited(
                        "stderr slow-downs",
                        f"stderr over {size_text(STDERR_BUDGET)}/s: reading it slower",
                    )
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass
        finally:
            self.stderr_done.set()

    async def stderr_drained(self, seconds: float) -> None:
        """Wait (at most ``seconds``) until the child's stderr has reached end of file."""
        with anyio.move_on_after(seconds):
            await self.stderr_done.wait()

    async def _read_stdout(self, sink: MemoryObjectSendStream[SessionMessage | Exception]) -> None:
        assert self.process is not None and self.process.stdout is not None
        stdout = self.process.stdout
        # MAX_LINE is read here, at each connection: a test may lower it.
        splitter = LineSplitter(MAX_LINE)
        try:
            async with sink:
                while True:
                    chunk = await self._next_chunk(stdout, sink)
                    if chunk is None:
                        return
                    lines = splitter.feed(chunk)
                    if lines is None:
                        self.line_too_long = True
                        self.log.note(
                            f"a stdout line of more than {size_text(splitter.limit)}: "
                            "closing the connection"
                        )
                        return
                    if not lines:  # the line goes on: nothing to hand on, no turn to give
                        continue
                    for line in lines:
                        await self._handle_line(line, sink)
                    # Other servers' turn: a pipe that always has data never yields by itself.
                    await anyio.lowlevel.checkpoint()
                    if await self._garbage_budget.spend(0):
                        self.log.note_limited(
                            "stdout slow-downs",
                            f"stdout garbage or repeats over {size_text(GARBAGE_BUDGET)}/s: "
                            "reading it slower",
                        )
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass
        finally:
            self.gone_by_itself = not self._stopping
            self.ended.set()

    async def _next_chunk(
        self,
        stdout: anyio.abc.ByteReceiveStream,
        sink: MemoryObjectSendStream[SessionMessage | Exception],
    ) -> bytes | None:
        """The next stdout chunk (``None`` at end of file); releases a held notice in time."""
        while self._held is not None:
            left = self._notice_at + NOTICE_WINDOW - anyio.current_time()
            with anyio.move_on_after(max(left, 0.0)):
                return await receive(stdout)
            held, self._held = self._held, None
            self._notice_at = anyio.current_time()
            await sink.send(held)
        return await receive(stdout)

    async def _handle_line(
        self, line: bytes, sink: MemoryObjectSendStream[SessionMessage | Exception]
    ) -> None:
        text = line.strip()
        if not text:
            return
        if text == self._notice and anyio.current_time() - self._notice_at < NOTICE_WINDOW:
            # The same change notice again within the window: hold one back for its end. A
            # repeat tells nothing new, so it counts as garbage against the reading budget.
            self._garbage_budget.charge(len(text))
            if self.notices is not None:
                self.notices.notice(anyio.current_time())
            if self._held is None:
                self._held = self._parse(text)
            return
        message = self._parse(text)
        if message is None:
            return
        self._spoke = True
        root = message.message
        if isinstance(root, types.JSONRPCNotification) and root.method.endswith("list_changed"):
            self._notice = text
            self._notice_at = anyio.current_time()
            self._held = None
        await sink.send(message)

    def _parse(self, text: bytes) -> SessionMessage | None:
        """One stdout line as a message; anything that is not JSON-RPC is logged and skipped."""
        try:
            if not text.startswith(b"{"):  # not even an object: spare the parser
                raise ValueError("not a JSON object")
            message = types.jsonrpc_message_adapter.validate_json(text, by_name=False)
        except ValueError as error:
            if "recursion limit" in str(error):
                return self._parse_deep(text)
            self._garbage_budget.charge(len(text))
            self.log.note_limited(
                "stdout lines that are not JSON-RPC",
                f"ignored a stdout line that is not JSON-RPC: {text[:200]!r}",
            )
            return None
        return SessionMessage(message)

    def _parse_deep(self, text: bytes) -> SessionMessage | None:
        """A message nested deeper than the parser allows, with its too-deep parts cut out.

        One tool with an absurd schema must not cost a whole ``tools/list`` answer: the parts
        below ``MAX_DEPTH`` become ``TOO_DEEP`` and the tool listing drops what holds one.
        """
        cut = cut_deep_json(text, MAX_DEPTH)
        try:
            message = types.jsonrpc_message_adapter.validate_json(cut, by_name=False)
        except ValueError:
            self.log.note_limited(
                "stdout lines that are not JSON-RPC",
                f"ignored a stdout line nested too deep to read: {text[:200]!r}",
            )
            return None
        self.deep_cuts += 1
        self.log.note(f"a stdout message nested more than {MAX_DEPTH} levels deep was cut")
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
        if self.process is not None:
            await stop(self.process, self.token, self.log, spoke=self._spoke)


# --- Reading a child's pipes: lines out of chunks, and a per-second allowance of bytes.
#
# The transport reads a server's stdout and stderr itself (not through the SDK) to bound what a
# hostile server costs: a line over a size cap ends the connection instead of growing a buffer,
# and a flood of bytes is read slower instead of taking a whole CPU.


class LineSplitter:
    """Splits a byte stream, chunk by chunk, into newline-terminated lines up to ``limit`` bytes.

    The unfinished line is kept as a list of chunks: each byte is copied once when its line is
    complete, and only new chunks are searched for the newline (linear in the line).
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        """The longest unfinished line accepted, in bytes."""
        self._pending: list[bytes] = []
        self._pending_size = 0

    def feed(self, chunk: bytes) -> list[bytes] | None:
        """The lines ``chunk`` completes (none while a line goes on); None once over the limit."""
        parts = chunk.split(b"\n")
        if self._pending_size + len(parts[0]) > self.limit:
            return None
        if len(parts) == 1:
            self._pending.append(chunk)
            self._pending_size += len(chunk)
            return []
        self._pending.append(parts[0])
        lines = [b"".join(self._pending), *parts[1:-1]]
        self._pending = [parts[-1]]
        self._pending_size = len(parts[-1])
        return lines


class RateBudget:
    """A per-second allowance of bytes; going over it waits for the next second."""

    def __init__(self, per_second: int) -> None:
        self.per_second = per_second
        self._start = -math.inf
        self._used = 0

    def charge(self, amount: int) -> None:
        """Count ``amount`` bytes against the current second."""
        now = anyio.current_time()
        if now - self._start >= 1.0:
            self._start, self._used = now, 0
        self._used += amount

    async def spend(self, amount: int) -> bool:
        """Charge ``amount``; if the second's allowance is gone, wait for the next (True)."""
        self.charge(amount)
        if self._used <= self.per_second:
            return False
        await anyio.sleep(self._start + 1.0 - anyio.current_time())
        self._start, self._used = anyio.current_time(), 0
        return True


async def receive(stream: anyio.abc.ByteReceiveStream) -> bytes | None:
    """The next chunk of ``stream``, or None at its end."""
    try:
        return await stream.receive()
    except anyio.EndOfStream:
        return None


def size_text(count: int) -> str:
    """A byte count for a log note: in MiB from one MiB up."""
    return f"{count / 2**20:g} MiB" if count >= 2**20 else f"{count} bytes"
