"""Resources and prompts through the gateway: ``agentty-tui serve`` against the server itself.

One ``offers_server.py`` (the mcp SDK's server: two notes, a template, one prompt) is reached
two ways from this process, over stdio with the mcp SDK's client in the 2025 handshake era
(what the hosts speak): directly, and through ``python -m agentty_tui serve --config X``.
``resources/list``, ``resources/read`` and ``prompts/get`` alternate between the two (a
warm-up discarded) and the medians are compared. No target is set by the issue; the tools'
target (≤ 1.1 × direct + 2 ms) is shown beside them for scale. ``prompts/get`` through the
gateway lists the prompts first (a name is resolved against the current set): one more round
trip to the server.

``python bench/bench_gateway_offers.py`` (300 of each) or ``--quick`` (40 of each).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Awaitable, Callable

import anyio
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

from tests.servers import offers_argv

WARM_UP = 20
"""Requests of each kind made and discarded before the timed ones."""


async def timed(request: Callable[[], Awaitable[object]]) -> float:
    start = time.perf_counter()
    await request()
    return time.perf_counter() - start


async def main() -> None:
    args = parse_mode(__doc__ or "")
    count = 40 if args.quick else 300
    token = marker("offers")
    with bench_dirs("gateway-offers") as dirs:
        env = env_for_child(dirs)
        config = write_config(
            dirs.root / "mcp.json", {"memo": server_entry(offers_argv("--name", token))}
        )
        serve = [
            sys.executable,
            "-m",
            "agentty_tui",
            "serve",
            "--no-daemon",
            "--config",
            str(config),
        ]
        direct_client = Client(params(offers_argv("--name", token), env), mode="legacy", cache=None)
        gateway_client = Client(params(serve, env), mode="legacy", cache=None)
        samples: dict[str, dict[str, list[float]]] = {}
        async with direct_client as direct, gateway_client as gateway:
            kinds: dict[
                str, tuple[Callable[[], Awaitable[object]], Callable[[], Awaitable[object]]]
            ] = {
                "resources/list": (direct.list_resources, gateway.list_resources),
                "resources/read": (
                    lambda: direct.read_resource("memo://notes/first"),
                    lambda: gateway.read_resource("agentty://memo/memo://notes/first"),
                ),
                "prompts/get": (
                    lambda: direct.get_prompt("greet", {"name": "Ann"}),
                    lambda: gateway.get_prompt("memo__greet", {"name": "Ann"}),
                ),
            }
            for kind, (straight, through) in kinds.items():
                sample = samples[kind] = {"direct": [], "through serve": []}
                for i in range(count + WARM_UP):
                    pair = [(straight, sample["direct"]), (through, sample["through serve"])]
                    for request, times in pair if i % 2 else reversed(pair):
                        elapsed = await timed(request)
                        if i >= WARM_UP:
                            times.append(elapsed)
    rows: list[list[object]] = []
    summary: dict[str, dict[str, float]] = {}
    for kind, sample in samples.items():
        direct_stats, gateway_stats = stats(sample["direct"]), stats(sample["through serve"])
        for path, s in (("direct", direct_stats), ("through serve", gateway_stats)):
            rows.append([kind, path, ms(s.median), ms(s.p90), ms(s.minimum)])
        summary[kind] = {
            "direct_ms": ms(direct_stats.median),
            "gateway_ms": ms(gateway_stats.median),
            "ratio": ratio(gateway_stats.median, direct_stats.median),
            "added_ms": ms(gateway_stats.median - direct_stats.median),
            "tools_target_ms": ms(1.1 * direct_stats.median + 0.002),
        }
    print_table(
        f"resources and prompts, {count} each, alternating",
        ["request", "path", "median ms", "p90 ms", "min ms"],
        rows,
    )
    for kind, found in summary.items():
        print(
            f"{kind}: through serve / direct {found['ratio']:.2f} (+{found['added_ms']:.2f} ms); "
            f"the tools' target would be ≤ {found['tools_target_ms']:.2f} ms"
        )
    leftovers = report_leftovers(token)
    if not args.quick:
        write_results(
            "gateway_offers",
            {
                "count": count,
                "summary": summary,
                "leftovers": leftovers,
                "load_average": os.getloadavg(),
            },
        )


if __name__ == "__main__":
    anyio.run(main)
