"""What a picker attached to the gateway daemon shows of it: the daemon, its hosts, who sees what.

Plain values, kept apart from the link that carries them (``picker.link``) and the source that
receives them (``picker.remote_source``), so that the picker reads them without either.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the SDK's types: named here, imported by whoever asks
    import mcp_types as types

__all__ = ["MAX_DURING", "AskedBy", "AttachedHost", "DaemonAsk", "DaemonView"]

MAX_DURING = 8
"""Hosts an ``AskedBy`` names as those whose calls were in flight (more are counted)."""


@dataclass(frozen=True, slots=True)
class AskedBy:
    """Who a server's form or page, asked of the picker by the daemon, comes from."""

    server: str
    """The server that asks (its name in the workspace)."""
    tool: str | None = None
    """The tool of the call it came during; ``None``: outside any call."""
    by_host: bool = False
    """During a call of an attached host (not the picker's own)."""
    host: str | None = None
    """That host's name (``None``: a ``serve`` without ``--host``)."""
    project: str | None = None
    """The project (or the one file) that host is served."""
    during: tuple[tuple[str | None, str], ...] = ()
    """Outside any one call, but during calls of several hosts at once (a 2025 server's request
    that names none of them): each host's name (``None``: every host's view) and project, at
    most ``MAX_DURING``."""
    during_more: int = 0
    """How many more hosts' calls were in flight than ``during`` names."""
    during_others: int = 0
    """How many other callers' calls were in flight too (the picker's own)."""

    @property
    def during_calls(self) -> bool:
        """Whether it came during calls of several callers, none of them known to be its."""
        return bool(self.during or self.during_more or self.during_others)

    @classmethod
    def of_json(cls, server: str, value: Any) -> AskedBy:
        """Who the link says asks (anything of the wrong shape left out)."""
        found = value if isinstance(value, Mapping) else {}

        def text(name: str) -> str | None:
            item = found.get(name)
            return item if isinstance(item, str) else None

        def count(name: str) -> int:
            item = found.get(name)
            return item if isinstance(item, int) and not isinstance(item, bool) and item > 0 else 0

        listed = found.get("during")
        hosts = [
            (entry.get("host"), entry["project"])
            for entry in (listed if isinstance(listed, list) else [])
            if isinstance(entry, Mapping)
            and isinstance(entry.get("project"), str)
            and isinstance(entry.get("host"), str | None)
        ]
        return cls(
            server=server,
            tool=text("tool"),
            by_host=found.get("by_host") is True,
            host=text("host"),
            project=text("project"),
            during=tuple(hosts[:MAX_DURING]),
            during_more=count("during_more") + max(0, len(hosts) - MAX_DURING),
            during_others=count("during_others"),
        )


DaemonAsk = Callable[[AskedBy, "types.ElicitRequestParams"], Awaitable["types.ElicitResult"]]
"""Answers a form or page the daemon asks of the picker, told who asks."""


@dataclass(frozen=True, slots=True)
class AttachedHost:
    """One host attached to the daemon for the picker's workspace."""

    host: str | None
    """The host whose view it is served (``serve --host``); ``None``: every host's servers."""
    project: str
    """The project folder (or the one file) it is served."""
    since: str
    """When it attached (UTC, ``2026-12-02T15:40:02Z``)."""
    tools: frozenset[tuple[str, str]] = field(default_factory=frozenset)
    """Each tool it lists now, as ``(server, tool)`` (its wire catalog in the daemon)."""

    @property
    def label(self) -> str:
        """The host's name as shown (``every host`` for a ``serve`` without ``--host``)."""
        return self.host or "every host"

    def to_json(self) -> dict[str, Any]:
        """The host as the link sends it."""
        return {
            "host": self.host,
            "project": self.project,
            "since": self.since,
            "tools": sorted([server, tool] for server, tool in self.tools),
        }

    @classmethod
    def of_json(cls, value: Mapping[str, Any]) -> AttachedHost:
        """The host the link said; ``ValueError`` for what is not one."""
        host, project, since = value.get("host"), value.get("project"), value.get("since")
        tools = value.get("tools")
        if not (
            (host is None or isinstance(host, str))
            and isinstance(project, str)
            and isinstance(since, str)
            and isinstance(tools, list)
        ):
            raise ValueError("an attached host is an object with host, project, since and tools")
        pairs: set[tuple[str, str]] = set()
        for pair in tools:
            if not (
                isinstance(pair, list) and len(pair) == 2 and all(isinstance(p, str) for p in pair)
            ):
                raise ValueError("an attached host's tools are [server, tool] pairs")
            pairs.add((pair[0], pair[1]))
        return cls(host, project, since, frozenset(pairs))


@dataclass(frozen=True, slots=True)
class DaemonView:
    """The daemon as an attached picker sees it."""

    pid: int | None
    """The daemon's process id (``None`` while none is attached)."""
    attached: bool = True
    """Whether the picker is attached now; ``False`` once the daemon went away."""
    hosts: tuple[AttachedHost, ...] = ()
    """The hosts attached for the picker's workspace, in the order they came."""
    note: str | None = None
    """What the user should know (the daemon went away, and what the picker does about it)."""

    def seen_by(self, server: str, tool: str) -> tuple[AttachedHost, ...]:
        """The attached hosts that list ``tool`` of ``server`` now."""
        return tuple(host for host in self.hosts if (server, tool) in host.tools)
