"""An MCP test server whose tools ask the client to fill a form (elicitation), stdio.

Tools:
    ask() -> asks for a form with defaults (name "Ada", age 36, plus a field without one)
             and returns ``"<action> <JSON of the answer>"``
    ask_contact() -> asks for a form that requires a field without a default (an email)
             and returns the same

The form is asked through a resolver, so the SDK uses whichever way the negotiated protocol
has: a request mid-call up to 2025-11-25, an ``input_required`` round from 2026-07-28.

Run: ``python tests/servers/form_server.py``. Only protocol is written to stdout.
"""

from __future__ import annotations

import json
import logging
import sys
from typing import Annotated

from mcp.server.mcpserver import Elicit, ElicitationResult, MCPServer, Resolve
from pydantic import BaseModel, Field


class Profile(BaseModel):
    """The form ``ask`` sends: two fields with a default, one without."""

    name: str = Field(default="Ada", description="your name")
    age: int = Field(default=36, description="your age")
    nickname: str | None = Field(default=None, description="no default worth sending")


class Contact(BaseModel):
    """The form ``ask_contact`` sends: a required field no default can fill."""

    email: str = Field(description="where to reach you")
    name: str = Field(default="Ada", description="your name")


def _contact() -> Elicit[Contact]:
    return Elicit("How can we reach you?", Contact)


def _profile() -> Elicit[Profile]:
    return Elicit("Fill in your profile", Profile)


def build_server() -> MCPServer:
    """Build the server with its asking tool."""
    server: MCPServer = MCPServer("form", version="1.0.0", log_level="WARNING")

    @server.tool(description="Ask for a profile form, return what came back.")
    async def ask(answer: Annotated[ElicitationResult[Profile], Resolve(_profile)]) -> str:
        data = answer.data.model_dump() if answer.action == "accept" else None
        return f"{answer.action} {json.dumps(data, sort_keys=True)}"

    @server.tool(description="Ask for a contact form, return what came back.")
    async def ask_contact(answer: Annotated[ElicitationResult[Contact], Resolve(_contact)]) -> str:
        data = answer.data.model_dump() if answer.action == "accept" else None
        return f"{answer.action} {json.dumps(data, sort_keys=True)}"

    return server


def main() -> None:
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    build_server().run("stdio")


if __name__ == "__main__":
    main()
