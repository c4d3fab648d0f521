"""Responses of a URL server with parts nested too deep to parse, cut as stdio lines are.

A tool whose ``inputSchema`` is nested deeper than the JSON parser allows makes its whole
``tools/list`` answer unreadable, and the request then waits for its timeout. Over stdio the
transport cuts such a line (``stdio.cut_deep_json``); over HTTP the SDK parses the body itself,
so the body is cut before it gets there: a JSON body whole, an event stream event by event
(its ``data:`` lines). The parts below ``MAX_DEPTH`` become ``TOO_DEEP``, and the listing drops
the tool that holds one, with the reason, as over stdio.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable

import httpx2

from agentty_tui.bridge.stdio import MAX_DEPTH, cut_deep_json

__all__ = ["DeepCutStream"]

_EVENT_END = re.compile(rb"\r?\n\r?\n")


class DeepCutStream(httpx2.AsyncByteStream):
    """A response body with its too-deep JSON cut; ``on_cut`` is called for each cut message.

    The body (or one event) is bounded by the stream it wraps (``maxResponseBytes``), so
    holding it until its end costs at most that much.
    """

    def __init__(
        self, inner: httpx2.AsyncByteStream, on_cut: Callable[[], None], *, events: bool
    ) -> None:
        self._inner = inner
        self._on_cut = on_cut
        self._events = events

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if not self._events:
            body = b"".join([chunk async for chunk in self._inner])
            if body:
                yield self._cut(body)
            return
        pending = bytearray()
        async for chunk in self._inner:
            start = max(len(pending) - 3, 0)  # an event end may straddle two chunks
            pending += chunk
            last: re.Match[bytes] | None = None
            for last in _EVENT_END.finditer(pending, start):  # noqa: B007 - the last one counts
                pass
            if last is None:
                continue
            done = bytes(pending[: last.end()])
            del pending[: last.end()]
            yield b"\n".join(self._cut(line) for line in done.split(b"\n"))
        if pending:
            yield b"\n".join(self._cut(line) for line in bytes(pending).split(b"\n"))

    def _cut(self, text: bytes) -> bytes:
        """``text`` (a JSON body, or an event's line) with its too-deep parts cut."""
        if self._events and not text.startswith(b"data:"):
            return text
        if text.count(b"{") + text.count(b"[") <= MAX_DEPTH:  # too few to be too deep
            return text
        cut = cut_deep_json(text, MAX_DEPTH)
        if cut == text:
            return text
        self._on_cut()
        return cut

    async def aclose(self) -> None:
        """Close the underlying stream."""
        await self._inner.aclose()
