"""The async layer: supervised server sessions, the four operations, snapshot publication."""

from agentty_tui.bridge.bridge import Bridge
from agentty_tui.bridge.step import StepRuntime

__all__ = ["Bridge", "StepRuntime"]
