"""Pieces the non-Claude dialects share: a JSONC-backed dialect base, and small validators.

A ``JsoncDialect`` keeps the file's text as its document: an edit is applied to the plain value
(by the subclass) and then spliced into the text (``jsonc.splice``), so comments, layout and
every key the edit does not own stay byte for byte.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from agentty_tui.config.edits import ConfigEdit
from agentty_tui.config.jsonc import duplicate_key_warnings, parse_jsonc
from agentty_tui.config.jsonc_edit import splice
from agentty_tui.config.raw import validate_document, validate_server
from agentty_tui.errors import ConfigError
from agentty_tui.model import PluginConfig, ServerConfig

__all__ = [
    "JsoncDialect",
    "JsoncDocument",
    "map_strings",
    "problem",
    "server_or_problem",
    "settings_config",
    "str_list",
]


@dataclass(frozen=True, slots=True)
class JsoncDocument:
    """A JSONC file as text plus the plain value it holds."""

    text: str
    value: dict[str, Any]
    duplicates: tuple[str, ...] = ()


def problem(message: str, *, name: str, path: str | None, field: str | None = None) -> ServerConfig:
    """An entry that cannot be used, carrying why (file, server and field named)."""
    error = ConfigError(message, path=path, server=name, field=field)
    return ServerConfig(name=name, problem=str(error))


def server_or_problem(name: str, entry: object, path: str | None) -> ServerConfig:
    """Validate one mcpServers-shaped entry; an invalid one carries its problem."""
    try:
        return validate_server(name, entry, path=path)
    except ConfigError as error:
        return ServerConfig(name=name, problem=str(error))


def str_list(value: object, *, name: str, field: str, path: str | None) -> list[str] | None:
    """``value`` as a list of strings (``None`` when absent); ``ConfigError`` otherwise."""
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError("must be an array of strings", path=path, server=name, field=field)
    return list(value)


def map_strings(value: Any, change: Callable[[str], str]) -> Any:
    """``value`` with ``change`` applied to every string in it (keys stay)."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, Mapping):
        return {key: map_strings(item, change) for key, item in value.items()}
    if isinstance(value, list):
        return [map_strings(item, change) for item in value]
    return value


def settings_config(
    document: Mapping[str, Any], servers: tuple[ServerConfig, ...], path: str | None
) -> PluginConfig:
    """A config of ``servers`` plus our own ``toolBudget`` / ``nativeTools`` keys, if present."""
    ours = {key: document[key] for key in ("toolBudget", "nativeTools") if key in document}
    base = validate_document(ours, path=path)
    return PluginConfig(
        servers=servers, tool_budget=base.tool_budget, native_tools=base.native_tools
    )


class JsoncDialect:
    """Base of dialects stored as JSON with comments; subclasses give ``validate`` and ``edit``."""

    name = "jsonc"
    timeout_fields: tuple[str, ...] = ("connect_timeout", "request_timeout")
    """Which of ``ServerConfig``'s timeouts the format can hold (``connectTimeout`` and
    ``requestTimeout`` unless a subclass says otherwise)."""

    def validate(self, value: dict[str, Any], path: str | None) -> PluginConfig:
        """The config a parsed top-level object describes."""
        raise NotImplementedError

    def edit(self, value: dict[str, Any], edit: ConfigEdit, path: str | None) -> dict[str, Any]:
        """The plain value after ``edit`` (``value`` is a private copy the method may change)."""
        raise NotImplementedError

    def parse(self, text: str, path: str | None) -> tuple[JsoncDocument, PluginConfig]:
        """Parse JSONC text (comments and trailing commas allowed) and validate it."""
        if not text.strip():
            return JsoncDocument(text, {}), self.validate({}, path)
        root = parse_jsonc(text, path)
        if not isinstance(root.value, dict):
            raise ConfigError("the top level must be an object", path=path)
        document = JsoncDocument(text, root.value, tuple(root.duplicates))
        config = self.validate(root.value, path)
        if root.repeated_at:
            warnings = duplicate_key_warnings(text, root.repeated_at, path)
            config = config.model_copy(update={"warnings": warnings})
        return document, config

    def apply(self, document: JsoncDocument, edit: ConfigEdit, path: str | None) -> JsoncDocument:
        """Apply ``edit`` to the value and splice the change into the text."""
        if document.duplicates:
            names = ", ".join(repr(key) for key in dict.fromkeys(document.duplicates))
            raise ConfigError(
                f"the file repeats the key(s) {names}; remove the duplicates before editing",
                path=path,
            )
        value = self.edit(copy.deepcopy(document.value), edit, path)
        if value == document.value:
            return document
        return JsoncDocument(splice(document.text, value, path=path), value)

    def dump(self, document: JsoncDocument, like: str | None) -> str:
        """The document's text: it already is laid out like the file."""
        return document.text
