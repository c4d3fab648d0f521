"""The wire catalog: what goes on the wire for a model snapshot, and under which names.

One concern in small modules: :mod:`.projection` (snapshot -> catalog, and the
``CatalogProjector`` that redoes only changed servers), :mod:`.values` (``WireTool``,
``WireCatalog``), :mod:`.names` (tool identities, ``WireNames``), :mod:`.allocation` (how each
identity gets a distinct provider-safe name), :mod:`.native_tools` (the host's default tools),
:mod:`.tokens` (what each tool definition costs the model, counted offline),
:mod:`.host_limits` (each host's own limits on its tools) and :mod:`.step`
(a step runtime over the wire, imported on its own since it needs the bridge).
Everything a consumer needs is re-exported here.
"""

from __future__ import annotations

from agentty_tui.catalog.allocation import allocate_wire_names
from agentty_tui.catalog.names import (
    MAX_WIRE_NAME_LENGTH,
    SUFFIX_HEX_DIGITS,
    WIRE_NAME_PATTERN,
    ToolRef,
    WireNames,
    identity_digest,
    is_provider_safe,
    qualified_name,
    sanitize,
)
from agentty_tui.catalog.native_tools import DEFAULT_NATIVE_TOOLS
from agentty_tui.catalog.projection import CatalogProjector, project_catalog
from agentty_tui.catalog.tokens import (
    DEFAULT_FAMILY,
    FAMILIES,
    TOKEN_COUNTER,
    CountNotKept,
    FamilyName,
    ModelFamily,
    TokenCounter,
    tool_definition,
)
from agentty_tui.catalog.values import WireCatalog, WireTool, budget_warning, group_trimmed

__all__ = [
    "DEFAULT_FAMILY",
    "DEFAULT_NATIVE_TOOLS",
    "FAMILIES",
    "MAX_WIRE_NAME_LENGTH",
    "SUFFIX_HEX_DIGITS",
    "TOKEN_COUNTER",
    "WIRE_NAME_PATTERN",
    "CatalogProjector",
    "CountNotKept",
    "FamilyName",
    "ModelFamily",
    "TokenCounter",
    "ToolRef",
    "WireCatalog",
    "WireNames",
    "WireTool",
    "allocate_wire_names",
    "budget_warning",
    "group_trimmed",
    "identity_digest",
    "is_provider_safe",
    "project_catalog",
    "qualified_name",
    "sanitize",
    "tool_definition",
]
