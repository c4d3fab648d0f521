"""An MCP test server (mcp 2.x ``MCPServer``, stdio) with resources and prompts besides tools.

The 2026-07-28 counterpart of ``legacy_ts/offers.js``: the same resources and prompts, whose
changes it announces on ``subscriptions/listen`` streams (``ctx.notify_resources_changed``,
``ctx.notify_prompts_changed``), as a 2026 server does.

Resources: ``memo://notes/<name>`` (text), first ``first`` and ``second``; the template
``memo://notes/{name}`` reads any name. Prompts: ``greet(name)`` -> "Hello, <name>!".
Tools: ``add_note(name, text)`` adds a resource, ``add_prompt(name)`` a prompt, each announced;
``touch_note(name, text)`` sets a note's text and publishes ``notifications/resources/updated``
for it (to the listen streams that name it); ``subscriptions()`` says how many listen streams
that name resources are open now and were opened in all (JSON ``{"open": n, "opened": n}``),
and ``log(level, text)`` logs for the call (2026-07-28: only when the call opted in, at or
above its level; SEP-2577).

Run: ``python tests/servers/offers_server.py [--name NAME]`` (``--name``: the serverInfo
name, default ``offers``). Only protocol is written to stdout.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import warnings
from typing import Any, cast

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.prompts.base import Prompt
from mcp.server.mcpserver.resources.types import TextResource
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types import LoggingLevel


class ListenCount:
    """A middleware that counts the ``subscriptions/listen`` streams that name resources."""

    def __init__(self) -> None:
        self.open = 0
        self.opened = 0

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        notifications = (ctx.params or {}).get("notifications") or {}
        if ctx.method != "subscriptions/listen" or not notifications.get("resourceSubscriptions"):
            return await call_next(ctx)
        self.open += 1
        self.opened += 1
        try:
            return await call_next(ctx)
        finally:
            self.open -= 1


def build_server(name: str = "offers") -> MCPServer:
    """The server with its two notes, its prompt and its tools."""
    listens = ListenCount()
    server: MCPServer = MCPServer(name, version="1.0.0", log_level="WARNING", middleware=[listens])
    notes: dict[str, TextResource] = {}
    for name in ("first", "second"):
        notes[name] = TextResource(uri=f"memo://notes/{name}", name=name, text=f"the {name} note")
        server.add_resource(notes[name])

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

    @server.tool(description="Set a note's text and publish resources/updated for it.")
    async def touch_note(name: str, text: str, ctx: Context) -> str:
        uri = f"memo://notes/{name}"
        if name in notes:
            notes[name].text = text
        else:
            notes[name] = TextResource(uri=uri, name=name, text=text)
            server.add_resource(notes[name])
        await ctx.notify_resource_updated(uri)
        return "touched"

    @server.tool(description="How many listen streams naming resources are and were open.")
    def subscriptions() -> str:
        return json.dumps({"open": listens.open, "opened": listens.opened})

    @server.tool(description="Log for this call at a level (sent only when the call opted in).")
    async def log(level: str, text: str, ctx: Context) -> str:
        with warnings.catch_warnings():  # deprecated (SEP-2577), still served
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await ctx.log(cast(LoggingLevel, level), text, logger_name="offers")
        return "logged"

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
