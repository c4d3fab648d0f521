"""A step runtime over the wire: the step's wire tools, and calls by wire name.

``WireStep`` pairs a bridge ``StepRuntime`` (a pinned snapshot plus leases on its sessions) with
the wire catalog projected from that same snapshot, so the tools a step advertises and the
sessions its calls go through can never disagree. Not imported by the package itself: it
needs the bridge's runtime, which the rest of the catalog does not.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from types import TracebackType
from typing import Any

import mcp_types as types

from agentty_tui.bridge import Bridge, StepRuntime
from agentty_tui.catalog.projection import project_catalog
from agentty_tui.catalog.values import WireCatalog, WireTool
from agentty_tui.errors import OperationError
from agentty_tui.model import NativeTool

__all__ = ["WireStep", "open_step"]


class WireStep:
    """One agent step: list its wire tools, call them by wire name, close it when done."""

    def __init__(
        self,
        runtime: StepRuntime,
        *,
        native_tools: Sequence[NativeTool] | None = None,
        budget: int | None = None,
    ) -> None:
        self.runtime = runtime
        """The pinned snapshot and sessions the calls go through."""
        self._native_tools = native_tools
        self._budget = budget

    @cached_property
    def catalog(self) -> WireCatalog:
        """The wire catalog of the step's snapshot (projected on first use: capture stays cheap)."""
        return project_catalog(
            self.runtime.snapshot, native_tools=self._native_tools, budget=self._budget
        )

    @property
    def tools(self) -> tuple[WireTool, ...]:
        """What this step advertises to the model: natives first, then MCP tools."""
        return self.catalog.tools

    async def call(
        self, wire_name: str, arguments: dict[str, Any] | None = None
    ) -> types.CallToolResult:
        """Call an MCP tool the step advertised, through the session it was advertised from."""
        tool = self.catalog.tool(wire_name)  # UnknownToolError for trimmed or unknown names
        if tool.server is None:
            raise OperationError(f"{wire_name!r} is a native tool: the host runs it, not a server")
        return await self.runtime.call(tool.server, tool.tool, arguments)

    def close(self) -> None:
        """End the step and release its sessions."""
        self.runtime.close()

    def __enter__(self) -> WireStep:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def open_step(
    bridge: Bridge, *, native_tools: Sequence[NativeTool] | None = None, budget: int | None = None
) -> WireStep:
    """Capture a step of ``bridge``: no request is sent and no server is touched."""
    return WireStep(bridge.step(), native_tools=native_tools, budget=budget)
