"""The other hosts' config files the picker offers to import (the first run's list, ``i``).

``HostFileSearch`` looks for them once, on first use (``config.discover`` on the real home and
folder unless the app was given a search of its own), and leaves out the file the picker
imports into and, in a workspace, every file it reads already (a host left out by
``--hosts``). The app shows what it found; Textual-free.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from agentty_tui.config.discover import HostFile, host_config_files
from agentty_tui.ui.source import PluginSource

__all__ = ["FindHostFiles", "HostFileSearch", "host_files_here"]

FindHostFiles = Callable[[Path | None], tuple[HostFile, ...]]
"""Looks for other hosts' config files, all but the given config (the one imported into)."""


def host_files_here(config: Path | None) -> tuple[HostFile, ...]:
    """The other hosts' config files of this user and folder, but ``config`` itself."""
    return host_config_files(Path.home(), os.environ, Path.cwd(), exclude=config)


class HostFileSearch:
    """The other hosts' config files a source could import, looked for once."""

    def __init__(self, source: PluginSource, find: FindHostFiles | None = None) -> None:
        """``find``: how to look (``host_files_here`` when not given; a test passes a fake
        home's)."""
        self.source = source
        """What the files are offered to: its import target and the files it reads."""
        self.find = find or host_files_here
        """Looks for other hosts' config files (all but the given config)."""
        self._found: tuple[HostFile, ...] | None = None  # None: not looked for yet

    def found(self) -> tuple[HostFile, ...]:
        """The other hosts' config files found, looked for on the first call; in a workspace,
        those it does not read already (a host left out by ``--hosts``)."""
        if self._found is None:
            found = self.find(self.source.import_target())
            read = {path.absolute() for path in self.source.config_files()}
            self._found = tuple(f for f in found if f.path.absolute() not in read)
        return self._found
