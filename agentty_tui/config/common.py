"""Small helpers the dialects that resolve variables share (Gemini, VS Code)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from agentty_tui.errors import ConfigError
from agentty_tui.model import ServerConfig

__all__ = ["map_strings", "problem"]


def problem(message: str, *, name: str, path: str | None, field: str | None = None) -> ServerConfig:
    """An entry that cannot be used, carrying why (file, server and field named)."""
    error = ConfigError(message, path=path, server=name, field=field)
    return ServerConfig(name=name, problem=str(error))


def map_strings(value: Any, change: Callable[[str], str]) -> Any:
    """``value`` with ``change`` applied to every string in it (keys stay)."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, Mapping):
        return {key: map_strings(item, change) for key, item in value.items()}
    if isinstance(value, list):
        return [map_strings(item, change) for item in value]
    return value
