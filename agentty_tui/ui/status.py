"""The status bar's numbers and the config-error bar's notes, from one snapshot (pure)."""

from __future__ import annotations

from dataclasses import dataclass

from agentty_tui.catalog import WireCatalog
from agentty_tui.model import PluginModel

__all__ = ["Summary", "config_notes", "summarize"]


@dataclass(frozen=True, slots=True)
class Summary:
    """The counts the status bar shows."""

    connected: int
    """Servers by status: connected, connecting, failed, disabled, untrusted (not started:
    the config is not trusted)."""
    connecting: int
    failed: int
    needs_login: int
    """Servers that wait for an OAuth login."""
    disabled: int
    untrusted: int
    tools_enabled: int
    """Tools switched on, over the connected servers."""
    tools_total: int
    """Tools advertised, over the connected servers."""
    on_wire: int
    """Tools the wire catalog ships (native ones included)."""
    budget: int
    """How many tools may go on the wire."""
    warning: str | None
    """The catalog's over-budget warning, if any."""
    tools_unavailable: int = 0
    """Tools still listed by servers that are not connected (none of them is on the wire)."""
    shadowed: int = 0
    """A workspace's entries hidden by one of the same name in a file that takes precedence."""

    @property
    def text(self) -> str:
        """The status line without the warning."""
        parts = [f"{self.connected} connected"]
        if self.connecting:
            parts.append(f"{self.connecting} connecting")
        if self.failed:
            parts.append(f"{self.failed} failed")
        if self.needs_login:
            parts.append(f"{self.needs_login} need login")
        if self.disabled:
            parts.append(f"{self.disabled} disabled")
        if self.untrusted:
            parts.append(f"{self.untrusted} untrusted")
        if self.shadowed:
            parts.append(f"{self.shadowed} shadowed")
        parts.append(f"{self.tools_enabled}/{self.tools_total} tools on")
        if self.tools_unavailable:
            parts.append(f"{self.tools_unavailable} not available")
        parts.append(f"{self.on_wire}/{self.budget} on the wire")
        return " · ".join(parts)


def summarize(model: PluginModel, catalog: WireCatalog) -> Summary:
    """Count servers by status, tools enabled, and tools on the wire against the budget."""
    statuses = [server.status for server in model.servers]
    # A server that is not connected ships nothing: its tools are not counted as on.
    connected = [server for server in model.servers if server.status == "connected"]
    return Summary(
        connected=statuses.count("connected"),
        connecting=statuses.count("connecting"),
        failed=statuses.count("failed"),
        needs_login=statuses.count("needs_login"),
        disabled=statuses.count("disabled"),
        untrusted=statuses.count("untrusted"),
        shadowed=len(model.shadowed),
        tools_enabled=sum(server.enabled_count for server in connected),
        tools_total=sum(len(server.tools) for server in connected),
        tools_unavailable=sum(len(s.tools) for s in model.servers if s.status != "connected"),
        on_wire=len(catalog.tools),
        budget=catalog.budget,
        warning=catalog.warning,
    )


def config_notes(model: PluginModel) -> str:
    """The config-error bar: why the file did not (re)load, why its servers wait for trust,
    and its warnings, one line each (empty when all is well)."""
    lines = list(model.config_warnings)
    if model.config_untrusted:
        lines.insert(0, model.config_untrusted)
    if model.config_error:
        lines.insert(0, f"config not (re)loaded, showing the last good one: {model.config_error}")
    return "\n".join(lines)
