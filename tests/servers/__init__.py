"""Real subprocess MCP servers for the integration tests, and the argv to start each one.

Every server here is a standalone program spoken to over stdio (spawn it with
``StdioServerParameters(command=argv[0], args=argv[1:])``); they write nothing but
protocol to stdout. The Python ones run under ``sys.executable`` (the interpreter
running the tests, so the venv's mcp 2.x is importable).

- ``plain_server.py``    static tools: echo, add, pid, sleep.
- ``light_plain_server.py`` the same four tools without the SDK (stdio): starts in tens of ms,
                         for the many tests that test the client, not the server.
- ``gated_server.py``    toolsets revealed at run time; notifies tools/list_changed in
                         both protocol eras; ``burst(count)`` for coalescing tests.
- ``paged_server.py``    paginated tools/list (25 tools, 10 per page by default).
- ``scalable_server.py`` N tools, optional start-up delay (benchmarks, scale tests).
- ``light_server.py``    the same N tools without the SDK (raw JSON-RPC): starts in tens of
                         ms, for benchmarks that start tens of servers at once; slow to exit
                         (``--exit-delay``) or deaf to its stdin's end (``--linger``);
                         ``--hinted``: annotated tools, and one whose output breaks its schema.
- ``hostile_server.py``  raw JSON-RPC: every string carries terminal controls; tools that
                         fail, hang, die mid-call; odd input schemas.
- ``endless_http_server.py`` raw HTTP/1.1: every answer is a body (or an event) without end.
- ``flood_server.py``    raw JSON-RPC; floods stderr or stdout, loops on list_changed, sends
                         a too-deep schema, endless pages or an over-long line.
- ``offers_server.py``  resources, a resource template and prompts besides tools; announces
                         their changes on ``subscriptions/listen`` (2026-07-28).
- ``legacy_ts/offers.js`` the same offers on the TypeScript SDK (2025 era): resources and
                         prompts list_changed as notifications, log messages, ``setLevel``.
- ``asking_server.py``   tools that report progress, ask a form or a URL, ask for roots, wait
                         to be cancelled, ask for sampling; ``--legacy``: the 2025 handshake
                         era only.
- ``elicit_server.py``   no SDK, 2025 handshake: a form of every kind of field mid-call, a URL
                         mid-call, a ``-32042`` and its completion, forms asked outside any
                         call (the picker's form and URL dialogs).
- ``legacy_ts/``         a TypeScript-SDK server that speaks only the 2025 handshake era
                         (answers ``server/discover`` with -32601); needs node and
                         ``npm ci`` in that folder (see ``legacy_ts_available``).
- ``everything_argv()``  not ours: the reference server ``@modelcontextprotocol/server-everything``
                         from npm (pinned in ``legacy_ts/package.json``), a peer that gates
                         tools on the client's capabilities; ``require_everything()`` skips a
                         test, saying why, where node or the package is missing.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from mcp import StdioServerParameters

SERVERS_DIR = Path(__file__).resolve().parent
LEGACY_TS_DIR = SERVERS_DIR / "legacy_ts"
LEGACY_TS_SERVER = LEGACY_TS_DIR / "server.js"
LEGACY_TS_OFFERS = LEGACY_TS_DIR / "offers.js"
EVERYTHING_DIR = LEGACY_TS_DIR / "node_modules" / "@modelcontextprotocol" / "server-everything"
EVERYTHING_MAIN = EVERYTHING_DIR / "dist" / "index.js"

# What each server advertises, in advertised order (kept in step with the servers).
PLAIN_TOOLS: tuple[str, ...] = ("echo", "add", "pid", "sleep")
GATED_BASE_TOOLS: tuple[str, ...] = (
    "enable_toolset",
    "disable_toolset",
    "list_toolsets",
    "pid",
    "burst",
)
GATED_TOOLSETS: dict[str, tuple[str, ...]] = {
    "scene": ("scene_open", "scene_save"),
    "script": ("script_edit", "script_run"),
}
PAGED_DEFAULT_TOOLS = 25
PAGED_DEFAULT_PAGE_SIZE = 10
LEGACY_TS_TOOLS: tuple[str, ...] = ("echo", "pid", "reveal", "hide")
LEGACY_TS_REVEALED_TOOL = "revealed_tool"
EVERYTHING_TOOLS: tuple[str, ...] = (
    "echo",
    "get-annotated-message",
    "get-env",
    "get-resource-links",
    "get-resource-reference",
    "get-structured-content",
    "get-sum",
    "get-tiny-image",
    "gzip-file-as-resource",
    "toggle-simulated-logging",
    "toggle-subscriber-updates",
    "trigger-long-running-operation",
    # Registered only for a client that declares roots, form elicitation, URL elicitation:
    "get-roots-list",
    "trigger-elicitation-request",
    "trigger-url-elicitation",
    # A task-only tool (``execution.taskSupport: "required"``), registered for every client:
    "simulate-research-query",
)
"""What server-everything (the pinned version) lists to a client with agentty's capabilities
(elicitation in both modes and roots, no sampling, no tasks), in its order."""


def python_server_argv(script: str, *extra: str) -> list[str]:
    """argv for a Python server script in this folder, run by the current interpreter."""
    return [sys.executable, str(SERVERS_DIR / script), *extra]


def plain_argv(*extra: str) -> list[str]:
    """argv for ``light_plain_server.py``, the plain server without the SDK (stdio only); e.g.
    ``plain_argv("--name", "alpha")``. What most tests start: they test the client."""
    return python_server_argv("light_plain_server.py", *extra)


def plain_sdk_argv(*extra: str) -> list[str]:
    """argv for ``plain_server.py``, the same tools served by the SDK: for HTTP transports and
    for tests of how the client meets the SDK's own server."""
    return python_server_argv("plain_server.py", *extra)


