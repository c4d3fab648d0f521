"""What the bridge reads its config from: one file (``ConfigStore``) or a workspace of many
(``Workspace``); both are this protocol."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from agentty_tui.config.engine import ConfigEdit
from agentty_tui.model import PluginConfig, SourceRef

__all__ = ["ConfigSource"]


class ConfigSource(Protocol):
    """A config that can be loaded, edited and watched."""

    @property
    def path(self) -> Path:
        """What log names and messages call the config: the file, or the project root."""
        ...

    def load(self) -> PluginConfig:
        """The config as the files hold it now."""
        ...

    def apply(
        self, edit: ConfigEdit | Sequence[ConfigEdit], *, source: SourceRef | None = None
    ) -> PluginConfig:
        """Write ``edit`` (into ``source``, or the file that owns the entry); the config after."""
        ...

    def version(self) -> object:
        """A cheap fingerprint of the files: equal while none of them changed."""
        ...

    def watched_paths(self) -> tuple[Path, ...]:
        """The files whose outside edits are a reload (present or not)."""
        ...
