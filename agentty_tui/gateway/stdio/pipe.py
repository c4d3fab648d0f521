"""The host's pipe: the process's stdin and stdout as streams of MCP messages.

What the SDK's ``stdio_server`` does, without its two thread hops per message (it reads and
writes the pipes through worker threads): here both ends are non-blocking descriptors the
event loop waits on, so a call through the gateway costs the host little more than a call
straight to the server (``bench/bench_gateway.py``).

Claimed as the SDK claims them: the protocol is served from private duplicates of
descriptors 0 and 1, and while it is served descriptor 0 reads the null device and 1 writes
to stderr, so nothing else in the process (a library's stray print) or started by it can read
the host's requests or write into its responses; both are put back on the way out.

A line is one JSON-RPC message. One that does not parse reaches the server as an exception
(the SDK's server answers what it can and goes on), and a line longer than ``MAX_LINE`` is
dropped whole, said the same way: what a host sends is untrusted too.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import anyio
import anyio.abc
import mcp_types as types
from mcp.shared.message import SessionMessage

from agentty_tui.gateway.stdio.descriptors import MAX_LINE, host_descriptors, read_chunks, write_all

__all__ = ["MAX_LINE", "host_pipe", "message_streams", "read_messages", "write_messages"]


@contextlib.asynccontextmanager
async def message_streams(
    wire_in: int, wire_out: int
) -> AsyncIterator[
    tuple[
        anyio.abc.ObjectReceiveStream[SessionMessage | Exception],
        anyio.abc.ObjectSendStream[SessionMessage],
    ]
]:
    """``(read_stream, write_stream)`` of MCP messages over two non-blocking descriptors (a
    pipe's ends, or one socket twice); the read stream ends when ``wire_in`` does."""
    to_server, from_host = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_host, from_server = anyio.create_memory_object_stream[SessionMessage](0)
    async with anyio.create_task_group() as group:
        group.start_soon(read_messages, wire_in, to_server)
        group.start_soon(write_messages, wire_out, from_server)
        try:
            yield from_host, to_host
        finally:
            group.cancel_scope.cancel()


@contextlib.asynccontextmanager
async def host_pipe() -> AsyncIterator[
    tuple[
        anyio.abc.ObjectReceiveStream[SessionMessage | Exception],
        anyio.abc.ObjectSendStream[SessionMessage],
    ]
]:
    """``(read_stream, write_stream)`` over the process's stdin and stdout; the read stream
    ends when stdin does."""
    with host_descriptors() as (wire_in, wire_out):
        async with message_streams(wire_in, wire_out) as streams:
            yield streams


async def read_messages(
    descriptor: int,
    messages: anyio.abc.ObjectSendStream[SessionMessage | Exception],
    max_line: int = MAX_LINE,
) -> None:
    """Each line of the non-blocking ``descriptor`` to ``messages``, until its end (which
    closes them); a line longer than ``max_line`` is dropped, and said as an exception."""
    async with messages:
        line = bytearray()
        dropping = False  # in the middle of a line too long to keep
        async for chunk in read_chunks(descriptor):
            start = 0
            while (end := chunk.find(b"\n", start)) != -1:
                if dropping:
                    dropping = False
                else:
                    line += chunk[start:end]
                    await _deliver(bytes(line), messages)
                    line.clear()
                start = end + 1
            if not dropping:
                line += chunk[start:]
                if len(line) > max_line:
                    line.clear()
                    dropping = True
                    too_long = f"a line longer than {max_line} bytes was dropped"
                    await messages.send(ValueError(too_long))
        if line and not dropping:
            await _deliver(bytes(line), messages)


async def _deliver(
    line: bytes, messages: anyio.abc.ObjectSendStream[SessionMessage | Exception]
) -> None:
    if not line.strip():
        return
    try:
        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except Exception as exc:  # the server answers what it can of a malformed message
        await messages.send(exc)
        return
    await messages.send(SessionMessage(message))


async def write_messages(
    descriptor: int, messages: anyio.abc.ObjectReceiveStream[SessionMessage]
) -> None:
    """Each message as one line on the non-blocking ``descriptor``; a host that stopped
    reading ends it."""
    async with messages:
        async for message in messages:
            data = (
                message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
            ).encode()
            if not await write_all(descriptor, data):
                return
