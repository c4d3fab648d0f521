"""A subscribed resource's update through the gateway, against the server itself.

A host subscribes to one note, then calls the server's ``touch_note`` tool, which changes it and
sends ``notifications/resources/updated``; the time measured is from the call's start until
both its result and the update have arrived. Two servers, each in its own era, reached two
ways from this process over stdio with the mcp SDK's client: directly, and through
``python -m agentty_tui serve --config X`` (the resource under its gateway URI):

- ``legacy_ts/offers.js --subscribe`` (TypeScript SDK, 2025 handshake), the host in the 2025
  era: ``resources/subscribe``, the update as a notification (skipped without node);
- ``offers_server.py`` (mcp SDK, 2026-07-28), the host in 2026-07-28: a ``subscriptions/listen``
  stream naming the note, the update an event on it (through the gateway, the gateway holds a
  listen stream of its own on the server for that note).

The two paths alternate (a warm-up discarded) and the medians are compared. No target is set
by the issue; the tools' target (≤ 1.1 × direct + 2 ms) is shown beside them for scale.

``python bench/bench_gateway_subscriptions.py`` (200 of each) or ``--quick`` (30 of each).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import anyio.abc
import mcp_types as types
from _common import (
    bench_dirs,
    env_for_child,
    marker,
    ms,
    parse_mode,
    print_table,
    ratio,
    report_leftovers,
    server_entry,
    stats,
    write_config,
    write_results,
)
from _host_client import params
from mcp import Client
from mcp.client.session import IncomingMessage

from tests.servers import legacy_offers_argv, legacy_ts_available, offers_argv

WARM_UP = 10
"""Updates made and discarded before the timed ones."""


class Updates:
    """How many ``notifications/resources/updated`` a host got (the 2026-07-28 listen
    stream's events come to the message handler too); ``moved`` is set by the next of them,
    or of the 2025 era's ``tools/list_changed``."""

    def __init__(self) -> None:
        self.count = 0
        self.moved = anyio.Event()

    async def handler(self, message: IncomingMessage) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            self.count += 1
        elif not isinstance(message, types.ToolListChangedNotification):
            return
        moved, self.moved = self.moved, anyio.Event()
        moved.set()

    async def past(self, count: int) -> None:
        with anyio.fail_after(20):
            while self.count <= count:
                await self.moved.wait()


@asynccontextmanager
async def subscribed(client: Client, uri: str) -> AsyncIterator[None]:
    """``uri`` subscribed in the host's era for as long as the block runs."""
    if client.protocol_version != "2026-07-28":
        request = types.SubscribeRequest(params=types.SubscribeRequestParams(uri=uri))
        await client.session.send_request(request, types.EmptyResult)
        yield
        return
    async with anyio.create_task_group() as group:

        async def follow(*, task_status: anyio.abc.TaskStatus[None]) -> None:
            async with client.listen(resource_subscriptions=[uri]) as subscription:
                task_status.started()
                async for _ in subscription:
                    pass

        await group.start(follow)
        yield
        group.cancel_scope.cancel()


async def touched(client: Client, updates: Updates, tool: str) -> float:
    """Seconds from a ``touch_note`` call's start until its result and its update arrived."""
    before = updates.count
    start = time.perf_counter()
    result = await client.call_tool(tool, {"name": "first", "text": str(start)})
    assert not result.is_error, result
    await updates.past(before)
    return time.perf_counter() - start


async def measure(
    argv: list[str], mode: str, count: int, env: dict[str, str], root: Path
) -> dict[str, list[float]]:
    """The times of ``count`` updates each way, alternating."""
    config = write_config(root / "mcp.json", {"memo": server_entry(argv)})
    serve = [sys.executable, "-m", "agentty_tui", "serve", "--no-daemon", "--config", str(config)]
    straight, through = Updates(), Updates()
    direct_client = Client(params(argv, env), mode=mode, message_handler=straight.handler)
    gateway_client = Client(params(serve, env), mode=mode, message_handler=through.handler)
    sample: dict[str, list[float]] = {"direct": [], "through serve": []}
    async with direct_client as direct, gateway_client as gateway:
        await served(gateway, through, "memo__touch_note")
        async with (
            subscribed(direct, "memo://notes/first"),
            subscribed(gateway, "agentty://memo/memo://notes/first"),
        ):
            await timed_pairs(count, sample, (direct, straight), (gateway, through))
    return sample


async def served(gateway: Client, notices: Updates, tool: str) -> None:
    """Until the gateway serves ``tool`` (a server slower than the first request's wait, as
    under load, arrives later, announced by ``tools/list_changed``)."""
    with anyio.fail_after(60):
        if gateway.protocol_version == "2026-07-28":  # the notice comes on a listen stream
            async with gateway.listen(tools_list_changed=True) as changes:
                while tool not in [t.name for t in (await gateway.list_tools()).tools]:
                    await anext(changes)
            return
        while True:
            moved = notices.moved  # taken before listing: a change meanwhile still wakes us
            if tool in [t.name for t in (await gateway.list_tools()).tools]:
                return
            await moved.wait()


async def timed_pairs(
    count: int,
    sample: dict[str, list[float]],
    straight_to: tuple[Client, Updates],
    through_to: tuple[Client, Updates],
) -> None:
    """``count`` updates each way (after ``WARM_UP``), alternating which goes first."""
    (direct, straight), (gateway, through) = straight_to, through_to
    pair = [
        (direct, straight, "touch_note", sample["direct"]),
        (gateway, through, "memo__touch_note", sample["through serve"]),
    ]
    for i in range(count + WARM_UP):
        for client, updates, tool, times in pair if i % 2 else reversed(pair):
            elapsed = await touched(client, updates, tool)
            if i >= WARM_UP:
                times.append(elapsed)


async def main() -> None:
    args = parse_mode(__doc__ or "")
    count = 30 if args.quick else 200
    token = marker("subscriptions")
    eras: dict[str, tuple[list[str], str]] = {
        "2026-07-28 (offers_server.py)": (offers_argv("--name", token), "auto"),
    }
    if legacy_ts_available():
        eras["2025 (offers.js --subscribe)"] = (
            legacy_offers_argv("--subscribe", f"--marker={token}"),
            "legacy",
        )
    else:
        print("node or the TypeScript SDK is missing: the 2025 era is skipped")
    rows: list[list[object]] = []
    summary: dict[str, dict[str, float]] = {}
    with bench_dirs("gateway-subscriptions") as dirs:
        env = env_for_child(dirs)
        for number, (era, (argv, mode)) in enumerate(eras.items()):
            root = dirs.root / f"era{number}"
            root.mkdir()
            sample = await measure(argv, mode, count, env, root)
            direct_stats, gateway_stats = stats(sample["direct"]), stats(sample["through serve"])
            for path, s in (("direct", direct_stats), ("through serve", gateway_stats)):
                rows.append([era, path, ms(s.median), ms(s.p90), ms(s.minimum)])
            summary[era] = {
                "direct_ms": ms(direct_stats.median),
                "gateway_ms": ms(gateway_stats.median),
                "ratio": ratio(gateway_stats.median, direct_stats.median),
                "added_ms": ms(gateway_stats.median - direct_stats.median),
                "tools_target_ms": ms(1.1 * direct_stats.median + 0.002),
            }
    print_table(
        f"a touch_note call until its result and its resources/updated arrived, {count} each",
        ["era", "path", "median ms", "p90 ms", "min ms"],
        rows,
    )
    for era, found in summary.items():
        print(
            f"{era}: through serve / direct {found['ratio']:.2f} (+{found['added_ms']:.2f} ms); "
            f"the tools' target would be ≤ {found['tools_target_ms']:.2f} ms"
        )
    leftovers = report_leftovers(token)
    if not args.quick:
        write_results(
            "gateway_subscriptions",
            {
                "count": count,
                "summary": summary,
                "leftovers": leftovers,
                "load_average": os.getloadavg(),
            },
        )


if __name__ == "__main__":
    anyio.run(main)
