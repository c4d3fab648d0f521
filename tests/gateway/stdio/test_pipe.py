"""The host's pipe: lines to messages and back, over real pipes (non-blocking descriptors)."""

from __future__ import annotations

import os
import sys

import anyio
import anyio.abc
import mcp_types as types
import pytest
from mcp.shared.message import SessionMessage

from agentty_tui.gateway.stdio.pipe import read_messages, write_messages

pytestmark = pytest.mark.anyio


async def read_all(data: bytes, max_line: int = 1 << 20) -> list[SessionMessage | Exception]:
    """What ``read_messages`` makes of ``data`` written in small pieces, then the pipe's end."""
    reading, writing = os.pipe()
    os.set_blocking(reading, False)
    send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](100)
    got: list[SessionMessage | Exception] = []
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(read_messages, reading, send, max_line)
            with anyio.fail_after(10):
                for start in range(0, len(data), 7):  # lines cut across reads
                    await anyio.to_thread.run_sync(os.write, writing, data[start : start + 7])
                os.close(writing)
                writing = -1
                async for message in receive:
                    got.append(message)
    finally:
        os.close(reading)
        if writing >= 0:
            os.close(writing)
    return got


def request(number: int) -> bytes:
    return b'{"jsonrpc": "2.0", "id": %d, "method": "ping"}' % number


async def test_each_line_is_a_message_and_the_last_one_needs_no_newline() -> None:
    got = await read_all(request(1) + b"\n\n" + request(2) + b"\n" + request(3))
    ids = [m.message.id for m in got if isinstance(m, SessionMessage)]  # type: ignore[union-attr]
    assert ids == [1, 2, 3]


async def test_a_line_that_is_no_message_or_too_long_costs_only_itself() -> None:
    long = b'{"jsonrpc": "2.0", "id": 9, "method": "' + b"x" * 200 + b'"}'
    got = await read_all(request(1) + b"\nnot json\n" + long + b"\n" + request(2) + b"\n", 100)
    assert isinstance(got[0], SessionMessage)
    assert isinstance(got[1], Exception)  # not JSON-RPC
    assert isinstance(got[2], ValueError) and "longer than 100 bytes" in str(got[2])
    assert isinstance(got[3], SessionMessage)
    assert got[3].message.id == 2  # type: ignore[union-attr]
    assert len(got) == 4


async def taken(send: anyio.abc.ObjectSendStream[SessionMessage], message: SessionMessage) -> bool:
    """Whether the writer took ``message`` (``False`` once it ended)."""
    try:
        await send.send(message)
    except anyio.BrokenResourceError:
        return False
    return True


async def test_messages_are_written_one_a_line_and_a_closed_pipe_ends_the_writer() -> None:
    reading, writing = os.pipe()
    os.set_blocking(writing, False)
    send, receive = anyio.create_memory_object_stream[SessionMessage](10)
    big = "y" * 300_000  # more than a pipe holds: the writer waits for the reader
    answer = types.JSONRPCResponse(jsonrpc="2.0", id=1, result={"text": big})
    async with anyio.create_task_group() as group:
        group.start_soon(write_messages, writing, receive)
        await send.send(SessionMessage(answer))
        chunks: list[bytes] = []
        with anyio.fail_after(10):
            while not chunks or not chunks[-1].endswith(b"\n"):
                chunks.append(await anyio.to_thread.run_sync(os.read, reading, 1 << 16))
        line = b"".join(chunks)
        assert line.count(b"\n") == 1 and big.encode() in line
        os.close(reading)  # the host went away: the writer ends, and takes no more
        with anyio.fail_after(10):
            while await taken(send, SessionMessage(answer)):
                pass
    os.close(writing)


STRAY = """
import os, sys, anyio
import mcp_types as types
from mcp.shared.message import SessionMessage
from agentty_tui.gateway.stdio.pipe import host_pipe

async def main():
    async with host_pipe() as (read_stream, write_stream):
        print("a stray print", flush=True)
        os.write(1, b"a stray write\\n")
        assert os.read(0, 10) == b""  # the null device: the host's requests are not there
        async with read_stream:
            async for message in read_stream:
                answer = types.JSONRPCResponse(jsonrpc="2.0", id=message.message.id, result={})
                await write_stream.send(SessionMessage(answer))
    print("after: stdout is the pipe again", flush=True)

anyio.run(main)
"""


async def test_only_the_protocol_reaches_the_host_while_the_pipe_is_claimed() -> None:
    done = await anyio.run_process(
        [sys.executable, "-c", STRAY], input=request(7) + b"\n", check=False
    )
    assert done.returncode == 0, done.stderr.decode()
    lines = done.stdout.decode().splitlines()
    assert lines == ['{"jsonrpc":"2.0","id":7,"result":{}}', "after: stdout is the pipe again"]
    assert "a stray print" in done.stderr.decode() and "a stray write" in done.stderr.decode()
