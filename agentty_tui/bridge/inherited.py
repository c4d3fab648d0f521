"""What a server inherits from whoever has it started: an environment and a working folder.

A bridge in the app (or an in-process ``serve``) starts its servers from its own process: the
``${VAR}`` references of an entry are expanded from its environment, a stdio server gets the
few variables every server inherits (the mcp SDK's list: ``HOME``, ``LOGNAME``, ``PATH``,
``SHELL``, ``TERM``, ``USER``) and starts, without a ``cwd`` of its own, in its working folder.
The gateway daemon runs bridges for hosts that are other processes: each bridge is given the
attaching host's environment and folder instead, so that a server behind the daemon starts as
the host would have started it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from agentty_tui.model import StdioSpec

__all__ = ["INHERITED_VARIABLES", "Inherited"]

INHERITED_VARIABLES: tuple[str, ...] = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER")
"""The variables every stdio server gets from the environment it is started from: the mcp
SDK's list on POSIX (``DEFAULT_INHERITED_ENV_VARS``), written out so that a server can be
started before the SDK is imported (``bridge/early.py``); ``tests/bridge/test_early.py``
checks it is still the SDK's."""


@dataclass(frozen=True, slots=True)
class Inherited:
    """The environment and folder servers are started from."""

    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)
    """Where ``${VAR}`` is expanded from and the inherited variables come from (default: this
    process's environment, as it is when a server starts)."""
    folder: Path | None = None
    """Where a stdio server without a ``cwd`` starts, and what a relative ``cwd`` is relative
    to (``None``: this process's working folder)."""

    def server_environment(self) -> dict[str, str]:
        """The variables a stdio server inherits (a shell function's value is never passed)."""
        return {
            name: value
            for name in INHERITED_VARIABLES
            if (value := self.environ.get(name)) is not None and not value.startswith("()")
        }

    def placed(self, spec: StdioSpec) -> StdioSpec:
        """``spec`` with its working folder made the one it starts in."""
        if self.folder is None:
            return spec
        cwd = self.folder / spec.cwd if spec.cwd else self.folder
        return spec.model_copy(update={"cwd": str(cwd)})
