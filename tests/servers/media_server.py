"""An MCP test server whose tools answer with every kind of content (mcp 2.x ``MCPServer``,
stdio): what a person should read in ``call``'s output and the picker's call dialog.

Tools:
    picture() -> one PNG image of 5,300 bytes (base64 on the wire) and a line of text
    sound() -> one WAV audio clip of 812 bytes
    links() -> a resource link (with a size) and two embedded resources, a text and a blob
    weather(city) -> structured content (an output schema) and its text form

Run: ``python tests/servers/media_server.py``. Only protocol is written to stdout.
"""

from __future__ import annotations

import base64

import mcp_types as types
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

PNG_BYTES = 5300
"""The size of ``picture``'s image."""
WAV_BYTES = 812
"""The size of ``sound``'s clip."""


def _data(size: int) -> str:
    return base64.b64encode(bytes(i % 251 for i in range(size))).decode()


class Weather(BaseModel):
    """``weather``'s structured result."""

    city: str
    """The city asked about."""
    celsius: float
    """Its temperature."""


def build_server() -> MCPServer:
    """The server with its four tools."""
    server: MCPServer = MCPServer("media", version="1.0.0", log_level="WARNING")

    @server.tool(description="An image and a caption.")
    def picture() -> list[types.ContentBlock]:
        return [
            types.ImageContent(type="image", data=_data(PNG_BYTES), mime_type="image/png"),
            types.TextContent(type="text", text="a test pattern"),
        ]

    @server.tool(description="An audio clip.")
    def sound() -> list[types.ContentBlock]:
        return [types.AudioContent(type="audio", data=_data(WAV_BYTES), mime_type="audio/wav")]

    @server.tool(description="A link and two embedded resources.")
    def links() -> list[types.ContentBlock]:
        return [
            types.ResourceLink(
                type="resource_link",
                uri="file:///srv/report.pdf",
                name="report",
                mime_type="application/pdf",
                size=2_400_000,
            ),
            types.EmbeddedResource(
                type="resource",
                resource=types.TextResourceContents(
                    uri="memo://today", mime_type="text/plain", text="hello"
                ),
            ),
            types.EmbeddedResource(
                type="resource",
                resource=types.BlobResourceContents(
                    uri="blob://raw", mime_type="application/octet-stream", blob=_data(3)
                ),
            ),
        ]

    @server.tool(description="The weather in a city, as data.")
    def weather(city: str) -> Weather:
        return Weather(city=city, celsius=21.5)

    return server


if __name__ == "__main__":
    build_server().run("stdio")
