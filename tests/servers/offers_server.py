"""An MCP test server (mcp 2.x ``MCPServer``, stdio) with resources and prompts besides tools.

The 2026-07-28 counterpart of ``legacy_ts/offers.js``: the same resources and prompts, whose
changes it announces on ``subscriptions/listen`` streams (``ctx.notify_resources_changed``,
``ctx.notify_prompts_changed``), as a 2026 server does.

Resources: ``memo://notes/<name>`` (text), first ``first`` and ``second``; the template
``memo://notes/{name}`` reads any name. Prompts: ``greet(name)`` -> "Hello, <name>!".
Tools: ``add_note(name, text)`` adds a resource, ``add_prompt(name)`` a prompt, each announced.

Run: ``python tests/servers/offers_server.py [--name NAME]`` (``--name``: the serverInfo
name, default ``offers``). Only protocol is written to stdout.
"""

from __future__ import annotations

import argparse
import logging
import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.prompts.base import Prompt
from mcp.server.mcpserver.resources.types import TextResource


def build_server(name: str = "offers") -> MCPServer:
    """The server with its two notes, its prompt and its tools."""
    server: MCPServer = MCPServer(name, version="1.0.0", log_level="WARNING")
    for name in ("first", "second"):
        server.add_resource(
            TextResource(uri=f"memo://notes/{name}", name=name, text=f"the {name} note")
        )

    @server.resource("memo://notes/{name}", name="note", mime_type="text/plain")
    def note(name: str) -> str:
        return f"a note called {name}"

    @server.prompt(description="Greet someone.")
    def greet(name: str) -> str:
        return f"Hello, {name}!"

    @server.tool(description="Add the resource memo://notes/<name> and announce it.")
    async def add_note(name: str, text: str, ctx: Context) -> str:
        server.add_resource(TextResource(uri=f"memo://notes/{name}", name=name, text=text))
        await ctx.notify_resources_changed()
        return "added"

    @server.tool(description="Add a prompt without arguments and announce it.")
    async def add_prompt(name: str, ctx: Context) -> str:
        server.add_prompt(Prompt.from_function(lambda: f"prompt {name}", name=name))
        await ctx.notify_prompts_changed()
        return "added"

    return server


def main() -> None:
    """Serve on stdio."""
    # Before MCPServer: its own logging setup is a no-op once the root logger has a handler.
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(name)s: %(message)s")
    parser = argparse.ArgumentParser(description="MCP test server with resources and prompts.")
    parser.add_argument("--name", default="offers", help="serverInfo name")
    build_server(parser.parse_args().name).run("stdio")


if __name__ == "__main__":
    main()