def asking_argv(*extra: str) -> list[str]:
    """argv for ``asking_server.py``; ``asking_argv("--legacy")`` for the 2025 era only."""
    return python_server_argv("asking_server.py", *extra)


def gated_argv(*extra: str) -> list[str]:
    """argv for ``gated_server.py``; e.g. ``gated_argv("--enable", "scene")``."""
    return python_server_argv("gated_server.py", *extra)


def hostile_argv(*extra: str) -> list[str]:
    """argv for ``hostile_server.py``; e.g. ``hostile_argv("--exit-at-start")``."""
    return python_server_argv("hostile_server.py", *extra)


def paged_argv(*extra: str) -> list[str]:
    """argv for ``paged_server.py``; e.g. ``paged_argv("--tools", "30", "--page-size", "7")``."""
    return python_server_argv("paged_server.py", *extra)


def scalable_argv(
    tools: int = 10, *extra: str, delay: float = 0.0, name: str | None = None
) -> list[str]:
    """argv for ``scalable_server.py`` with ``tools`` tools and an optional start-up delay."""
    argv = python_server_argv("scalable_server.py", "--tools", str(tools))
    if delay:
        argv += ["--delay", str(delay)]
    if name is not None:
        argv += ["--name", name]
    return [*argv, *extra]


def light_argv(tools: int = 10, *, name: str | None = None) -> list[str]:
    """argv for ``light_server.py`` with ``tools`` tools (named as ``scalable_tool_names``)."""
    argv = python_server_argv("light_server.py", "--tools", str(tools))
    return [*argv, "--name", name] if name is not None else argv


def endless_http_argv(*extra: str) -> list[str]:
    """argv for ``endless_http_server.py``; e.g. ``endless_http_argv("--mode", "sse")``."""
    return python_server_argv("endless_http_server.py", *extra)


def flood_argv(*extra: str) -> list[str]:
    """argv for ``flood_server.py``; e.g. ``flood_argv("--stderr", "-1")``."""
    return python_server_argv("flood_server.py", *extra)


def scalable_tool_names(count: int) -> list[str]:
    """The names ``scalable_server.py --tools count`` advertises, in order."""
    width = max(4, len(str(count - 1)))
    return [f"tool_{i:0{width}d}" for i in range(count)]


def demo_argv(module: str, *extra: str) -> list[str]:
    """argv for a packaged demo server, e.g. ``demo_argv("notes")`` (``agentty_tui.demo.notes``)."""
    return [sys.executable, "-m", f"agentty_tui.demo.{module}", *extra]


def legacy_ts_argv() -> list[str]:
    """argv for the TypeScript-SDK legacy server (check ``legacy_ts_available()`` first)."""
    return [shutil.which("node") or "node", str(LEGACY_TS_SERVER)]


def offers_argv(*extra: str) -> list[str]:
    """argv for ``offers_server.py`` (2026-07-28: resources and prompts)."""
    return python_server_argv("offers_server.py", *extra)


def legacy_offers_argv(*extra: str) -> list[str]:
    """argv for ``legacy_ts/offers.js`` (2025 era: resources, prompts, log messages; with
    ``--subscribe``, resource subscriptions; check ``legacy_ts_available()`` first)."""
    return [shutil.which("node") or "node", str(LEGACY_TS_OFFERS), *extra]


def legacy_ts_available() -> bool:
    """True if node is on PATH and the pinned SDK is installed (``npm ci`` in ``legacy_ts/``)."""
    sdk = LEGACY_TS_DIR / "node_modules" / "@modelcontextprotocol" / "sdk" / "package.json"
    return shutil.which("node") is not None and sdk.is_file()


def everything_argv() -> list[str]:
    """argv for server-everything over stdio (call ``require_everything()`` first)."""
    return [shutil.which("node") or "node", str(EVERYTHING_MAIN), "stdio"]


def require_everything() -> None:
    """Skip the calling test, saying why, unless node is on PATH and server-everything is
    installed (``npm ci --prefix tests/servers/legacy_ts``, which ``.ci/run`` does)."""
    if shutil.which("node") is None:
        pytest.skip("server-everything needs node, which is not on PATH")
    if not EVERYTHING_MAIN.is_file():
        pytest.skip(
            "server-everything is not installed: run npm ci --prefix tests/servers/legacy_ts"
        )


def stdio_params(
    argv: Sequence[str],
    env: dict[str, str] | None = None,
    cwd: str | Path | None = None,
) -> StdioServerParameters:
    """``StdioServerParameters`` for an argv returned by one of the functions above."""
    return StdioServerParameters(command=argv[0], args=list(argv[1:]), env=env, cwd=cwd)


__all__ = [
    "EVERYTHING_DIR",
    "EVERYTHING_MAIN",
    "EVERYTHING_TOOLS",
    "GATED_BASE_TOOLS",
    "GATED_TOOLSETS",
    "LEGACY_TS_DIR",
    "LEGACY_TS_OFFERS",
    "LEGACY_TS_REVEALED_TOOL",
    "LEGACY_TS_SERVER",
    "LEGACY_TS_TOOLS",
    "PAGED_DEFAULT_PAGE_SIZE",
    "PAGED_DEFAULT_TOOLS",
    "PLAIN_TOOLS",
    "SERVERS_DIR",
    "demo_argv",
    "endless_http_argv",
    "everything_argv",
    "flood_argv",
    "gated_argv",
    "hostile_argv",
    "legacy_offers_argv",
    "legacy_ts_argv",
    "legacy_ts_available",
    "offers_argv",
    "paged_argv",
    "plain_argv",
    "plain_sdk_argv",
    "python_server_argv",
    "require_everything",
    "scalable_argv",
    "scalable_tool_names",
    "stdio_params",
]
