"""The picker's text bars: the title, the status bar's counts, the config notes, the daemon
panel and what an empty list says.

``summarize`` counts a snapshot's servers and tools against its wire catalog (``Summary``; its
``text`` is the status line); ``config_notes`` is the bar of why the config did not (re)load and
what it warns about; ``daemon_text`` is the panel of a picker attached to the gateway daemon;
``title_text`` the title bar; ``empty_text`` why the list is empty. The app shows them in
``PlainText`` bars: text a server or a file wrote is never markup.

Pure: no I/O, no Textual (the host files an empty config lists are looked for by the caller's
function, only then).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agentty_tui.catalog import WireCatalog
from agentty_tui.config.discover import HostFile
from agentty_tui.gateway.picker.view import DaemonView
from agentty_tui.model import PluginModel
from agentty_tui.terminal_text import safe_line
from agentty_tui.ui.row_filter import no_such_words, parse_filter
from agentty_tui.ui.token_text import short_count

__all__ = [
    "Summary",
    "config_notes",
    "daemon_text",
    "empty_text",
    "first_run_text",
    "summarize",
    "title_text",
]


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
    tokens: int | None = None
    """What the shipped tools' definitions take, when the token budget was applied or the
    tools are counted."""
    family: str | None = None
    """A host's lens: the model family its tokens are counted in (``"OpenAI"``)."""
    host_rules: tuple[str, ...] = ()
    """A host's lens: its own limits in words (``catalog.host_limits``)."""
    by_cost: bool = False
    """Whether the rows are sorted by cost (``s``)."""

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
        if self.tokens is not None:
            family = f" ({self.family})" if self.family else ""
            parts.append(f"{short_count(self.tokens)} tokens{family}")
        parts += self.host_rules
        if self.by_cost:
            parts.append("by cost")
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
        tokens=catalog.tokens_shipped,
    )


def config_notes(model: PluginModel) -> str:
    """The config-error bar: why the file did not (re)load, why its servers wait for trust,
    which files are still being read, and its warnings, one line each (empty when all is
    well)."""
    lines = [*model.reading, *model.config_warnings]
    if model.config_untrusted:
        lines.insert(0, model.config_untrusted)
    if model.config_error:
        lines.insert(0, f"config not (re)loaded, showing the last good one: {model.config_error}")
    return "\n".join(lines)


def daemon_text(view: DaemonView) -> str:
    """The panel of an attached picker: the hosts attached for its workspace, a line each
    (host, project, since when, how many of the tools shown it lists), or why there is no
    daemon now."""
    if not view.attached:
        return view.note or "the gateway daemon went away"
    if not view.hosts:
        return "attached to the gateway daemon · no host attached for this workspace"
    lines = [
        f"attached to the gateway daemon · {len(view.hosts)} host(s) attached for this workspace:"
    ]
    for host in view.hosts:
        since = host.since.replace("T", " ").removesuffix("Z") + " UTC"
        lines.append(
            f"  {safe_line(host.label)}  {safe_line(host.project)}  since {since}"
            f"  · {len(host.tools)} tools listed"
        )
    return "\n".join(lines)


def title_text(model: PluginModel, daemon: DaemonView | None) -> str:
    """The title bar: the config file, and the gateway daemon the picker is attached to (or
    that it went away)."""
    title = "agentty-tui" + (f" · {model.config_path}" if model.config_path else "")
    if daemon is not None:
        attached = daemon.attached and daemon.pid is not None
        title += f" · gateway daemon {daemon.pid}" if attached else " · daemon gone"
    return title


def empty_text(
    model: PluginModel, filter_text: str, host_files: Callable[[], tuple[HostFile, ...]]
) -> str:
    """Why the list is empty: files still being read, an empty config (how to add a server,
    and the other hosts' files it could import: ``host_files`` is asked only then), or the
    filter."""
    if not model.servers and model.reading:  # not empty: not read yet
        return "Reading the workspace's files (see above): their servers come next."
    if not model.servers:
        return first_run_text(host_files())
    unknown = parse_filter(filter_text).unknown
    if unknown:
        return f"{no_such_words(unknown)}; escape clears."
    return "Nothing matches the filter (escape clears it)."


def first_run_text(files: tuple[HostFile, ...]) -> str:
    """An empty config: how to add a server, and the host files it could import."""
    if not files:
        return "No servers in this config yet: press a to add one."
    found = "\n".join(f"  {safe_line(found.describe())}" for found in files)
    return (
        "No servers in this config yet: press a to add one, or i to import another "
        f"host's servers from:\n{found}"
    )
