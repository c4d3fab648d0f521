"""The picker attached to the gateway daemon against a picker alone, on one config.

A host (an mcp SDK client starting ``serve --shared``) attaches to the daemon (in the
benchmark's own runtime folder) on servers of ``light_server.py``. Two pickers' sources run in
this process, as the picker would hold them: one attached to the daemon (``RemoteSource``,
every operation carried out by the daemon), one alone (a ``Bridge`` of its own on the same
file, servers of its own; its config writes are announced to the daemon, which reloads). They
toggle one tool in turn, and each toggle is timed twice: until the source answered (what the
picker waits for to show it), and until the host got ``tools/list_changed``. Also: the size of
one snapshot on the link and the time to read it back (``PluginModel`` and local revisions).

``python bench/bench_picker_attached.py`` (10 servers x 100 tools, 40 toggles each) or
``--quick`` (2 x 10, 10 toggles).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

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
from _host_client import Notices
from mcp import Client, StdioServerParameters

from agentty_tui.bridge import Bridge
from agentty_tui.config import ConfigStore
from agentty_tui.gateway.attachment import Attachment
from agentty_tui.gateway.picker.remote_source import RemoteSource
from agentty_tui.gateway.rendezvous import rendezvous
from tests.servers import light_argv, scalable_tool_names


async def main() -> None:
    args = parse_mode(__doc__ or "")
    servers, tools, rounds = (2, 10, 10) if args.quick else (10, 100, 40)
    token = marker("picker-attached")
    with bench_dirs("picker-attached") as dirs:
        env = env_for_child(dirs)
        runtime = dirs.root / "run"
        runtime.mkdir(mode=0o700)
        env["XDG_RUNTIME_DIR"] = str(runtime)
        env["AGENTTY_GATEWAY_IDLE"] = "1"
        # This process's config writes are announced where the daemon listens, as a picker's
        # of the same user would be.
        os.environ["XDG_RUNTIME_DIR"] = str(runtime)
        entries = {
            f"s{i}": server_entry(light_argv(tools, name=f"{token}-{i}")) for i in range(servers)
        }
        config = write_config(dirs.config_path(), entries)
        tool = scalable_tool_names(tools)[0]
        argv = ["-m", "agentty_tui", "serve", "--shared", "--config", str(config)]
        host_params = StdioServerParameters(command=sys.executable, args=argv, env=env)
        notices = Notices()
        place = rendezvous(env)
        attachment = Attachment(str(dirs.root), str(config), home=str(Path.home()), env=env)
        answered: dict[str, list[float]] = {"attached": [], "alone": []}
        heard: dict[str, list[float]] = {"attached": [], "alone": []}
        async with Client(
            host_params, mode="legacy", cache=None, message_handler=notices.handler
        ) as host:
            await host.list_tools()
            async with (
                RemoteSource.attached(attachment, place) as attached,
                Bridge(ConfigStore(config), log_dir=dirs.logs) as alone,
            ):
                assert attached is not None
                await alone.settled(timeout=60)
                with anyio.fail_after(60):
                    async for model in attached.updates():
                        if all(s.status == "connected" for s in model.servers):
                            break
                # The whole snapshot, as the link sends it first (later ones: what changed).
                text = attached.snapshot.model_dump_json()
                start = time.perf_counter()
                for _ in range(20):
                    attached._decode(json.loads(text))
                read_back = (time.perf_counter() - start) / 20
                on = True
                for _ in range(rounds):
                    for name, source in (("attached", attached), ("alone", alone)):
                        on = not on
                        count = len(notices.times)
                        start = time.perf_counter()
                        await source.tool_set_enabled("s0", tool, on)
                        answered[name].append(time.perf_counter() - start)
                        heard[name].append(await notices.next_after(count) - start)
        rows = []
        for label, sample in (("source answered", answered), ("host's list_changed", heard)):
            mine, theirs = stats(sample["attached"]), stats(sample["alone"])
            rows.append(
                (
                    label,
                    f"{ms(mine.median):.1f} (p90 {ms(mine.p90):.1f})",
                    f"{ms(theirs.median):.1f} (p90 {ms(theirs.p90):.1f})",
                    ratio(mine.median, theirs.median),
                )
            )
        print_table(
            f"a toggle, {servers} servers x {tools} tools, {rounds} rounds (ms, median)",
            ["measure", "attached", "alone", "ratio"],
            rows,
        )
        size = len(text) / 1024
        print(f"one snapshot on the link: {size:.0f} KiB, read back in {ms(read_back):.1f} ms")
    leftovers = report_leftovers(token)
    if not args.quick:
        write_results(
            "picker_attached",
            {
                "servers": servers,
                "tools": tools,
                "rounds": rounds,
                "answered_ms": {k: stats(v).as_dict() for k, v in answered.items()},
                "heard_ms": {k: stats(v).as_dict() for k, v in heard.items()},
                "snapshot_kib": len(text) / 1024,
                "read_back_ms": ms(read_back),
                "leftovers": leftovers,
            },
        )
    if leftovers:
        raise SystemExit(1)


if __name__ == "__main__":
    anyio.run(main)
