"""Read, validate, edit and atomically write config files.

``ConfigStore(path).load()`` gives a ``model.PluginConfig``; ``ConfigStore(path).apply(edit)``
writes one of the edits below into the file, keeping everything else the user wrote, and returns
the config afterwards. The file format sits behind ``Dialect``: Claude-style ``mcpServers`` JSON
(``McpJsonDialect``, also Cursor), Gemini CLI's ``settings.json`` (``GeminiDialect``), VS Code's
``.vscode/mcp.json`` with comments (``VsCodeDialect``) and Codex's ``config.toml``
(``CodexDialect``); ``detect_dialect`` tells them apart and ``dialect_by_name`` forces one.
``plan_import`` / ``apply_import`` copy servers from one config into another.

This package imports only the model layer, the standard library, pydantic and tomlkit.
"""

from agentty_tui.config.codex import CodexDialect
from agentty_tui.config.detect import DIALECT_NAMES, detect_dialect, dialect_by_name, dialect_name
from agentty_tui.config.dialect import Dialect
from agentty_tui.config.edits import (
    AddServer,
    ConfigEdit,
    RemoveServer,
    SetServerDisabled,
    SetToolEnabled,
    SetToolFilter,
    UpdateServer,
    apply_edit,
    spec_to_entry,
)
from agentty_tui.config.gemini import GeminiDialect
from agentty_tui.config.importing import (
    ImportDifference,
    ImportPlan,
    ImportResult,
    apply_import,
    plan_import,
)
from agentty_tui.config.mcpjson import McpJsonDialect
from agentty_tui.config.raw import validate_document, validate_server
from agentty_tui.config.store import ConfigStore, FileVersion
from agentty_tui.config.vscode import VsCodeDialect

__all__ = [
    "DIALECT_NAMES",
    "AddServer",
    "CodexDialect",
    "ConfigEdit",
    "ConfigStore",
    "Dialect",
    "FileVersion",
    "GeminiDialect",
    "ImportDifference",
    "ImportPlan",
    "ImportResult",
    "McpJsonDialect",
    "RemoveServer",
    "SetServerDisabled",
    "SetToolEnabled",
    "SetToolFilter",
    "UpdateServer",
    "VsCodeDialect",
    "apply_edit",
    "apply_import",
    "detect_dialect",
    "dialect_by_name",
    "dialect_name",
    "plan_import",
    "spec_to_entry",
    "validate_document",
    "validate_server",
]
