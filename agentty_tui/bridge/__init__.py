"""The async layer: supervised server sessions, the four operations, snapshot publication."""

from agentty_tui.bridge.bridge import Bridge
from agentty_tui.bridge.reload_report import ReloadReport
from agentty_tui.bridge.step import StepRuntime

__all__ = ["Bridge", "ReloadReport", "StepRuntime"]
