"""The tool on/off rule every dialect shares, on plain allow-list / deny-list values.

Each format spells the lists its own way (``tools.include`` / ``tools.exclude``, Gemini's
``includeTools`` / ``excludeTools``, Codex's ``enabled_tools`` / ``disabled_tools``) but turns a
tool on or off the same way, so that what one host writes means the same to the others.
"""

from __future__ import annotations

from typing import Any

__all__ = ["filter_entry", "toggle_tool"]


def filter_entry(include: list[str] | None, exclude: list[str] | None) -> dict[str, Any]:
    """Our ``tools`` object for a dialect's allow-list / deny-list (empty when neither is set)."""
    tools: dict[str, Any] = {}
    if include is not None:
        tools["include"] = include
    if exclude:
        tools["exclude"] = exclude
    return tools


def toggle_tool(
    include: list[str] | None, exclude: list[str], tool: str, enabled: bool
) -> tuple[list[str] | None, list[str]]:
    """The (include, exclude) lists after turning ``tool`` on or off; the inputs are unchanged.

    Off adds the tool to the deny-list. On removes it from the deny-list and, when there is an
    allow-list, adds it there too; an absent allow-list stays absent.
    """
    if enabled:
        exclude = [name for name in exclude if name != tool]
        if include is not None and tool not in include:
            include = [*include, tool]
    elif tool not in exclude:
        exclude = [*exclude, tool]
    return include, exclude
