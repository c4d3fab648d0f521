"""Two hosts on ten servers: how many server processes, and how much memory, with the hosts'
gateways in process (``serve``) against one shared daemon (``serve --shared``).

Two mcp SDK clients stand in for two hosts of one project, each starting the gateway over
stdio on the same config of ten ``light_plain_server.py`` servers. With ``serve`` each gateway
runs its own ten; with ``serve --shared`` both attach to the user's daemon (here, in the
benchmark's own runtime folder), which runs them once. Counted from ``/proc`` once both hosts
listed their tools: the server processes (by a marker in their argv) and the resident memory
(VmRSS) of the servers and of the gateways (the two the hosts started, and the daemon).

``python bench/bench_gateway_shared.py`` (ten servers) or ``--quick`` (four).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
from _common import (
    bench_dirs,
    env_for_child,
    marker,
    parse_mode,
    pids_with_marker,
    print_table,
    ratio,
    report_leftovers,
    server_entry,
    write_config,
    write_results,
)
from mcp import Client, StdioServerParameters

from agentty_tui.gateway.rendezvous import rendezvous
from tests.servers import plain_argv


def rss_kib(pid: int) -> int:
    """The resident memory of ``pid`` in KiB (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return 0
    return 0


@contextlib.asynccontextmanager
async def two_hosts(config: Path, env: dict[str, str], shared: bool) -> AsyncIterator[None]:
    """Two hosts attached, each having listed its tools."""
    extra = ["--shared"] if shared else ["--no-daemon"]
    argv = ["-m", "agentty_tui", "serve", "--config", str(config), *extra]
    params = StdioServerParameters(command=sys.executable, args=argv, env=env)
    async with (
        Client(params, mode="legacy", cache=None) as one,
        Client(params, mode="legacy", cache=None) as two,
    ):
        for client in (one, two):
            await client.list_tools()
        yield


async def measure(count: int, shared: bool, token: str) -> dict[str, float]:
    with bench_dirs("gateway-shared") as dirs:
        env = env_for_child(dirs)
        runtime = dirs.root / "run"
        runtime.mkdir(mode=0o700)
        env["XDG_RUNTIME_DIR"] = str(runtime)
        env["AGENTTY_GATEWAY_IDLE"] = "1"
        servers = {
            f"s{i}": server_entry(plain_argv("--name", f"{token}-{i}")) for i in range(count)
        }
        config = write_config(dirs.config_path(), servers)
        async with two_hosts(config, env, shared):
            server_pids = sorted(pids_with_marker(token))
            daemon_file = rendezvous(env).pid
            daemon = int(daemon_file.read_text()) if daemon_file.exists() else None
            server_rss = sum(map(rss_kib, server_pids))
            daemon_rss = rss_kib(daemon) if daemon is not None else 0
            # The gateways the hosts started (their argv names the config), and the daemon.
            gateways = sum(map(rss_kib, pids_with_marker(str(config)))) + daemon_rss
        with anyio.move_on_after(10):
            while daemon_file.exists():  # noqa: ASYNC110 - only /proc and the file tell
                await anyio.sleep(0.05)
    return {
        "servers": len(server_pids),
        "server_rss_mib": server_rss / 1024,
        "daemon_rss_mib": daemon_rss / 1024,
        "gateways_rss_mib": gateways / 1024,
    }


async def main() -> None:
    args = parse_mode(__doc__ or "")
    count = 4 if args.quick else 10
    token = marker("shared")
    alone = await measure(count, shared=False, token=token)
    shared = await measure(count, shared=True, token=token)
    rows = [
        (
            "server processes",
            alone["servers"],
            shared["servers"],
            ratio(shared["servers"], alone["servers"]),
        ),
        (
            "servers' memory (MiB)",
            round(alone["server_rss_mib"], 1),
            round(shared["server_rss_mib"], 1),
            ratio(shared["server_rss_mib"], alone["server_rss_mib"]),
        ),
        (
            "gateways' memory (MiB)",
            round(alone["gateways_rss_mib"], 1),
            round(shared["gateways_rss_mib"], 1),
            ratio(shared["gateways_rss_mib"], alone["gateways_rss_mib"]),
        ),
        ("of which the daemon (MiB)", "-", round(shared["daemon_rss_mib"], 1), "-"),
    ]
    print_table(
        f"two hosts on {count} servers: in-process serve vs serve --shared",
        ["measure", "serve", "serve --shared", "ratio"],
        rows,
    )
    leftovers = report_leftovers(token)
    if not args.quick:
        write_results(
            "gateway_shared",
            {"servers": count, "serve": alone, "shared": shared, "leftovers": leftovers},
        )
    if leftovers:
        raise SystemExit(1)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    anyio.run(main)
