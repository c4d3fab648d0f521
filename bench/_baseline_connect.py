"""Baseline of ``bench_connect``: connect N stdio servers with the bare mcp SDK, list, exit.

``python bench/_baseline_connect.py SERVERS.json concurrent|sequential`` where SERVERS.json is a
JSON list of argv lists. Each server: ``mcp.Client(StdioServerParameters(...))``, every page of
``tools/list``, exit. ``concurrent`` runs them all in one anyio task group (each in its own task,
as a client must be entered and exited in one task); ``sequential`` one after another. Prints a
JSON object ``{server index: [tool names]}`` (what ``agentty-tui list --json`` also prints, in
its own richer form), so both sides do comparable output work.

Run as its own process on purpose: the benchmark times it from ``exec`` to exit, interpreter
start-up and imports included, exactly like the ``agentty-tui`` command it is compared with.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters


async def _list_one(argv: list[str]) -> list[str]:
    params = StdioServerParameters(command=argv[0], args=argv[1:])
    names: list[str] = []
    async with Client(params, read_timeout_seconds=60.0) as client:
        cursor: str | None = None
        while True:
            page = await client.list_tools(cursor=cursor)
            names += [tool.name for tool in page.tools]
            cursor = page.next_cursor
            if not cursor:
                break
    return names


async def _main(servers: list[list[str]], mode: str) -> dict[int, list[str]]:
    result: dict[int, list[str]] = {}
    if mode == "sequential":
        for index, argv in enumerate(servers):
            result[index] = await _list_one(argv)
        return result

    async def one(index: int, argv: list[str]) -> None:
        result[index] = await _list_one(argv)

    async with anyio.create_task_group() as group:
        for index, argv in enumerate(servers):
            group.start_soon(one, index, argv)
    return result


def main() -> int:
    servers: list[list[str]] = json.loads(Path(sys.argv[1]).read_text())
    mode = sys.argv[2]
    if mode not in ("concurrent", "sequential"):
        raise SystemExit(f"unknown mode {mode!r}")
    result = anyio.run(_main, servers, mode)
    print(json.dumps({str(k): v for k, v in sorted(result.items())}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
