"""The gateway: a tool call through ``agentty-tui serve`` against the same call made directly,
and a toggle to the host's ``tools/list_changed``.

One ``light_plain_server.py`` (the plain server's four tools, no SDK) is reached two ways from
this process, both over stdio with the mcp SDK's client in the 2025 handshake era (what the
hosts speak): directly, and through ``python -m agentty_tui serve --config X``, whose bridge
runs its own copy of the server. Calls of ``echo`` alternate between the two (a warm-up
discarded) and the medians are compared: target, through serve ≤ 1.1 × direct + 2 ms.

Then toggles of one tool (off, on, ...) reach the host as ``tools/list_changed``:

- written by this process through a ``ConfigStore`` (the write ``agentty-tui disable`` makes):
  from the write to the notice (serve's live reload sees an outside edit: its debounce of
  0.15 s of quiet included);
- as ``agentty-tui disable`` / ``enable`` processes: from the process's start and from its
  exit to the notice (the start is mostly the interpreter's).

``python bench/bench_gateway.py`` (400 calls, 30 written toggles, 6 command toggles) or
``--quick`` (60 calls, 6 written toggles, 2 command toggles).
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

import anyio
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
from mcp import Client, StdioServerParameters
from mcp.client.session import IncomingMessage

from agentty_tui.config import ConfigStore, SetToolEnabled
from tests.servers import plain_argv


class Notices:
    """When each ``tools/list_changed`` arrived (``time.perf_counter``)."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self._changed = anyio.Event()

    async def handler(self, message: IncomingMessage) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self.times.append(time.perf_counter())
            changed, self._changed = self._changed, anyio.Event()
            changed.set()

    async def next_after(self, count: int, timeout: float = 20.0) -> float:
        """The time of notice number ``count + 1``."""
        with anyio.fail_after(timeout):
            while len(self.times) <= count:
                await self._changed.wait()
        return self.times[count]


def params(argv: list[str], env: dict[str, str]) -> StdioServerParameters:
    return StdioServerParameters(command=argv[0], args=argv[1:], env=env)


async def timed_call(client: Client, name: str, arguments: dict[str, Any]) -> float:
    start = time.perf_counter()
    result = await client.call_tool(name, arguments)
    elapsed = time.perf_counter() - start
    assert not result.is_error, result
    return elapsed


async def main() -> None:
    args = parse_mode(__doc__ or "")
    calls = 60 if args.quick else 400
    written = 6 if args.quick else 30
    commands = 2 if args.quick else 6
    token = marker("gateway")
    with bench_dirs("gateway") as dirs:
        env = env_for_child(dirs)
        config = write_config(
            dirs.root / "mcp.json", {"alpha": server_entry(plain_argv("--name", token))}
        )
        serve = [sys.executable, "-m", "agentty_tui", "serve", "--config", str(config)]
        notices = Notices()
        direct_client = Client(params(plain_argv("--name", token), env), mode="legacy", cache=None)
        gateway_client = Client(
            params(serve, env), mode="legacy", message_handler=notices.handler, cache=None
        )
        async with direct_client as direct, gateway_client as gateway:
            listed = {tool.name for tool in (await gateway.list_tools()).tools}
            assert "alpha__echo" in listed, listed
            # Calls, alternating (which goes first alternates too); a warm-up of 20 discarded.
            direct_times: list[float] = []
            gateway_times: list[float] = []
            for i in range(calls + 20):
                pair = [
                    (direct, "echo", direct_times),
                    (gateway, "alpha__echo", gateway_times),
                ]
                for client, name, sample in pair if i % 2 else reversed(pair):
                    elapsed = await timed_call(client, name, {"text": f"call {i}"})
                    if i >= 20:
                        sample.append(elapsed)
            # Toggles written as the command writes them.
            store = ConfigStore(config)
            write_latency: list[float] = []
            for i in range(written):
                seen = len(notices.times)
                start = time.perf_counter()
                await anyio.to_thread.run_sync(
                    store.apply, SetToolEnabled("alpha", "add", i % 2 == 1)
                )
                write_latency.append(await notices.next_after(seen) - start)
            # Toggles by the command line, a process each.
            from_start: list[float] = []
            from_exit: list[float] = []
            for i in range(commands):
                verb = "enable" if (written + i) % 2 else "disable"
                seen = len(notices.times)
                start = time.perf_counter()
                done = await anyio.run_process(
                    [
                        sys.executable,
                        "-m",
                        "agentty_tui",
                        verb,
                        "--config",
                        str(config),
                        "alpha",
                        "add",
                    ],
                    env=env,
                    check=True,
                )
                exited = time.perf_counter()
                assert done.returncode == 0
                arrived = await notices.next_after(seen)
                from_start.append(arrived - start)
                from_exit.append(max(0.0, arrived - exited))
            notice_count = len(notices.times)
    direct_stats, gateway_stats = stats(direct_times), stats(gateway_times)
    target = 1.1 * direct_stats.median + 0.002
    print_table(
        f"tool call (echo), {calls} each, alternating",
        ["path", "median ms", "p90 ms", "p95 ms", "min ms"],
        [
            [name, ms(s.median), ms(s.p90), ms(s.p95), ms(s.minimum)]
            for name, s in (("direct", direct_stats), ("through serve", gateway_stats))
        ],
    )
    call_ratio = ratio(gateway_stats.median, direct_stats.median)
    added = ms(gateway_stats.median - direct_stats.median)
    met = gateway_stats.median <= target
    print(
        f"through serve / direct: {call_ratio:.2f} (+{added:.2f} ms); target ≤ 1.1× + 2 ms = "
        f"{ms(target):.2f} ms: {'met' if met else 'NOT met'}"
    )
    toggle_rows = [
        ["written (ConfigStore) → notice", *_cells(write_latency)],
        ["agentty-tui process start → notice", *_cells(from_start)],
        ["agentty-tui process exit → notice", *_cells(from_exit)],
    ]
    print_table(
        "toggle → tools/list_changed",
        ["from", "n", "median ms", "p90 ms", "max ms"],
        toggle_rows,
    )
    print(f"notices: {notice_count} for {written + commands} toggles")
    leftovers = report_leftovers(token)
    if not args.quick:
        write_results(
            "gateway",
            {
                "calls": calls,
                "direct_ms": [ms(t) for t in direct_times],
                "gateway_ms": [ms(t) for t in gateway_times],
                "call_ratio": call_ratio,
                "call_added_ms": added,
                "call_target_met": met,
                "toggle_written_ms": [ms(t) for t in write_latency],
                "toggle_command_start_ms": [ms(t) for t in from_start],
                "toggle_command_exit_ms": [ms(t) for t in from_exit],
                "notices": notice_count,
                "toggles": written + commands,
                "leftovers": leftovers,
                "load_average": os.getloadavg(),
            },
        )


def _cells(sample: list[float]) -> list[object]:
    s = stats(sample)
    return [s.n, ms(s.median), ms(s.p90), ms(s.maximum)]


if __name__ == "__main__":
    anyio.run(main)
