"""A gated MCP test server, shaped like a Godot-editor server (mcp 2.x ``MCPServer``).

Most tools are hidden behind toolsets that the model switches on and off at run time,
so the tool list changes while the session is live and the server sends
``notifications/tools/list_changed``.

Always present:
    enable_toolset(name)  adds that toolset's tools, notifies list_changed
    disable_toolset(name) removes them, notifies list_changed
    list_toolsets()       "scene: on, script: off"
    pid()                 the server's PID
    burst(count)          sends ``count`` list_changed notifications back to back
                          without changing anything (for coalescing tests)

Toolsets:
    scene:  scene_open(path), scene_save()
    script: script_edit(path, content), script_run(path)

The notification reaches clients of both protocol eras: on a 2026-07-28 connection it
is published to ``subscriptions/listen`` streams (``ctx.notify_tools_changed()``; only
clients that opened ``client.listen(tools_list_changed=True)`` see it); on a 2025
handshake connection it is sent on the session (``send_tool_list_changed()``) and
arrives at the client's ``message_handler``. A toggle that changes nothing (enabling an
enabled toolset) sends no notification. On every transport a 2025 handshake advertises
``tools.listChanged``.

Run: ``python tests/servers/gated_server.py [--name NAME] [--enable TOOLSET ...]
[--transport T --port N]``; ``--transport streamable-http`` (path ``/mcp``) or ``sse``
(path ``/sse``) serves on 127.0.0.1:N instead of stdio. Only protocol is written to stdout;
logs go to stderr at WARNING.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable
from typing import Any

from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.models import InitializationOptions
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from agentty_tui.bridge._sdk import lowlevel_server


def _scene_open(path: str) -> str:
    return f"opened scene {path}"


def _scene_save() -> str:
    return "scene saved"


def _script_edit(path: str, content: str) -> str:
    return f"wrote {len(content)} characters to {path}"


def _script_run(path: str) -> str:
    return f"ran {path}: ok"


# toolset -> [(tool name, function, description)], in advertised order.
TOOLSETS: dict[str, list[tuple[str, Callable[..., Any], str]]] = {
    "scene": [
        ("scene_open", _scene_open, "Open a scene file in the editor."),
        ("scene_save", _scene_save, "Save the open scene."),
    ],
    "script": [
        ("script_edit", _script_edit, "Replace the content of a script file."),
        ("script_run", _script_run, "Run a script and return its output."),
    ],
}


async def notify_tools_changed(ctx: Context) -> None:
    """Send tools/list_changed in the era this connection speaks."""
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        await ctx.notify_tools_changed()
    else:
        await ctx.request_context.session.send_tool_list_changed()


def build_server(name: str = "gated", enabled: tuple[str, ...] = ()) -> MCPServer:
    """Build the server; toolsets named in ``enabled`` start switched on."""
    server: MCPServer = MCPServer(name, version="1.0.0", log_level="WARNING")
    on: set[str] = set()

    def switch(toolset: str, enable: bool) -> bool:
        """Add or remove a toolset's tools; True if anything changed."""
        if toolset not in TOOLSETS:
            known = ", ".join(TOOLSETS)
            raise ToolError(f"unknown toolset {toolset!r} (known: {known})")
        if (toolset in on) == enable:
            return False
        for tool_name, fn, description in TOOLSETS[toolset]:
            if enable:
                server.add_tool(fn, name=tool_name, description=description)
            else:
                server.remove_tool(tool_name)
        (on.add if enable else on.discard)(toolset)
        return True

    @server.tool(description="Enable a toolset: its tools are added to this server's tool list.")
    async def enable_toolset(name: str, ctx: Context) -> str:
        if switch(name, True):
            await notify_tools_changed(ctx)
            return f"enabled {name}"
        return f"{name} already enabled"

    @server.tool(description="Disable a toolset: its tools are removed from the tool list.")
    async def disable_toolset(name: str, ctx: Context) -> str:
        if switch(name, False):
            await notify_tools_changed(ctx)
            return f"disabled {name}"
        return f"{name} already disabled"

    @server.tool(description="List the toolsets and whether each is enabled.")
    def list_toolsets() -> str:
        return ", ".join(f"{t}: {'on' if t in on else 'off'}" for t in TOOLSETS)

    @server.tool(description="Return the PID of this server process.")
    def pid() -> int:
        return os.getpid()

    @server.tool(description="Send `count` tools/list_changed notifications as fast as possible.")
    async def burst(count: int, ctx: Context) -> str:
        for _ in range(count):
            await notify_tools_changed(ctx)
        return f"sent {count}"

    for toolset in enabled:
        switch(toolset, True)
    return server


def advertise_tools_changed(server: MCPServer) -> None:
    """Advertise ``tools.listChanged`` in the ``initialize`` answer of every transport.

    (On 2026-07-28 the SDK derives ``listChanged`` from ``subscriptions/listen`` itself.)
    """
    lowlevel = lowlevel_server(server)
    default_options = lowlevel.create_initialization_options

    def with_tools_changed(
        notification_options: NotificationOptions | None = None, *args: Any, **kwargs: Any
    ) -> InitializationOptions:
        options = notification_options or NotificationOptions(tools_changed=True)
        return default_options(options, *args, **kwargs)

    # Only stdio lets the caller pass options: the SSE app and the streamable-HTTP session
    # manager call this without arguments, so the default itself has to change.
    lowlevel.create_initialization_options = with_tools_changed  # type: ignore[method-assign]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Gated MCP test server (toolsets).")
    parser.add_argument("--name", default="gated", help="serverInfo name")
    parser.add_argument(
        "--enable",
        action="append",
        default=[],
        choices=sorted(TOOLSETS),
        help="start with this toolset enabled (repeatable)",
    )
    parser.add_argument("--transport", choices=("stdio", "streamable-http", "sse"), default="stdio")
    parser.add_argument("--port", type=int, default=0, help="loopback port for HTTP transports")
    args = parser.parse_args(argv)
    # Before MCPServer: its own logging setup is a no-op once the root logger has a handler.
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(name)s: %(message)s")
    server = build_server(args.name, tuple(args.enable))
    advertise_tools_changed(server)
    if args.transport == "stdio":
        server.run("stdio")
    else:
        server.run(args.transport, host="127.0.0.1", port=args.port)


if __name__ == "__main__":
    main()
