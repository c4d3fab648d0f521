"""Token counts: what counting tool definitions costs, cold and on the toggle path.

- **encoding load**: the first count of the process loads ``o200k_base`` (once);
- **cold definitions**: N distinct tool definitions (the 5,000-tool synthetic catalog's
  shape, each description different) counted by a fresh ``TokenCounter`` (its caches empty, the
  encoding loaded), per family: time per tool;
- **toggle path**: a kept ``CatalogProjector`` re-projecting the 5,000-tool snapshot after one
  toggle (what the picker and the gateway do), without a token budget against with one (every
  count warm: the toggle recounts nothing), interleaved; the ratio of medians. Also with a token
  budget that trims half the tools.

``python bench/bench_tokens.py`` (5,000 tools, 200 toggles) or ``--quick`` (1,000, 40).
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from _common import ms, parse_mode, print_table, ratio, stats, write_results

from agentty_tui.catalog import (
    FAMILIES,
    TOKEN_COUNTER,
    CatalogProjector,
    TokenCounter,
    WireTool,
)
from agentty_tui.model import PluginModel, ServerState, StdioSpec, ToolState

TOOLS_PER_SERVER = 100
SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "Path of the file, absolute or relative."},
        "limit": {"type": "integer", "minimum": 1, "description": "How many lines at most."},
    },
    "required": ["path"],
}


def _description(index: int) -> str:
    return (
        f"Tool number {index}: reads the resource it is named after and returns it as JSON. "
        "Use it when the user asks about that resource; it never changes anything."
    )


def _model(total: int, token_budget: int | None = None, revision: int = 0) -> PluginModel:
    servers = []
    for s in range(max(1, total // TOOLS_PER_SERVER)):
        tools = tuple(
            ToolState.model_construct(
                bare=f"tool_{s}_{t:03d}",
                enabled=True,
                title=None,
                description=_description(s * TOOLS_PER_SERVER + t),
                input_schema=SCHEMA,
            )
            for t in range(TOOLS_PER_SERVER)
        )
        servers.append(
            ServerState(
                name=f"server-{s:03d}",
                spec=StdioSpec(command="python"),
                status="connected",
                tools=tools,
                revision=revision,
            )
        )
    return PluginModel(
        servers=tuple(servers), tool_budget=total + 100, tool_token_budget=token_budget
    )


def _toggled(model: PluginModel, step: int) -> PluginModel:
    """``model`` with one tool of one server switched (the server's revision bumped)."""
    index = step % len(model.servers)
    server = model.servers[index]
    first = server.tools[0]
    tools = (first.model_copy(update={"enabled": not first.enabled}), *server.tools[1:])
    servers = list(model.servers)
    servers[index] = server.model_copy(update={"tools": tools, "revision": server.revision + 1})
    return model.model_copy(update={"servers": tuple(servers), "revision": model.revision + 1})


def _cold(total: int, rounds: int) -> dict[str, list[float]]:
    tools = [
        WireTool(
            name=f"mcp__server__tool_{i}",
            server="server",
            tool=f"tool_{i}",
            description=_description(i),
            input_schema=SCHEMA,
        )
        for i in range(total)
    ]
    per_tool: dict[str, list[float]] = {name: [] for name in FAMILIES}
    for _ in range(rounds):
        for family in FAMILIES:
            counter = TokenCounter()
            counter.count("warm", "", {}, family)  # the encoding, not the definitions
            start = time.perf_counter()
            counter.total(tools, family)
            per_tool[family].append((time.perf_counter() - start) / total)
    return per_tool


def _toggles(total: int, toggles: int) -> dict[str, list[float]]:
    """Interleaved: each toggle projected by three kept projectors (no token budget; a budget
    that fits everything; one that trims about half)."""
    plain = _model(total)
    everything = sum(
        TOKEN_COUNTER.count(f"mcp__{s.name}__{t.bare}", t.description or "", SCHEMA)
        for s in plain.servers
        for t in s.tools
    )
    models = {
        "no token budget": plain,
        "token budget, all fit": plain.model_copy(update={"tool_token_budget": everything * 2}),
        "token budget, half trimmed": plain.model_copy(
            update={"tool_token_budget": everything // 2}
        ),
    }
    projectors = {name: CatalogProjector() for name in models}
    for name, model in models.items():
        projectors[name].project(model)  # warm: every count cached
    samples: dict[str, list[float]] = {name: [] for name in models}
    for step in range(toggles):
        for name in models:
            models[name] = _toggled(models[name], step)
            start = time.perf_counter()
            projectors[name].project(models[name])
            samples[name].append(time.perf_counter() - start)
    return samples


def main() -> None:
    """Run the three measurements, print them, write the results in full mode."""
    args = parse_mode(__doc__ or "")
    total, toggles, rounds = (1_000, 40, 2) if args.quick else (5_000, 200, 5)

    start = time.perf_counter()
    TOKEN_COUNTER.warm()
    load = time.perf_counter() - start
    print(f"encoding load (o200k_base, once per process): {load:.2f} s")

    cold = _cold(total, rounds)
    print_table(
        f"{total:,} cold tool definitions (fresh counter, encoding loaded), {rounds} rounds",
        ["family", "µs per tool (median)", "ms for all"],
        [
            [name, f"{statistics.median(v) * 1e6:.1f}", f"{statistics.median(v) * total * 1e3:.1f}"]
            for name, v in cold.items()
        ],
    )

    samples = _toggles(total, toggles)
    base = statistics.median(samples["no token budget"])
    print_table(
        f"toggle path: kept CatalogProjector, {total:,} tools, {toggles} toggles (interleaved)",
        ["projection", "median ms", "p95 ms", "ratio to no token budget"],
        [
            [
                name,
                f"{ms(statistics.median(v)):.2f}",
                f"{ms(stats(v).p95):.2f}",
                f"{ratio(statistics.median(v), base):.2f}",
            ]
            for name, v in samples.items()
        ],
    )
    if not args.quick:
        data: dict[str, Any] = {
            "tools": total,
            "encoding_load_s": load,
            "cold_us_per_tool": {k: statistics.median(v) * 1e6 for k, v in cold.items()},
            "toggle_ms": {k: stats(v).as_dict() for k, v in samples.items()},
            "toggle_ratio": {k: ratio(statistics.median(v), base) for k, v in samples.items()},
        }
        write_results("tokens", data)


if __name__ == "__main__":
    main()
