"""Top-level settings every dialect reads the same way (our ``toolBudget`` and ``nativeTools``
keys), and the string lists many dialects' entries hold."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field, ValidationError

from agentty_tui.config.raw import RawBase, json_type, schema_error
from agentty_tui.errors import ConfigError
from agentty_tui.model import DEFAULT_TOOL_BUDGET, NativeTool, PluginConfig, ServerConfig

__all__ = ["RawNativeTool", "settings_config", "str_list"]


class RawNativeTool(RawBase):
    """One entry of ``nativeTools``."""

    name: str = Field(min_length=1)
    """Wire name of the host tool."""
    description: str = ""
    """What the model reads about it."""
    input_schema: dict[str, Any] = Field(
        default_factory=lambda: {"type": "object"}, alias="inputSchema"
    )
    """JSON Schema of its arguments."""


def _native_tools(value: object, path: str | None) -> tuple[NativeTool, ...] | None:
    """Validate ``nativeTools``: absent or null means the host's built-in list."""
    if value is None:
        return None
    if not isinstance(value, list):
        raise ConfigError(
            f"must be an array of tools, not {json_type(value)}", path=path, field="nativeTools"
        )
    tools = []
    for index, item in enumerate(value):
        try:
            raw = RawNativeTool.model_validate(item)
        except ValidationError as error:
            raise schema_error(
                error, path=path, server=None, prefix=("nativeTools", index)
            ) from None
        tools.append(
            NativeTool(name=raw.name, description=raw.description, input_schema=raw.input_schema)
        )
    return tuple(tools)


def settings_config(
    document: Mapping[str, Any], servers: tuple[ServerConfig, ...], path: str | None
) -> PluginConfig:
    """A config of ``servers`` plus our own top-level ``toolBudget`` / ``nativeTools`` keys,
    which every dialect reads the same way."""
    budget = document.get("toolBudget", DEFAULT_TOOL_BUDGET)
    # bool is an int subclass in Python; `true` is not a budget.
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 0:
        raise ConfigError(
            f"must be a non-negative integer, not {budget!r}", path=path, field="toolBudget"
        )
    return PluginConfig(
        servers=servers,
        tool_budget=budget,
        native_tools=_native_tools(document.get("nativeTools"), path),
    )


def str_list(value: object, *, name: str, field: str, path: str | None) -> list[str] | None:
    """``value`` as a list of strings (``None`` when absent); ``ConfigError`` otherwise."""
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError("must be an array of strings", path=path, server=name, field=field)
    return list(value)
