"""A hand-written HTTP server whose every answer is an endless body (raw HTTP/1.1 on anyio).

An MCP client that reads a response without a limit fills its memory from it. ``--mode json``
answers each request with ``application/json`` that never ends; ``--mode sse`` with an
event stream whose first event never ends; ``--mode gzip`` with a small gzip body (a "zip
bomb") that unpacks to 50 MB, whatever the request's ``Accept-Encoding``. Run:
``python tests/servers/endless_http_server.py --port N [--mode json|sse]`` (``--transport``
is accepted and ignored, for ``tests.helpers.serve_over_http``).
"""

from __future__ import annotations

import argparse
import contextlib
import zlib
from functools import partial

import anyio
from anyio.abc import SocketStream

CHUNK = b" " * 65536
"""Whitespace is valid inside JSON and inside an event's data: the body stays "well formed"."""


async def read_request(client: SocketStream) -> bool:
    """Read one request's head and body; False when the client went away."""
    data = b""
    while b"\r\n\r\n" not in data:
        try:
            data += await client.receive()
        except (anyio.EndOfStream, anyio.BrokenResourceError):
            return False
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        key, _, value = line.partition(b":")
        if key.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        try:
            body += await client.receive()
        except (anyio.EndOfStream, anyio.BrokenResourceError):
            return False
    return True


def gzip_bomb() -> bytes:
    """A JSON-RPC answer padded with 50 MB of spaces, gzip-compressed to about 50 KB."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [packer.compress(b'{"jsonrpc": "2.0", "id": 0, "result": {}')]
    parts += [packer.compress(CHUNK) for _ in range(50_000_000 // len(CHUNK))]
    return b"".join([*parts, packer.compress(b"}"), packer.flush()])


async def serve(mode: str, bomb: bytes, client: SocketStream) -> None:
    """Answer the first request with a body that never ends (or the bomb)."""
    async with client:
        if not await read_request(client):
            return
        if mode == "gzip":
            body = bomb
            head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            head += b"Content-Encoding: gzip\r\nContent-Length: %d\r\n\r\n" % len(body)
            with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                await client.send(head + body)
            return
        kind = b"text/event-stream" if mode == "sse" else b"application/json"
        head = (
            b"HTTP/1.1 200 OK\r\nContent-Type: " + kind + b"\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        start = b"event: message\r\ndata: " if mode == "sse" else b'{"jsonrpc": "2.0", "id": 0'
        try:
            await client.send(head + b"%x\r\n%s\r\n" % (len(start), start))
            frame = b"%x\r\n%s\r\n" % (len(CHUNK), CHUNK)
            while True:
                await client.send(frame)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            return


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--mode", choices=("json", "sse", "gzip"), default="json")
    parser.add_argument("--transport", default="streamable-http")  # any path gets the same
    args = parser.parse_args()
    # Packed before listening (seconds of CPU on a loaded machine): the answer then goes out at
    # once, and the client's connect timeout measures the refusal, not our compression.
    bomb = gzip_bomb() if args.mode == "gzip" else b""
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=args.port)
    await listener.serve(partial(serve, args.mode, bomb))


if __name__ == "__main__":
    anyio.run(main)
