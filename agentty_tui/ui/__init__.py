"""The Textual picker: a pure view of plugin model snapshots (the only layer importing Textual).

``run_picker(bridge)`` opens it on a bridge (of a project's workspace, or of one file);
``PickerApp(source)`` is the app itself, for any ``PluginSource`` (the bridge, or a static one
in tests).
"""

from agentty_tui.ui.app import PickerApp
from agentty_tui.ui.run import run_picker
from agentty_tui.ui.source import PluginSource

__all__ = ["PickerApp", "PluginSource", "run_picker"]
