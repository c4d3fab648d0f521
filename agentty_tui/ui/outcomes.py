"""What an operation's result means, in words: the notification the picker shows for it.

A (re)start that ended (``start_notice``: connected with its tools, waiting for a login, or
failed), a tool switched off that some host still sends (``still_on_notice``), a reload asked
for (``reload_notice``) or made by an edit elsewhere (``outside_reload_notice``, nothing when
it changed nothing). Each is a ``Notice``; the app shows it as plain text.

Pure: no I/O, no Textual.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from agentty_tui.bridge.reload_report import ReloadReport
from agentty_tui.config.hosts.switches import HOST_NAMES
from agentty_tui.model import ServerState, hosts_in_use

__all__ = [
    "Notice",
    "outside_reload_notice",
    "reload_notice",
    "start_notice",
    "still_on_notice",
    "tools_on",
]


@dataclass(frozen=True, slots=True)
class Notice:
    """One notification: what it says and how loud it is."""

    message: str
    """The text, shown as plain text (it quotes server names, errors and paths)."""
    title: str = ""
    """A title above the text, if any."""
    severity: Literal["information", "warning", "error"] = "information"
    """How it is shown (Textual's severity levels)."""
    timeout: float | None = None
    """Seconds it stays; ``None``: the app's default."""


def tools_on(state: ServerState) -> str:
    """``2 tools``, or ``1 of 2 tools on`` when the filter keeps some off."""
    total = len(state.tools)
    on = sum(1 for tool in state.tools if tool.enabled)
    plural = "tool" if total == 1 else "tools"
    return f"{total} {plural}" if on == total else f"{on} of {total} {plural} on"


def start_notice(state: ServerState, done: str, *, again: bool) -> Notice | None:
    """How a (re)start of ``state``'s server ended (``done``: ``"Enabled"``, ``"Restarted"``);
    ``None`` while it is still connecting. ``again``: it had failed before this start."""
    name = state.name
    if state.status == "connecting":
        return None
    if state.status == "connected":
        return Notice(f"{done} {name!r}: {tools_on(state)}.", timeout=3)
    if state.status == "needs_login":
        return Notice(f"Server {name!r} needs a login: L logs in.", severity="warning")
    why = f": {state.error}" if state.error else f" ({state.status})"
    failed = "failed again" if again else "failed"
    return Notice(f"Server {name!r} {failed}{why}", title="Start", severity="error")


def still_on_notice(state: ServerState | None, tool: str) -> Notice | None:
    """After ``tool`` was switched off: if it stays on because a host that has no per-tool
    switch still sends it, which hosts (the row stays on, and why is news); else ``None``."""
    if state is None or not any(t.bare == tool and t.enabled for t in state.tools):
        return None
    still = [view.source.host for view in hosts_in_use(state.hosts) if view.sends(tool)]
    unswitched = [HOST_NAMES.get(host, host) for host in still]
    one = len(unswitched) == 1
    return Notice(
        f"{tool} stays on: {', '.join(unswitched)} still {'sends' if one else 'send'} it "
        f"(no per-tool switch in {'its' if one else 'their'} files); the others leave it "
        "out.",
        title="Toggle",
        severity="warning",
    )


def reload_notice(report: ReloadReport) -> Notice:
    """The answer to ``r``: what the reload changed, or why the file was not read."""
    if report.reloaded:
        return Notice(report.summary, timeout=3)
    return Notice(report.summary, severity="error", timeout=8)


def outside_reload_notice(report: ReloadReport) -> Notice | None:
    """What a reload of an edit made elsewhere did: its summary, or why the file was not read;
    ``None`` when it changed nothing (Claude Code rewrites ``~/.claude.json`` after every
    prompt)."""
    if not report.reloaded:
        return Notice(f"Outside edit: {report.summary}", severity="error", timeout=8)
    if report.changed:
        return Notice(f"Outside edit: {report.summary}", timeout=4)
    return None
