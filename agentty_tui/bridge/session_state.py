"""What one server's session publishes: a frozen ``SessionState``, replaced whole on change.

The session is the only writer; the bridge (and the one-shot probe) only read the value, either
the one handed to ``on_change(state)`` or ``ServerSession.state``, which is the same object.
Nothing here is mutable, so a reader may keep a state as long as it likes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agentty_tui.model import AdvertisedTool, AuthState, DroppedTool, ServerInfo, ServerStatus

__all__ = ["SessionState"]


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
