"""Where the empty picker's memory goes: run as its own process by ``bench_picker_memory``.

``python bench/_memory_breakdown.py CONFIG [--trace]`` (CONFIG: an empty config file) does what
the picker does on that config, step by step, reading the resident memory (``VmRSS``) after
each: the interpreter alone; pydantic; Textual;
our model and config; the picker's modules (``agentty_tui.ui``, which import no SDK); the first
frame (a real ``PickerApp`` headless on a ``StartingSource``, before the bridge); the mcp SDK's
types (``mcp_types``); the rest of the SDK (``mcp``); our bridge; the bridge up (the picker as
it runs from then on). It prints one JSON object: ``steps`` (label, VmRSS in KiB, in order).

With ``--trace``, ``tracemalloc`` runs from the first line (its own bookkeeping inflates the
resident figures: read the steps of a run without it) and ``traced_kib`` adds the Python
allocations alive at the end, by package: of the module whose code made them, or, for what an
import makes (code objects, a module's namespace), of the module that was being imported.
``tracemalloc`` sees only the interpreter's allocator: not what C extensions allocate
themselves, nor what the interpreter allocated before it started.
"""

from __future__ import annotations

import sys
import tracemalloc

if "--trace" in sys.argv:
    tracemalloc.start(25)

import gc
import importlib
import json
from pathlib import Path
from typing import Any

SIZE = (120, 40)


def _rss_kib() -> int:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def _package(filename: str) -> str:
    """The package a source file belongs to (``site-packages/<top>``, ``agentty_tui``, the
    standard library)."""
    path = filename.replace("\\", "/")
    if "/agentty_tui/" in path:
        return "agentty_tui (ours)"
    if "site-packages/" in path:
        top = path.split("site-packages/", 1)[1].split("/", 1)[0]
        top = top.removesuffix(".py").split(".", 1)[0]
        return {"_pydantic_core": "pydantic", "pydantic_core": "pydantic"}.get(top, top)
    if path.startswith("<"):
        return "interpreter (frozen, <string>)"
    return "standard library"


def main() -> None:
    config = Path(sys.argv[1])
    steps: list[tuple[str, int]] = []

    def step(label: str) -> None:
        gc.collect()
        steps.append((label, _rss_kib()))

    step("python")
    importlib.import_module("pydantic")
    step("pydantic")
    importlib.import_module("textual.app")
    importlib.import_module("textual.widgets")
    step("textual")
    importlib.import_module("agentty_tui.model")
    importlib.import_module("agentty_tui.config.workspace")
    step("our model and config")
    importlib.import_module("agentty_tui.ui")
    importlib.import_module("agentty_tui.bridge.starting")
    step("our picker modules")

    import anyio

    from agentty_tui.bridge.starting import StartingSource
    from agentty_tui.config.workspace import Workspace
    from agentty_tui.ui.app import PickerApp

    async def run() -> None:
        source = StartingSource(Workspace.of_file(config))
        source.load()
        app = PickerApp(source)
        frame = anyio.Event()
        async with app.run_test(size=SIZE) as pilot, anyio.create_task_group() as group:
            await pilot.pause()
            step("first frame (no SDK)")
            importlib.import_module("mcp_types")
            step("mcp_types (the SDK's types)")
            importlib.import_module("mcp")
            step("mcp (the rest of the SDK)")
            importlib.import_module("agentty_tui.bridge.bridge")
            step("our bridge")
            group.start_soon(source.run, frame)
            frame.set()
            with anyio.fail_after(60):
                # Nothing to connect: the source waits for a need of the bridge; an operation
                # (a reload) brings it up, as a picker's first operation would.
                await source.idle.wait()
                await source.reload()
            await pilot.pause()
            step("bridge up (the running picker)")
            source.close()

    anyio.run(run)
    result: dict[str, Any] = {"steps": steps}
    if tracemalloc.is_tracing():
        snapshot = tracemalloc.take_snapshot()
        by_package: dict[str, int] = {}
        for stat in snapshot.statistics("traceback"):
            name = _owner(stat.traceback)
            by_package[name] = by_package.get(name, 0) + stat.size
        result["traced_kib"] = {
            name: round(size / 1024)
            for name, size in sorted(by_package.items(), key=lambda item: -item[1])
        }
    print(json.dumps(result))


def _owner(traceback: tracemalloc.Traceback) -> str:
    """The package an allocation is counted to: the innermost frame that is not the import
    machinery; an allocation made by the import machinery itself (loading a module's code)
    goes to the module being loaded, the frame just outside that machinery being the
    ``import`` statement of its importer, so the loaded module is read from that line."""
    frames = list(reversed(traceback))  # innermost first (``tracemalloc`` keeps it last)
    for index, frame in enumerate(frames):
        if frame.filename.startswith("<frozen importlib"):
            continue
        if index and frames[0].filename.startswith("<frozen importlib"):
            loading = _module_of_import(frame.filename, frame.lineno)
            if loading is not None:
                return loading
        return _package(frame.filename)
    return "interpreter (import machinery)"


def _module_of_import(filename: str, lineno: int) -> str | None:
    """The package the ``import`` statement at ``filename:lineno`` imports, if it is one."""
    import linecache

    words = linecache.getline(filename, lineno).split()
    if len(words) >= 2 and words[0] in ("import", "from"):
        top = words[1].lstrip(".").split(".", 1)[0].rstrip(",")
        if words[1].startswith(".") or top == "agentty_tui":
            return "agentty_tui (ours)" if top in ("", "agentty_tui") else _package(filename)
        if top in sys.stdlib_module_names:
            return "standard library"
        return {"pydantic_core": "pydantic"}.get(top, top)
    return None


if __name__ == "__main__":
    main()
