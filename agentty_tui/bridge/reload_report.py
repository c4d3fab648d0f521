"""What one reload did, in words the picker and the command line can show as they are."""

from __future__ import annotations

from dataclasses import dataclass

from agentty_tui.model import PluginModel

__all__ = ["ReloadReport"]


@dataclass(frozen=True, slots=True)
class ReloadReport:
    """The outcome of ``Bridge.reload``: the snapshot it converged on and what it changed.

    A reload whose config did not load changes nothing and carries the reason in ``error``.
    """

    snapshot: PluginModel
    """The model once the servers the reload started had settled."""
    added: tuple[str, ...] = ()
    """Servers new to the config, started."""
    removed: tuple[str, ...] = ()
    """Servers gone from the config, stopped."""
    restarted: tuple[str, ...] = ()
    """Servers whose connection settings changed, started again."""
    retried: tuple[str, ...] = ()
    """Servers that had failed, started again as they were (at most once a minute each)."""
    started: tuple[str, ...] = ()
    """Servers already in the config that now start (enabled again, or a fixed entry)."""
    stopped: tuple[str, ...] = ()
    """Servers still in the config that no longer run (disabled, or an entry now invalid)."""
    error: str | None = None
    """Why the config was not reloaded; the servers shown are from the last good load."""

    @property
    def reloaded(self) -> bool:
        """Whether the config was read and applied."""
        return self.error is None

    @property
    def changed(self) -> bool:
        """Whether the reload started or stopped any server."""
        return bool(
            self.added
            or self.removed
            or self.restarted
            or self.retried
            or self.started
            or self.stopped
        )

    @property
    def summary(self) -> str:
        """One sentence: ``Config reloaded: 2 added, 1 restarted.`` or why it was not."""
        if self.error is not None:
            return f"Config not reloaded: {self.error}"
        parts = [
            f"{len(names)} {what}"
            for what, names in (
                ("added", self.added),
                ("removed", self.removed),
                ("restarted", self.restarted),
                ("retried", self.retried),
                ("started", self.started),
                ("stopped", self.stopped),
            )
            if names
        ]
        return f"Config reloaded: {', '.join(parts) if parts else 'nothing changed'}."
