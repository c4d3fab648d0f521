"""Read, validate, edit and atomically write config files.

``ConfigStore(path).load()`` gives a ``model.PluginConfig``; ``ConfigStore(path).apply(edit)``
writes one of the edits below into the file, keeping everything else the user wrote, and returns
the config afterwards. The file format sits behind ``Dialect``; today that is Claude-style
``mcpServers`` JSON (``McpJsonDialect``).

This package imports only the model layer, the standard library and pydantic.
"""

from agentty_tui.config.dialect import Dialect, McpJsonDialect
from agentty_tui.config.edits import (
    AddServer,
    ConfigEdit,
    RemoveServer,
    SetServerDisabled,
    SetToolEnabled,
    apply_edit,
    spec_to_entry,
)
from agentty_tui.config.raw import validate_document, validate_server
from agentty_tui.config.store import ConfigStore, FileVersion

__all__ = [
    "AddServer",
    "ConfigEdit",
    "ConfigStore",
    "Dialect",
    "FileVersion",
    "McpJsonDialect",
    "RemoveServer",
    "SetServerDisabled",
    "SetToolEnabled",
    "apply_edit",
    "spec_to_entry",
    "validate_document",
    "validate_server",
]
