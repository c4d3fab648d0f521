"""The async layer: supervised server sessions, the four operations, snapshot publication.

Its public names are imported on first use (``__getattr__``): a command that only reads or
edits the config imports ``bridge.shutdown`` or ``bridge.logs`` without paying for ``Bridge``,
which imports the SDK. ``from agentty_tui.bridge import Bridge`` works as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentty_tui.lazy_names import lazy_names

if TYPE_CHECKING:
    # What the type checker reads instead of ``__getattr__``, which it does not see: a name
    # the package does not export stays an error.
    from agentty_tui.bridge.bridge import Bridge
    from agentty_tui.bridge.reload_report import ReloadReport
    from agentty_tui.bridge.step import StepRuntime

__all__ = ["Bridge", "ReloadReport", "StepRuntime"]

_HOMES = {
    "Bridge": "agentty_tui.bridge.bridge",
    "ReloadReport": "agentty_tui.bridge.reload_report",
    "StepRuntime": "agentty_tui.bridge.step",
}
"""The module each lazy public name is defined in."""


if not TYPE_CHECKING:
    __getattr__ = lazy_names(__name__, _HOMES, globals())
