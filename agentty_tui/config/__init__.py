"""Read, validate, edit and atomically write config files.

``ConfigStore(path).load()`` gives a ``model.PluginConfig``; ``ConfigStore(path).apply(edit)``
writes one of the edits of ``edits.py`` into the file, keeping everything else the user wrote,
and returns the config afterwards. ``plan_import`` / ``apply_import`` copy servers from one
config into another.

How it is built:

- ``store.py`` does the file work (lock, re-read, atomic replace); it sees a ``Dialect``.
- ``documents/``: the document formats (``documents/formats.py``): JSON (written with our layout
  printer, ``documents/jsonlayout.py``, or spliced), JSON with comments (``documents/jsonc.py``
  parses and splices) and TOML (``documents/toml.py``, tomlkit).
- ``engine.py``: the one edit engine. A dialect is an ``Adapter`` that names its format and its
  spelling; the engine applies every edit (``AddServer``, ``RemoveServer``, ``SetToolEnabled``,
  ``SetToolFilter``, ``SetServerDisabled``, ``UpdateServer``) through it.
- The dialects, one module per host in ``hosts/``: Claude-style ``mcpServers`` JSON
  (``mcpjson.McpJsonDialect``, also Cursor), Gemini CLI's ``settings.json``
  (``gemini.GeminiDialect``), VS Code's ``.vscode/mcp.json`` (``vscode.VsCodeDialect``) and Codex's
  ``config.toml`` (``codex.CodexDialect``). ``detect_dialect`` tells them apart and
  ``dialect_by_name`` forces one.
- ``raw.py`` validates an entry in our own shape; every dialect turns its entries into that shape
  first.

Adding a dialect is one small file::

    class ExampleDialect(Adapter):
        # A host whose file is JSON with {"servers": {NAME: {...}}}.

        name = "example"             # what --format and dialect_by_name call it
        format = JsoncFormat()       # or JsonFormat() (keep one per instance), TomlFormat()
        servers_key = "servers"      # the top-level key of the server map
        tools_key = None             # the lists sit in the entry (else the key of their object)
        include_key = "allowTools"   # the allow-list's key
        exclude_key = "denyTools"    # the deny-list's key
        disabled_key = "enabled"     # the disabled flag's key...
        disabled_value = False       # ...and what it holds for a disabled server
        timeouts = (TimeoutKey("request_timeout", "timeoutMs", scale=1000),)
        connection = ConnectionSpelling(groups=same_name("command", "args", "env", "url"))

        def validate(self, value, path):        # read: entries into our shape, then validate
            servers = value.get(self.servers_key, {})
            return settings_config(value, validate_entries(servers, to_ours, path), path)

        def new_entry(self, spec):               # write: a new entry in the host's spelling
            return spec_to_entry(spec)

Override ``set_disabled`` when the flag lives outside the entry (Gemini's ``mcp.excluded``),
``after_add`` when a new server needs more than its entry, and where a host keeps its OAuth
settings elsewhere, read them in ``validate``. Then name the dialect in ``detect.py``.

This package imports only the model layer, the standard library, pydantic and tomlkit.

Its public names are imported on first use (``__getattr__``), each from its own module: a
command that edits a JSON file imports the modules of that dialect and the edit, not Codex's
(with tomlkit), the other hosts' or the import planner. ``from agentty_tui.config import X``
works as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentty_tui.lazy_names import lazy_names

if TYPE_CHECKING:
    # What the type checker reads instead of ``__getattr__``, which it does not see: a name
    # the package does not export stays an error.
    from agentty_tui.config.detect import (
        DIALECT_NAMES,
        detect_dialect,
        dialect_by_name,
        dialect_name,
    )
    from agentty_tui.config.dialect import Dialect
    from agentty_tui.config.engine import (
        AddServer,
        ConfigEdit,
        RemoveServer,
        SetServerDisabled,
        SetServerPriority,
        SetToolEnabled,
        SetToolFilter,
        SetToolPinned,
        UpdateServer,
    )
    from agentty_tui.config.files import FileVersion
    from agentty_tui.config.hosts.codex import CodexDialect
    from agentty_tui.config.hosts.gemini import GeminiDialect
    from agentty_tui.config.hosts.mcpjson import (
        McpJsonDialect,
        apply_edit,
        spec_to_entry,
        validate_document,
    )
    from agentty_tui.config.hosts.vscode import VsCodeDialect
    from agentty_tui.config.importing import (
        ImportDifference,
        ImportPlan,
        ImportResult,
        apply_import,
        plan_import,
    )
    from agentty_tui.config.raw import validate_server
    from agentty_tui.config.store import ConfigStore

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
    "SetServerPriority",
    "SetToolEnabled",
    "SetToolFilter",
    "SetToolPinned",
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

_HOMES = {
    "DIALECT_NAMES": "agentty_tui.config.detect",
    "AddServer": "agentty_tui.config.engine",
    "CodexDialect": "agentty_tui.config.hosts.codex",
    "ConfigEdit": "agentty_tui.config.engine",
    "ConfigStore": "agentty_tui.config.store",
    "Dialect": "agentty_tui.config.dialect",
    "FileVersion": "agentty_tui.config.files",
    "GeminiDialect": "agentty_tui.config.hosts.gemini",
    "ImportDifference": "agentty_tui.config.importing",
    "ImportPlan": "agentty_tui.config.importing",
    "ImportResult": "agentty_tui.config.importing",
    "McpJsonDialect": "agentty_tui.config.hosts.mcpjson",
    "RemoveServer": "agentty_tui.config.engine",
    "SetServerDisabled": "agentty_tui.config.engine",
    "SetServerPriority": "agentty_tui.config.engine",
    "SetToolEnabled": "agentty_tui.config.engine",
    "SetToolFilter": "agentty_tui.config.engine",
    "SetToolPinned": "agentty_tui.config.engine",
    "UpdateServer": "agentty_tui.config.engine",
    "VsCodeDialect": "agentty_tui.config.hosts.vscode",
    "apply_edit": "agentty_tui.config.hosts.mcpjson",
    "apply_import": "agentty_tui.config.importing",
    "detect_dialect": "agentty_tui.config.detect",
    "dialect_by_name": "agentty_tui.config.detect",
    "dialect_name": "agentty_tui.config.detect",
    "plan_import": "agentty_tui.config.importing",
    "spec_to_entry": "agentty_tui.config.hosts.mcpjson",
    "validate_document": "agentty_tui.config.hosts.mcpjson",
    "validate_server": "agentty_tui.config.raw",
}
"""The module each lazy public name is defined in."""


if not TYPE_CHECKING:
    __getattr__ = lazy_names(__name__, _HOMES, globals())
