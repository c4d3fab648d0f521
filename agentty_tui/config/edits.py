"""The vocabulary of config changes: small frozen values, the same for every dialect.

The edit engine (``engine.py``) applies each one through a dialect's adapter, touching only the
keys the edit owns, so everything else in the user's file is carried over as it was.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from agentty_tui.model import ServerSpec

__all__ = [
    "AddServer",
    "ConfigEdit",
    "RemoveServer",
    "SetServerDisabled",
    "SetToolEnabled",
    "SetToolFilter",
    "UpdateServer",
]


@dataclass(frozen=True, slots=True)
class AddServer:
    """Add a server entry; refused when a server of that name exists."""

    name: str
    """The new config key."""
    spec: ServerSpec
    """How to reach the server; written back in the on-disk shape."""
    connect_timeout: float | None = None
    """Seconds to connect and list tools; ``None`` leaves the default (nothing written)."""
    request_timeout: float | None = None
    """Seconds any one request may take; ``None`` leaves the default (nothing written)."""


@dataclass(frozen=True, slots=True)
class RemoveServer:
    """Remove a server entry; refused when there is none of that name."""

    name: str
    """The config key to drop."""


@dataclass(frozen=True, slots=True)
class SetToolEnabled:
    """Turn one tool of a server on or off through the entry's ``tools`` include/exclude lists."""

    server: str
    """The config key of the server."""
    tool: str
    """The bare tool name, as the server advertises it."""
    enabled: bool
    """The wanted state."""


@dataclass(frozen=True, slots=True)
class SetServerDisabled:
    """Keep a server in the config but stop (or resume) starting it."""

    server: str
    """The config key of the server."""
    disabled: bool
    """The wanted state."""


@dataclass(frozen=True, slots=True)
class SetToolFilter:
    """Replace a server's whole tool filter, e.g. to carry an imported server's lists over."""

    server: str
    """The config key of the server."""
    include: tuple[str, ...] | None
    """The allow-list (``None``: no allow-list, every tool not excluded is on)."""
    exclude: tuple[str, ...] = ()
    """The deny-list."""


@dataclass(frozen=True, slots=True)
class UpdateServer:
    """Replace how an existing server is reached; every other key of its entry stays as written.

    The keys of the connection (``command`` / ``args`` / ``env`` / ``cwd``, or ``url`` /
    ``headers`` / the transport) are rewritten in the file's own spelling, and only those whose
    value changed; tool lists, the disabled flag, ``oauth``, unknown keys and comments stay.
    Refused (``ConfigError`` naming the file and server) when there is no such server.
    """

    server: str
    """The config key of the server."""
    spec: ServerSpec
    """How to reach it from now on."""
    connect_timeout: float | None = None
    """New seconds to connect and list tools; ``None`` keeps what the entry says."""
    request_timeout: float | None = None
    """New seconds any one request may take; ``None`` keeps what the entry says."""


ConfigEdit: TypeAlias = (
    AddServer | RemoveServer | SetToolEnabled | SetServerDisabled | SetToolFilter | UpdateServer
)
"""Every change the config layer knows how to write."""
