"""Which servers wait for the user's trust before they start, and the trust given this run.

A server waits when ``config.trust.needs_trust`` says so (a project file's entry not trusted on
disk yet, or a stdio entry of a file others can write) and the user has not trusted it in this
process: the whole config (``--trust``, ``T`` on one file), or that entry as it is now (by a hash
of its file, name and connection, so that a changed entry asks again). The command line asks the
same gate (``TrustGate(everything=--trust)``) before it connects a server of its own (``call``,
``login``), so no command reaches a server the bridge would hold back.
"""

from __future__ import annotations

from collections.abc import Collection

from agentty_tui.config.project_trust import entry_hash
from agentty_tui.config.trust import needs_trust
from agentty_tui.errors import OperationError
from agentty_tui.model import PluginConfig, ServerConfig

__all__ = ["TrustGate"]


class TrustGate:
    """The trust given in this process."""

    def __init__(self, *, everything: bool = False) -> None:
        """``everything``: trust every server (``--trust``)."""
        self.everything = everything
        """Whether every server is trusted for this run."""
        self._entries: set[str] = set()

    def gated(self, config: PluginConfig, server: ServerConfig) -> bool:
        """Whether ``server`` of ``config`` waits for trust."""
        if self.everything or not needs_trust(config, server):
            return False
        # Hashed only for an entry that waits: this runs for every server at every publish.
        return not self._entries or entry_hash(server) not in self._entries

    def refuse_untrusted(self, config: PluginConfig, server: ServerConfig, what: str) -> None:
        """Raise ``OperationError`` (``server 'x' <what>: <why>``) when ``server`` of ``config``
        waits for trust. Every way of reaching a server asks this before the first byte goes
        out: a start, a restart, a call, a login (a project's URL server would receive the
        file's headers, expanded, and a login sends them to its discovery requests)."""
        if not self.gated(config, server):
            return
        if server.untrusted is None:
            why = "the config file is not trusted (--trust runs it)"
        else:
            why = f"it waits for trust (agentty-tui trust {server.name}, or --trust once)"
        raise OperationError(f"server {server.name!r} {what}: {why}")

    def trust_entries(self, config: PluginConfig, names: Collection[str] | None) -> None:
        """Trust the waiting entries ``names`` of ``config`` (or all), as they are, for this run."""
        self._entries.update(
            entry_hash(server)
            for server in config.servers
            if server.untrusted is not None and (names is None or server.name in names)
        )
