"""What one server's session publishes: a frozen ``SessionState``, replaced whole on change.

The session is the only writer; the bridge (and the one-shot probe) only read the value, either
the one handed to ``on_change(state)`` or ``ServerSession.state``, which is the same object.
Nothing here is mutable, so a reader may keep a state as long as it likes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mcp import Client

from agentty_tui.bridge import tool_pages
from agentty_tui.bridge.relist import noisy_warning
from agentty_tui.model import AdvertisedTool, AuthState, DroppedTool, ServerInfo, ServerStatus

__all__ = ["SessionState", "server_info", "session_warnings"]


@dataclass(frozen=True, slots=True)
class SessionState:
    """One session's live state at one instant (compare two with ``==``: the re-list counter
    is left out, so a re-list that found the same tools is no change)."""

    status: ServerStatus = "connecting"
    """``connecting`` until the first listing; then ``connected``, ``failed`` or
    ``needs_login`` (a session is never ``disabled`` or ``untrusted``: it is not started)."""
    error: str | None = None
    """Why the session is not connected, scrubbed of expanded secrets; ``None`` when it is."""
    info: ServerInfo | None = None
    """What the server said about itself in the handshake, once connected."""
    tools: tuple[AdvertisedTool, ...] = ()
    """The advertised tools of the latest complete listing (replaced, never merged)."""
    dropped_tools: tuple[DroppedTool, ...] = ()
    """Tools of that listing that break the MCP rules, each with the reason."""
    pid: int | None = None
    """Process id of the stdio server from its handshake until the session has closed."""
    warnings: tuple[str, ...] = ()
    """What the user should know about a server that otherwise works, one line each."""
    auth: AuthState | None = None
    """The server's OAuth login state (URL servers that use OAuth); ``None`` otherwise."""
    relists: int = field(default=0, compare=False)
    """How many re-lists ``tools/list_changed`` has caused so far (diagnostics and tests)."""


def session_warnings(log_problem: str | None, pages_cut: bool, noisy: bool) -> tuple[str, ...]:
    """What the user should know about a server that otherwise works, one line each."""
    found: list[str] = []
    if log_problem is not None:
        found.append(f"{log_problem}; the server runs without its log")
    if pages_cut:
        found.append(
            f"its tool list did not end after {tool_pages.MAX_TOOL_PAGES:,} pages; "
            "only those pages are shown"
        )
    if noisy:
        found.append(noisy_warning())
    return tuple(found)


def server_info(client: Client) -> ServerInfo:
    """What a connected server said about itself in the handshake."""
    found = client.server_info
    return ServerInfo(
        name=found.name if found else None,
        version=found.version if found else None,
        protocol_version=client.protocol_version,
    )
