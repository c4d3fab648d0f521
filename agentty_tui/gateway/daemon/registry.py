"""Who is attached to the gateway daemon: its hosts and its pickers, each while it stays.

``status`` lists them; an attached picker shows the hosts of its workspace and what each one
lists (``daemon.picker_service``), and hears when one comes or goes (``changed``).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import anyio

from agentty_tui.bridge import Bridge

__all__ = ["Attached", "HostRegistry"]


@dataclass(eq=False)
class Attached:
    """One attached host or picker (compared by identity: two may say the same)."""

    host: str | None
    """The host whose view it is served (``None``: every host's servers)."""
    workspace: str
    """The project folder or the one file it is served."""
    key: tuple[str, str, bool]
    """Its ``Attachment.key``: attachments of one key are of one workspace."""
    bridge: Bridge
    """The bridge that serves it."""
    pid: int | None
    """Its process id, as the kernel said."""
    picker: bool = False
    """A picker rather than a host."""
    since: str = field(default_factory=lambda: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    """When it attached (UTC)."""

    def status(self) -> dict[str, Any]:
        """The entry as ``status --json`` shows it."""
        return {
            "host": self.host,
            "workspace": self.workspace,
            "since": self.since,
            "pid": self.pid,
        }


class HostRegistry:
    """The attached hosts and pickers of one daemon."""

    def __init__(self) -> None:
        self._entries: list[Attached] = []
        self._changed = anyio.Event()

    @contextlib.contextmanager
    def listed(self, entry: Attached) -> Iterator[None]:
        """List ``entry`` for as long as the block runs."""
        self._entries.append(entry)
        self._moved()
        try:
            yield
        finally:
            self._entries.remove(entry)
            self._moved()

    def _moved(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    def hosts(self, key: tuple[str, str, bool] | None = None) -> list[Attached]:
        """The attached hosts (of the workspace ``key`` alone, when given), in the order they
        came."""
        return [e for e in self._entries if not e.picker and (key is None or e.key == key)]

    def pickers(self) -> list[Attached]:
        """The attached pickers."""
        return [entry for entry in self._entries if entry.picker]

    async def changed(self) -> None:
        """Return once an entry comes or goes."""
        await self._changed.wait()
